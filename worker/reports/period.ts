/**
 * The period of a report: whole days in the site's time zone, ending no later than the last
 * day the publisher has published (a day publishes shortly after it ends there); or, for the
 * timeseries, the conversions report and the Overview, closed local hours (`today`, `24h`).
 * A running hour is never reported: a figure still growing could be differenced against
 * itself a minute later. A closed hour is decided once (privacy/hours.ts closingHours) and never
 * changes, so reading it again later singles no one out.
 */
import { HttpProblem } from "../lib/problem";
import type { HourWindow, ReportScope } from "./scope";
import { addDays, canonicalTimeZone, daysBetween, HOUR_MS, localDate, localHourStart, startOfLocalDay } from "./timezone";

export const PERIODS = ["day", "7d", "30d"] as const;
/** Periods of closed hours, for the reports that have hours: the timeseries, conversions and the Overview. */
export const HOUR_PERIODS = ["today", "24h"] as const;
export type PeriodName = (typeof PERIODS)[number] | (typeof HOUR_PERIODS)[number];

const LENGTH: Record<(typeof PERIODS)[number], number> = { day: 1, "7d": 7, "30d": 30 };

/** Longest from/to span, in days. */
export const MAX_DAYS = 366;

export interface PeriodQuery {
  period?: PeriodName | undefined;
  date?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  tz?: string | undefined;
}

export interface Period {
  from: string;
  to: string;
  days: number;
  timeZone: string;
  /** For `today` and `24h`: the closed hours covered; days up to `lastEndedDay` have ended. */
  hours?: ReportScope["hours"];
}

/** The end of the last closed local hour at `throughMs`: hours ending by then are published. */
export function lastClosedHourEnd(timeZone: string, throughMs: number): number {
  return localHourStart(timeZone, throughMs);
}

/**
 * A window of closed hours: `today` (the local day of the publication instant, from its start
 * to its last closed hour: empty in its first hour) or `24h` (the 24 closed hours before it).
 */
export function hourPeriod(name: (typeof HOUR_PERIODS)[number], timeZone: string, throughMs: number): Period {
  const toMs = lastClosedHourEnd(timeZone, throughMs);
  const fromMs = name === "today" ? startOfLocalDay(timeZone, localDate(timeZone, throughMs)) : toMs - 24 * HOUR_MS;
  return windowPeriod({ fromMs, toMs }, timeZone, throughMs);
}

/** The period of an arbitrary window of closed hours (the Overview's). */
export function windowPeriod(window: HourWindow, timeZone: string, throughMs: number): Period {
  const from = localDate(timeZone, window.fromMs);
  const to = window.toMs > window.fromMs ? localDate(timeZone, window.toMs - 1) : from;
  return { from, to, days: daysBetween(from, to), timeZone, hours: { window, lastEndedDay: lastCompleteDay(timeZone, throughMs) } };
}

const isHourPeriod = (name: PeriodName | undefined): name is (typeof HOUR_PERIODS)[number] =>
  (HOUR_PERIODS as readonly string[]).includes(name ?? "");

/** The last complete day in the zone at `now`. */
export function lastCompleteDay(timeZone: string, now: number): string {
  return addDays(localDate(timeZone, now), -1);
}

/**
 * Resolves the query against the site's zone and the publication (`publishedThroughMs`: every
 * day that ended by then is published). Shape errors (400) are the schema's; what this
 * refuses is well-formed but not acceptable for this site: 422 naming the field.
 */
export function resolvePeriod(query: PeriodQuery, siteZone: string, publishedThroughMs: number): Period {
  if (query.tz !== undefined) {
    const asked = canonicalTimeZone(query.tz);
    if (asked !== siteZone) {
      throw new HttpProblem(
        422,
        `tz: reports of this site are cut into days in ${siteZone}; other time zones are refused, since slices of days could be differenced against each other.`,
        { field: "tz" },
      );
    }
  }
  if (isHourPeriod(query.period)) {
    for (const field of ["date", "from", "to"] as const)
      if (query[field] !== undefined)
        throw new HttpProblem(400, `${field}: not with period=${query.period}, which ends at the last closed hour.`, { field });
    return hourPeriod(query.period, siteZone, publishedThroughMs);
  }
  const latest = lastCompleteDay(siteZone, publishedThroughMs);
  let from: string;
  let to: string;
  if (query.from !== undefined || query.to !== undefined) {
    if (query.period !== undefined || query.date !== undefined) {
      throw new HttpProblem(400, "period: give either period (with an optional date) or from and to, not both.", {
        field: query.period !== undefined ? "period" : "date",
      });
    }
    if (query.from === undefined) throw new HttpProblem(400, "from: required with to.", { field: "from" });
    if (query.to === undefined) throw new HttpProblem(400, "to: required with from.", { field: "to" });
    from = query.from;
    to = query.to;
    if (to < from) throw new HttpProblem(400, "to: must not be before from.", { field: "to" });
    if (daysBetween(from, to) > MAX_DAYS)
      throw new HttpProblem(400, `from: a period spans at most ${MAX_DAYS} days.`, { field: "from" });
    if (to > latest) {
      throw new HttpProblem(422, `to: reports cover published days (whole days that have ended in ${siteZone}); the latest is ${latest}.`, {
        field: "to",
      });
    }
  } else {
    to = query.date ?? latest;
    if (to > latest) {
      throw new HttpProblem(422, `date: reports cover published days (whole days that have ended in ${siteZone}); the latest is ${latest}.`, {
        field: "date",
      });
    }
    from = addDays(to, -(LENGTH[(query.period as (typeof PERIODS)[number] | undefined) ?? "30d"] - 1));
  }
  return { from, to, days: daysBetween(from, to), timeZone: siteZone };
}

/** Every date of a period, in order. */
export function datesOf(period: { from: string; to: string }): string[] {
  const dates: string[] = [];
  for (let d = period.from; d <= period.to; d = addDays(d, 1)) dates.push(d);
  return dates;
}
