/**
 * Filtered pages and breakdowns: one row per path, or per value of a dimension, of the filtered
 * units — "the sources of the visitors from Germany" — each row a cell through rule F
 * (shown.ts), hidden rows one `other` row without label or count, and totals cells of their own
 * (not sums of shown rows: a sum would tell the hidden rows' total; a breakdown's total cell is
 * added up from all its values' true cells, hidden ones included, before the rule). A custom
 * property (`prop:NAME`) is a breakdown too: a row per value, its units those with an event that
 * carried it and its `pageviews` those events; the totals are all the filtered units' own cell.
 */
import type { ReadOnlyDatabase } from "../../lib/read-only";
import type { BreakdownReport, BreakdownRow } from "../breakdown";
import type { Dimension } from "../dimensions";
import { ratio, SUPPRESSED } from "../figures";
import type { PagesReport, PageRow } from "../pages";
import { pathFilter } from "../pattern";
import type { ReportScope } from "../scope";
import { isPropKey, readCellGroupings, summedOver, type Cell, type CellKey, type PropKey } from "./cells";
import type { Filter } from "./filters";
import { cellFigures, daysWithData, type ExploreOptions } from "./shown";
import { filteredUnits } from "./units";

/** The pages report of the filtered units; `page` matches shown paths only, as unfiltered. */
export async function filteredPagesReport(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  filters: readonly Filter[],
  page?: string,
  options: ExploreOptions = {},
): Promise<PagesReport> {
  const units = filteredUnits(scope, filters);
  const [[cells = [], [total] = []], days] = await Promise.all([
    readCellGroupings(db, scope, units, [["page"], []]),
    daysWithData(db, scope),
  ]);
  const keep = page === undefined ? () => true : pathFilter(page);
  const rows: PageRow[] = [];
  let hidden = false;
  for (const cell of cells) {
    const shown = cellFigures(cell, scope, true, true, options);
    if (shown.units.value === null) hidden = true;
    else if (keep(String(cell.keys[0])))
      rows.push({ path: String(cell.keys[0]), other: false, visitors: shown.units, pageviews: shown.events });
  }
  if (hidden) rows.push({ path: null, other: true, visitors: SUPPRESSED, pageviews: SUPPRESSED });
  return { rows, totals: { pageviews: cellFigures(total, scope, true, days.size > 0, options).events } };
}

/** The breakdown of the filtered units by `dimension`, with a goal's conversions per value when asked. */
export async function filteredBreakdownReport(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  filters: readonly Filter[],
  dimension: Dimension | PropKey,
  goal?: string,
  options: ExploreOptions = {},
): Promise<BreakdownReport> {
  const units = filteredUnits(scope, filters);
  const prop = isPropKey(dimension);
  // Every unit has one value of a session dimension (null too): the totals are the values' cells added up.
  // A unit has none, one or several values of a property: its totals are cells of their own (all the units).
  const groupings: CellKey[][] = goal ? [[dimension], [dimension, "goal"]] : [[dimension]];
  if (prop) groupings.push([], ...(goal ? [["goal"] as CellKey[]] : []));
  const [[cells = [], ...rest], days] = await Promise.all([
    readCellGroupings(db, scope, units, groupings),
    daysWithData(db, scope),
  ]);
  const goalCells = goal ? rest.shift()! : [];
  const [total] = prop ? rest[0]! : summedOver(cells, 0);
  const goalTotals = prop ? (rest[1] ?? []) : summedOver(goalCells, 0);
  const ofGoal = new Map(goalCells.filter((c) => c.keys[1] === goal).map((c) => [c.keys[0], c]));
  const rows: BreakdownRow[] = [];
  let hidden = false;
  for (const cell of cells) {
    const shown = cellFigures(cell, scope, true, true, options);
    if (shown.units.value === null) {
      hidden = true;
      continue;
    }
    const value = cell.keys[0] === null ? null : String(cell.keys[0]);
    rows.push({
      value,
      other: false,
      visitors: shown.units,
      pageviews: shown.events,
      ...(goal ? goalFigures(ofGoal.get(cell.keys[0]), scope, shown.units, options) : {}),
    });
  }
  if (hidden)
    rows.push({
      value: null,
      other: true,
      visitors: SUPPRESSED,
      pageviews: SUPPRESSED,
      ...(goal ? { converting_sessions: SUPPRESSED, conversions: SUPPRESSED, rate: SUPPRESSED } : {}),
    });
  const totals = cellFigures(total, scope, true, days.size > 0, options);
  const goalTotal = goal
    ? cellFigures(
        goalTotals.find((c) => c.keys[0] === goal),
        scope,
        true,
        days.size > 0,
        options,
      )
    : undefined;
  return {
    rows,
    totals: {
      visitors: totals.units,
      pageviews: totals.events,
      ...(goalTotal ? { converting_sessions: goalTotal.units, conversions: goalTotal.events } : {}),
    },
  };
}

/** A shown row's goal figures: its converting units are a cell of their own (none converting reads as hidden). */
function goalFigures(cell: Cell | undefined, scope: ReportScope, visitors: BreakdownRow["visitors"], options: ExploreOptions) {
  const shown = cellFigures(cell, scope, true, true, options);
  return { converting_sessions: shown.units, conversions: shown.events, rate: ratio(shown.units, visitors) };
}
