/**
 * The period a report answered for, as its caption states it: days in the site's time zone,
 * or, for today and the last 24 hours, the closed hours it covers.
 */
import type { Schemas } from "../api/client";

type Range = Schemas["ReportPeriod"];

function hour(instant: string, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", month: "short", day: "numeric" }).format(new Date(instant));
  } catch {
    return instant; // a zone this browser does not know: the instant as the API wrote it
  }
}

export function rangeText(range: Range): string {
  if (range.start && range.end) return `closed hours ${hour(range.start, range.timezone)} to ${hour(range.end, range.timezone)} (${range.timezone})`;
  return range.from === range.to ? `${range.from} (${range.timezone})` : `${range.from} to ${range.to} (${range.timezone})`;
}

/** The range inside a caption, after its title. */
export function CaptionRange({ range }: { range: Range }) {
  return <span class="report-range"> {rangeText(range)}</span>;
}
