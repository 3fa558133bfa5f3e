/**
 * How each report's two sides are put together under `compare` (compare.ts): which figures are
 * compared and by which key rows match. Kept beside the reports, so the routes only name them.
 */
import type { BreakdownReport, BreakdownRow } from "./breakdown";
import { compareFigures, comparePoints, compareRows, type CompareMode } from "./compare";
import type { ConversionsReport } from "./conversions";
import type { Figure } from "./figures";
import type { FunnelStep } from "./funnels";
import { OTHER_KEY } from "./hidden-rows";
import type { PagesReport } from "./pages";
import type { TimeseriesReport } from "./timeseries";
import type { VitalsRow } from "./vitals";

export function comparePages(current: PagesReport, previous: PagesReport, absent: Figure): PagesReport {
  return {
    rows: compareRows(current.rows, previous.rows, (r) => r.path ?? OTHER_KEY, ["visitors", "pageviews"], absent),
    totals: compareFigures(current.totals, previous.totals, ["pageviews"], absent),
  };
}

const BREAKDOWN_FIGURES = ["visitors", "pageviews", "converting_sessions", "conversions", "rate"] as const;
/** The `other` row, the row of visitors without a value (null) and each value: three kinds of keys that never meet. */
const breakdownKey = (r: BreakdownRow) => (r.other ? OTHER_KEY : r.value === null ? "\u0000none" : `=${r.value}`);

export function compareBreakdown(current: BreakdownReport, previous: BreakdownReport, absent: Figure): BreakdownReport {
  return {
    rows: compareRows(current.rows, previous.rows, breakdownKey, BREAKDOWN_FIGURES, absent),
    totals: compareFigures(
      current.totals,
      previous.totals,
      ["visitors", "pageviews", "converting_sessions", "conversions"],
      absent,
    ),
  };
}

export function compareConversions(current: ConversionsReport, previous: ConversionsReport, absent: Figure): ConversionsReport {
  return {
    rows: compareRows(
      current.rows,
      previous.rows,
      (r) => r.goal.id,
      ["conversions", "converting_sessions", "sessions", "rate"],
      absent,
    ),
    totals: compareFigures(current.totals, previous.totals, ["conversions", "sessions"], absent),
  };
}

export function compareFunnel(current: FunnelStep[], previous: FunnelStep[], absent: Figure): FunnelStep[] {
  return compareRows(current, previous, (s) => `${s.step}\u0000${s.goal.id}`, ["sessions", "dropoff", "rate"], absent);
}

export const VITALS_FIGURES = ["p75", "p75_low", "p75_high", "good", "needs_improvement", "poor", "samples"] as const;
export const vitalsKey = (r: { path: string | null; metric: string }) => `${r.path ?? OTHER_KEY}\u0000${r.metric}`;

export function compareVitals(current: VitalsRow[], previous: VitalsRow[], absent: Figure): VitalsRow[] {
  return compareRows(current, previous, vitalsKey, VITALS_FIGURES, absent);
}

/** Timeseries points by date (compare.ts comparePoints), `days` the current period's length. */
export const compareTimeseries =
  (mode: CompareMode, days: number) =>
  (current: TimeseriesReport, previous: TimeseriesReport): TimeseriesReport => ({
    points: comparePoints(current.points, previous.points, mode, days, ["visitors", "pageviews", "conversions"]),
    totals: compareFigures(current.totals, previous.totals, ["visitors", "pageviews", "conversions"], {
      value: 0,
      qualifier: "exact",
    }),
  });
