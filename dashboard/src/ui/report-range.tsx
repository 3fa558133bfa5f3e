/**
 * The period a report answered for, as its caption states it: days in the site's time zone,
 * or, for today and the last 24 hours, the closed hours it covers (in the dashboard's one date
 * style, ui/time.ts).
 */
import type { Schemas } from "../api/client";
import { formatRange } from "./time";

type Range = Schemas["ReportPeriod"];

export function rangeText(range: Range): string {
  if (range.start && range.end) return `closed hours ${formatRange(range.start, range.end, range.timezone)} (${range.timezone})`;
  return range.from === range.to ? `${range.from} (${range.timezone})` : `${range.from} to ${range.to} (${range.timezone})`;
}

/** The range inside a caption, after its title. */
export function CaptionRange({ range }: { range: Range }) {
  return <span class="report-range"> {rangeText(range)}</span>;
}
