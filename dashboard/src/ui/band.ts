/**
 * Bands: how today's pages and breakdowns are written (docs/dashboard.md, "Today on Pages and
 * Sources"). The API gives each shown row's figures as a band of width k, `value` to `high`,
 * read from noised counts (docs/reports.md, Today); the dashboard writes it "10–14", with a
 * tooltip that says through which closed hour and why it is a range. Plain text here, so the
 * unit tests read the words (ui/figure.tsx draws them).
 */
import type { components } from "../api/openapi";
import { formatTime } from "./time";

// From the generated types, not api/client.ts: the unit tests read this file outside the browser.
type Figure = components["schemas"]["Figure"];
type Range = components["schemas"]["ReportPeriod"];

/** A band of today's pages and breakdowns (the API's BandableFigure with its `high`). */
export type BandFigure = Figure & { value: number; high: number };

export function isBand(figure: Figure & { high?: number }): figure is BandFigure {
  return figure.qualifier !== "suppressed" && figure.value !== null && figure.high !== undefined;
}

/** "10–14": both ends with an en dash, each written by `write`; a range says by itself that it is no count (no "≈"). */
export function bandText(figure: BandFigure, write: (n: number) => string = String): string {
  return `${write(figure.value)}–${write(figure.high)}`;
}

/** The tooltip of a band where the screen does not say its period. */
export const BAND_REASON = "A range read from counts with noise added, so one visitor more or less cannot be read from it.";

/** ", through 15:00 CET (Europe/Berlin)": where today's closed hours end, in the site's zone. */
function through(range: Range): string {
  return range.end ? `, through ${formatTime(range.end, range.timezone)} (${range.timezone})` : "";
}

/** The tooltip of a band: a row's (width k), or a total's (the sum of the shown rows' bands). */
export function bandReason(k: number, range: Range, total = false): string {
  if (total)
    return `Today so far${through(range)}: the sum of the shown rows' ranges; hidden rows (fewer than ${k}) are left out.`;
  return `Today so far${through(range)}: a range of width ${k} read from counts with noise added, so one visitor more or less cannot be read from it.`;
}
