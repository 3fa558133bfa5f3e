/**
 * The filtered timeseries and conversions: per day (or local hour) the filtered units' cell, the
 * goals' cells among them, and over the period its own cells — through rule F like every
 * filtered figure (shown.ts). A point's conversions are the sum of its shown goal cells (a lower
 * bound, `estimated`, when one is hidden), as in the unfiltered timeseries.
 */
import type { ReadOnlyDatabase } from "../../lib/read-only";
import { loadReportGoals } from "../atoms";
import type { ConversionRow, ConversionsReport } from "../conversions";
import { ratio, SUPPRESSED, type Figure } from "../figures";
import { datesOf } from "../period";
import { additiveFigure, addToTally, EMPTY_TALLY, type AtomTally } from "../privacy";
import type { ReportScope } from "../scope";
import type { TimeseriesPoint, TimeseriesReport } from "../timeseries";
import { HOUR_MS, localMinuteLabel, startOfLocalDay, addDays } from "../timezone";
import { readCellGroupings, summedOver, type Cell, type CellKey } from "./cells";
import type { Filter } from "./filters";
import { cellFigures, daysWithData, type ExploreOptions } from "./shown";
import { filteredUnits } from "./units";

/** The sum of shown goal cells; suppressed where none is shown but the site had visitors. */
function conversionsOf(cells: Cell[], scope: ReportScope, siteHasData: boolean, options: ExploreOptions): Figure {
  if (cells.length === 0) return siteHasData ? SUPPRESSED : { value: 0, qualifier: "exact" };
  let tally: AtomTally = EMPTY_TALLY;
  for (const cell of cells) {
    const shown = cellFigures(cell, scope, true, true, options).events;
    tally = addToTally(tally, shown.value ?? 0, shown.value !== null);
  }
  const sum = additiveFigure(tally);
  return sum.qualifier === "exact" && (options.rule?.perturbs ?? true) ? { ...sum, qualifier: "estimated" } : sum;
}

const byKey = <T>(cells: Cell[], index: number) => {
  const map = new Map<string | number | null, T[]>();
  for (const c of cells) map.set(c.keys[index]!, [...(map.get(c.keys[index]!) ?? []), c as T]);
  return map;
};

/** The timeseries of the filtered units, per day or per local hour; `goal` counts that goal's conversions only. */
export async function filteredTimeseriesReport(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  filters: readonly Filter[],
  interval: "day" | "hour",
  goal?: string,
  options: ExploreOptions = {},
): Promise<TimeseriesReport> {
  const units = filteredUnits(scope, filters);
  const slot = interval === "day" ? "day" : "hour";
  // A unit (a session-day) is in one day: the period's cells are the days' added up. Not so for hours.
  const groupings: CellKey[][] = interval === "day" ? [[slot], [slot, "goal"]] : [[slot], [slot, "goal"], [], ["goal"]];
  const [read, days] = await Promise.all([readCellGroupings(db, scope, units, groupings), daysWithData(db, scope)]);
  const [cells = [], goalCells = []] = read;
  const [[total] = [], goalTotals = []] = interval === "day" ? [summedOver(cells, 0), summedOver(goalCells, 0)] : read.slice(2);
  const ofGoal = (c: Cell, at: number) => goal === undefined || c.keys[at] === goal;
  const bySlot = new Map(cells.map((c) => [c.keys[0], c]));
  const goalsBySlot = byKey<Cell>(
    goalCells.filter((c) => ofGoal(c, 1)),
    0,
  );
  const point = (key: string | number, start: number, local: string, hasData: boolean): TimeseriesPoint => {
    // An hour's unit may have only an engagement ping in it: its pageviews are not floored at its units.
    const shown = cellFigures(bySlot.get(key), scope, interval === "day", hasData, options);
    return {
      start: new Date(start).toISOString(),
      local,
      visitors: shown.units,
      pageviews: shown.events,
      conversions: conversionsOf(goalsBySlot.get(key) ?? [], scope, hasData, options),
    };
  };
  const points =
    interval === "day"
      ? datesOf(scope).map((day) => point(day, startOfLocalDay(scope.timeZone, day), day, days.has(day)))
      : hoursOf(scope).map(({ start, day }) => point(start, start, localMinuteLabel(scope.timeZone, start), days.has(day)));
  const totals = cellFigures(total, scope, true, days.size > 0, options);
  return {
    points,
    totals: {
      visitors: totals.units,
      pageviews: totals.events,
      conversions: conversionsOf(
        goalTotals.filter((c) => ofGoal(c, 0)),
        scope,
        days.size > 0,
        options,
      ),
    },
  };
}

/** The local hours of the scope's days, each with its day. */
function hoursOf(scope: ReportScope): { start: number; day: string }[] {
  const hours: { start: number; day: string }[] = [];
  for (const day of datesOf(scope)) {
    const end = startOfLocalDay(scope.timeZone, addDays(day, 1));
    for (let start = startOfLocalDay(scope.timeZone, day); start < end; start += HOUR_MS) hours.push({ start, day });
  }
  return hours;
}

/** The conversions report of the filtered units: per goal its converting units among them, and the rate. */
export async function filteredConversionsReport(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  filters: readonly Filter[],
  options: ExploreOptions = {},
): Promise<ConversionsReport> {
  const units = filteredUnits(scope, filters);
  const [goals, [goalCells = [], [total] = []], days] = await Promise.all([
    loadReportGoals(db, scope.siteId),
    readCellGroupings(db, scope, units, [["goal"], []]),
    daysWithData(db, scope),
  ]);
  const hasData = days.size > 0;
  const sessions = cellFigures(total, scope, true, hasData, options).units;
  const byGoal = new Map(goalCells.map((c) => [c.keys[0], c]));
  const rows = goals.map((g): ConversionRow => {
    const shown = cellFigures(byGoal.get(g.id), scope, true, hasData, options);
    return { goal: g, conversions: shown.events, converting_sessions: shown.units, sessions, rate: ratio(shown.units, sessions) };
  });
  return {
    rows,
    totals: {
      conversions: conversionsOf(
        goalCells.filter((c) => goals.some((g) => g.id === c.keys[0])),
        scope,
        hasData,
        options,
      ),
      sessions,
    },
  };
}
