/**
 * Site time zones without a time-zone database in SQL: the offset from UTC is found with
 * Intl (workerd and Node both carry ICU), as constant-offset segments over a span of
 * instants, which the rollup turns into a CASE expression. Local days and hours are then
 * plain integer arithmetic in portable SQL.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Names already resolved: building an Intl.DateTimeFormat is the costliest step of a report read. */
const canonicalNames = new Map<string, string | null>();
/** Bounds the memo, since query strings can carry any name. */
const MAX_REMEMBERED_NAMES = 1_000;

/** The canonical IANA name of a time zone, or null when Intl does not know it. */
export function canonicalTimeZone(name: string): string | null {
  const known = canonicalNames.get(name);
  if (known !== undefined) return known;
  let canonical: string | null = null;
  if (/^[A-Za-z0-9_+\-/]{1,64}$/.test(name)) {
    try {
      canonical = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
    } catch {
      canonical = null;
    }
  }
  if (canonicalNames.size < MAX_REMEMBERED_NAMES) canonicalNames.set(name, canonical);
  return canonical;
}

/** Milliseconds to add to a UTC instant to get the wall-clock time in the zone. */
export function offsetAt(timeZone: string, instant: number): number {
  if (timeZone === "UTC") return 0;
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(instant))) {
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  }
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wall - (instant - (((instant % 1000) + 1000) % 1000));
}

/** A span of instants with one offset: it applies to instants before `until` (the last: to all). */
export interface OffsetSegment {
  until: number | null;
  offset: number;
}

const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** The offsets in force between two instants, found by stepping a day at a time and bisecting each change. */
export function offsetSegments(timeZone: string, from: number, to: number): OffsetSegment[] {
  const segments: OffsetSegment[] = [];
  let current = offsetAt(timeZone, from);
  let at = from;
  while (at < to) {
    const next = Math.min(at + DAY_MS, to);
    const offset = offsetAt(timeZone, next);
    if (offset !== current) {
      // The change happened in (at, next]: bisect to the millisecond.
      let lo = at;
      let hi = next;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (offsetAt(timeZone, mid) === current) lo = mid;
        else hi = mid;
      }
      segments.push({ until: hi, offset: current });
      current = offsetAt(timeZone, hi);
      at = hi;
    } else {
      at = next;
    }
  }
  segments.push({ until: null, offset: current });
  return segments;
}

/** SQL for the offset of the instant column `ts` (integers only, from our own arithmetic). */
export function offsetSql(segments: OffsetSegment[], ts: string): string {
  if (segments.length === 1) return String(segments[0]!.offset);
  const whens = segments
    .slice(0, -1)
    .map((s) => `WHEN ${ts} < ${s.until} THEN ${s.offset}`)
    .join(" ");
  return `(CASE ${whens} ELSE ${segments[segments.length - 1]!.offset} END)`;
}

/**
 * SQL: the instant (ms) the local hour of `ts` starts, given `offset`, the zone's offset at
 * `ts` (offsetSql). The one definition of an hour cell: the fold keys site-hour cells by it,
 * finality and the sessions list find a row's cell with it.
 */
export function localHourStartSql(ts: string, offset: string): string {
  return `(${ts} - ((${ts} + ${offset}) % 3600000))`;
}

/** The instant (ms) the local hour of `instant` starts: localHourStartSql's twin. */
export function localHourStart(timeZone: string, instant: number): number {
  return instant - ((((instant + offsetAt(timeZone, instant)) % HOUR_MS) + HOUR_MS) % HOUR_MS);
}

/** The local calendar date (YYYY-MM-DD) of an instant in the zone. */
export function localDate(timeZone: string, instant: number): string {
  return new Date(instant + offsetAt(timeZone, instant)).toISOString().slice(0, 10);
}

/** Adds days to a YYYY-MM-DD date. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (YYYY-MM-DD), inclusive of both. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

/** The UTC instant at which a local date starts in the zone (the first instant whose local date is it). */
export function startOfLocalDay(timeZone: string, date: string): number {
  const midnight = Date.parse(`${date}T00:00:00Z`);
  // Local midnight is UTC midnight minus the offset; DST can shift it, so settle on the offset there.
  let guess = midnight - offsetAt(timeZone, midnight);
  guess = midnight - offsetAt(timeZone, guess);
  // Where midnight does not exist (a DST jump at 00:00), the day starts at the first later instant.
  while (localDate(timeZone, guess) < date) guess += 60_000;
  while (localDate(timeZone, guess - 60_000) === date) guess -= 60_000;
  return guess;
}

/** "YYYY-MM-DDTHH:MM" wall-clock label of an instant in the zone. */
export function localMinuteLabel(timeZone: string, instant: number): string {
  return new Date(instant + offsetAt(timeZone, instant)).toISOString().slice(0, 16);
}
