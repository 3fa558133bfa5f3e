/**
 * The period of a report: whole days in the site's time zone, ending no later than the last
 * day the publisher has published (a day publishes shortly after it ends there). Today is
 * never reported: a figure that is still growing could be differenced against itself a
 * minute later, singling out the sessions that came in between.
 */
import { HttpProblem } from "../lib/problem";
import { addDays, canonicalTimeZone, daysBetween, localDate } from "./timezone";

export const PERIODS = ["day", "7d", "30d"] as const;
export type PeriodName = (typeof PERIODS)[number];

const LENGTH: Record<PeriodName, number> = { day: 1, "7d": 7, "30d": 30 };

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
}

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
    from = addDays(to, -(LENGTH[query.period ?? "30d"] - 1));
  }
  return { from, to, days: daysBetween(from, to), timeZone: siteZone };
}

/** Every date of a period, in order. */
export function datesOf(period: { from: string; to: string }): string[] {
  const dates: string[] = [];
  for (let d = period.from; d <= period.to; d = addDays(d, 1)) dates.push(d);
  return dates;
}
