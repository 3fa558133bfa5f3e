/**
 * Instants written for people, in a named time zone: report times in the site's zone (the zone
 * its days and hours are cut in), operator records such as deployment times in the browser's.
 * The zone's short name is always written, so a time is never ambiguous. The one style of the
 * whole dashboard ("21 Nov 2026, 10:30 CET"): every screen writes its instants through here
 * (ui/when.tsx too), never with a formatter of its own.
 */

const cache = new Map<string, Intl.DateTimeFormat>();

function formatter(options: Intl.DateTimeFormatOptions, timeZone: string | undefined): Intl.DateTimeFormat {
  const key = JSON.stringify([options, timeZone]);
  let format = cache.get(key);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat("en-GB", { ...options, timeZone });
    } catch {
      // A zone this browser does not know yet: UTC, and the name says so.
      format = new Intl.DateTimeFormat("en-GB", { ...options, timeZone: "UTC" });
    }
    cache.set(key, format);
  }
  return format;
}

const DATE_TIME: Intl.DateTimeFormatOptions = {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  timeZoneName: "short",
};

/** "21 Nov 2026, 10:30 CET"; `timeZone` undefined: the browser's zone. */
export function formatInstant(iso: string, timeZone?: string, seconds = false): string {
  return formatter(seconds ? { ...DATE_TIME, second: "2-digit" } : DATE_TIME, timeZone).format(new Date(iso));
}

/** "10:30 CET": a time of day, where the day is already said. */
export function formatTime(iso: string, timeZone?: string): string {
  return formatter({ hour: "2-digit", minute: "2-digit", timeZoneName: "short" }, timeZone).format(new Date(iso));
}

/** "21 Nov 2026, 10:00 – 14:00 CET", or both ends in full when they fall on different days. */
export function formatRange(startIso: string, endIso: string, timeZone?: string): string {
  const day = formatter({ day: "numeric", month: "short", year: "numeric" }, timeZone);
  const start = new Date(startIso);
  const end = new Date(endIso);
  if (day.format(start) === day.format(end)) {
    const time = formatter({ hour: "2-digit", minute: "2-digit" }, timeZone);
    return `${day.format(start)}, ${time.format(start)} – ${formatter({ hour: "2-digit", minute: "2-digit", timeZoneName: "short" }, timeZone).format(end)}`;
  }
  return `${formatInstant(startIso, timeZone)} – ${formatInstant(endIso, timeZone)}`;
}

/** A timeseries point's label: "Mon 23 Nov 2026" for a day (a date: no zone), "23 Nov 2026, 13:00 CET" for an hour, in the site's zone. */
export function formatPoint(startIso: string, interval: "day" | "hour", timeZone: string): string {
  if (interval === "hour") return formatInstant(startIso, timeZone);
  return formatter({ weekday: "short", day: "numeric", month: "short", year: "numeric" }, timeZone).format(new Date(startIso));
}

/**
 * uPlot writes its time axis in the browser's zone. To make the chart read in the site's zone,
 * like the table under it, each instant is moved to the one at which the browser's clock shows
 * what the site's clock showed (what uPlot's own tzDate does). Unix seconds in and out.
 */
export function siteClock(seconds: number, timeZone: string): number {
  const parts = formatter(
    { year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric", hourCycle: "h23" },
    timeZone,
  ).formatToParts(new Date(seconds * 1000));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return new Date(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"), part("second")).getTime() / 1000;
}

/** A local date (YYYY-MM-DD, already the site's) as every day is written: "Mon 23 Nov 2026". */
export function formatDate(date: string): string {
  return formatter({ weekday: "short", day: "numeric", month: "short", year: "numeric" }, "UTC").format(
    new Date(`${date}T12:00:00Z`),
  );
}
