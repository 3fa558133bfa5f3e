/**
 * The freshness line every report screen starts with: the period it covers, from–to in the
 * site's zone, and when its next figures arrive — the running hour's for hourly periods (its
 * end plus the publisher's grace), the next local midnight for whole days. A screen with
 * nothing yet says when there will be something. From the report's own `period` and
 * `next_figures` (docs/reports.md, Freshness): the dashboard computes no time of its own.
 */
import type { Schemas } from "../api/client";
import { ImportedNote, type ImportedDays } from "./imported";
import { formatDate, formatInstant, formatRange, formatTime } from "./time";

type Range = Schemas["ReportPeriod"];
type NextFigures = Schemas["NextFigures"];

/** What a report screen covers and when its next figures arrive, in one or two sentences. */
export function freshnessText(range: Range, next: NextFigures, empty: boolean): string {
  const zone = range.timezone;
  if (range.start && range.end) {
    const at = `${formatTime(next.hour, zone)} (${zone})`;
    if (empty || range.start === range.end) return `No hour of this period has closed yet: the first figures arrive at ${at}.`;
    return `Covers ${formatRange(range.start, range.end, zone)} (${zone}). Next figures at ${at}.`;
  }
  const at = `${formatInstant(next.day, zone)} (${zone}), when today ends`;
  if (empty) return `Nothing in this period yet. The next figures arrive at ${at}.`;
  const days = range.from === range.to ? formatDate(range.from) : `${formatDate(range.from)} – ${formatDate(range.to)}`;
  return `Covers ${days} (${zone}). Next figures at ${at}.`;
}

/** The line, and below it what the report says of imported days (ui/imported.tsx); `leftOut`: the screen leaves them out (its filter). */
export function Freshness({
  range,
  next,
  empty = false,
  imported,
  leftOut,
}: {
  range: Range;
  next: NextFigures;
  empty?: boolean;
  imported?: ImportedDays | undefined;
  leftOut?: ImportedDays["reason"];
}) {
  return (
    <>
      <p class="freshness" role="note" data-testid="freshness">
        {freshnessText(range, next, empty)}
      </p>
      <ImportedNote imported={imported} leftOut={leftOut} />
    </>
  );
}
