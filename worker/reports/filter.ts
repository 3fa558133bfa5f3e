/**
 * `filter=dimension:value` on the timeseries (per day) and the conversions report: the same
 * figures for the visitors with that value, read from the breakdown's decided cells (breakdown.ts
 * dimensionDays) in place of the site-day and goal-day atoms. So a filtered report shows nothing
 * the breakdown does not: its points are the value's cells, and its conversions the goal cells
 * of that value, day by day (docs/reports.md, "Filters").
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { goalDayShown, shownCell, type DayAtoms, type GoalDayAtom, type SiteDayAtom } from "./atoms";
import { dimensionDays } from "./breakdown";
import type { Dimension } from "./dimensions";
import type { ReportScope } from "./scope";

export interface Filter {
  dimension: Dimension;
  value: string;
}

/** The day atoms of the visitors with the filter's value, every goal's included. */
export async function filteredAtoms(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  filter: Filter,
  atoms: DayAtoms,
): Promise<DayAtoms> {
  const [{ days }, own] = await Promise.all([
    dimensionDays(
      db,
      scope,
      filter.dimension,
      atoms.goals.map((g) => g.id),
      atoms,
    ),
    // The value's own cells: on a day it had fewer than k visitors, dimensionDays has it only in a sum.
    db.query({
      sql: "SELECT day, visitors FROM rollup_dimension_day WHERE site_id = ? AND dimension = ? AND value = ? AND day >= ? AND day <= ? AND visitors > 0",
      args: [scope.siteId, filter.dimension, filter.value, scope.from, scope.to],
    }),
  ]);
  const ownUnits = new Map(own.rows.map((r) => [String(r.day), Number(r.visitors)]));
  const siteDays = new Map<string, SiteDayAtom>();
  const goalDays = new Map<string, Map<string, GoalDayAtom>>(atoms.goals.map((g) => [g.id, new Map()]));
  for (const [day, decided] of days) {
    if (!decided.values.has(filter.value)) {
      // Fewer than k visitors, or none: the day reads suppressed either way, goals too, so a
      // filter cannot tell a hidden value from one nobody had (docs/reports.md, "Hidden rows
      // and labels"). The site-day has data (dimensionDays lists no empty day).
      const units = ownUnits.get(day) ?? 1;
      siteDays.set(day, { units, pageviews: 0, keySum: 0, visible: false, guarded: false, shown: { units: 0, pageviews: 0 } });
      for (const goal of goalDays.values())
        goal.set(day, { units: 1, conversions: 0, keySum: 0, visible: false, guarded: false, shown: { units: 0, conversions: 0 } });
      continue;
    }
    const cell = decided.values.get(filter.value);
    if (cell) {
      siteDays.set(day, {
        units: cell.units,
        pageviews: cell.value,
        keySum: cell.keySum,
        visible: cell.visible,
        guarded: false,
        shown: filteredDayShown(scope, cell),
      });
    }
    for (const [goal, cells] of decided.goals) {
      const c = cells.get(filter.value);
      if (!c || (c.units === 0 && !cell)) continue;
      goalDays.get(goal)!.set(day, {
        // A hidden 0 is data for the tallies: it reads as suppressed, as in the breakdown, not as an exact 0.
        units: c.visible || !cell ? c.units : Math.max(c.units, 1),
        conversions: c.value,
        keySum: c.keySum,
        visible: c.visible,
        guarded: false,
        shown: goalDayShown(scope, c.units, c.value, c.keySum),
      });
    }
  }
  return { siteDays, goalDays, goals: atoms.goals };
}

/** A filtered day's shown figures: a value's session-days each have a pageview (dimension-fold.ts). */
function filteredDayShown(scope: ReportScope, cell: { units: number; value: number; keySum: number }): SiteDayAtom["shown"] {
  const shown = shownCell(scope, { units: cell.units, events: cell.value, keySum: cell.keySum }, true);
  return { units: shown.units, pageviews: shown.events };
}
