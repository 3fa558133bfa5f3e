/**
 * The filtered funnel: step 1 the filtered units (session-days) that completed the first goal
 * that day, step i those of step i − 1 that then completed goal i, by each session's first
 * completion of each goal — the unfiltered funnel's definition (funnels.ts), over the filtered
 * units. Each step over the period is one cell through rule F (shown.ts); the drop-off is a
 * difference of two shown cells, the rate their quotient.
 */
import type { ReadOnlyDatabase } from "../../lib/read-only";
import { difference, ratio } from "../figures";
import type { FunnelStep } from "../funnels";
import type { ReportScope } from "../scope";
import type { Filter } from "./filters";
import { loadReportGoals } from "../atoms";
import { cellFigures, daysWithData, type ExploreOptions } from "./shown";
import { filteredUnits } from "./units";

export async function filteredFunnelReport(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  filters: readonly Filter[],
  goalIds: string[],
  options: ExploreOptions = {},
): Promise<FunnelStep[]> {
  const units = filteredUnits(scope, filters);
  const marks = goalIds.map(() => "?").join(", ");
  // Each filtered unit's completions of the steps' goals that day, with its first completion of each (rollup_session_goals).
  const sql =
    `WITH u AS MATERIALIZED (${units.sql}) ` +
    "SELECT u.day || ' ' || u.unit AS unit, u.unit_key AS unit_key, g.goal_id AS goal_id, sg.first_ts AS first_ts " +
    // The units drive, each one index range of its goals (explore/cells.ts says why the join is forced).
    `FROM u CROSS JOIN rollup_goal_day_units g INDEXED BY rollup_goal_day_units_by_unit ON g.site_id = ? AND g.day = u.day AND g.unit = u.unit AND g.goal_id IN (${marks}) ` +
    "LEFT JOIN rollup_session_goals sg ON sg.site_id = g.site_id AND sg.session_id = g.unit AND sg.goal_id = g.goal_id";
  const [rs, goals, days] = await Promise.all([
    db.query({ sql, args: [...units.args, scope.siteId, ...goalIds] }),
    loadReportGoals(db, scope.siteId),
    daysWithData(db, scope),
  ]);
  const byUnit = new Map<string, { key: number; firsts: Map<string, number | null> }>();
  for (const r of rs.rows) {
    const unit = String(r.unit);
    const entry = byUnit.get(unit) ?? { key: Number(r.unit_key), firsts: new Map() };
    entry.firsts.set(String(r.goal_id), r.first_ts === null ? null : Number(r.first_ts));
    byUnit.set(unit, entry);
  }
  const cells = goalIds.map(() => ({ keys: [], units: 0, events: 0, keySum: 0 }));
  for (const { key, firsts } of byUnit.values()) {
    for (let i = 0; i < goalIds.length; i++) {
      if (!reached(goalIds.slice(0, i + 1), firsts)) break;
      cells[i]!.units++;
      cells[i]!.events++;
      cells[i]!.keySum += key;
    }
  }
  const info = new Map(goals.map((g) => [g.id, g]));
  const sessions = cells.map((c) => cellFigures(c.units > 0 ? c : undefined, scope, true, days.size > 0, options).units);
  return goalIds.map((id, i) => ({
    step: i + 1,
    goal: info.get(id)!,
    sessions: sessions[i]!,
    dropoff: i === 0 ? { value: 0, qualifier: "exact" } : difference(sessions[i - 1]!, sessions[i]!),
    rate: ratio(sessions[i]!, sessions[0]!),
  }));
}

/** Whether a unit completed these goals in order (step 1: completed the first at all). */
function reached(goals: string[], firsts: Map<string, number | null>): boolean {
  if (goals.length === 1) return firsts.has(goals[0]!);
  let last = -Infinity;
  for (const goal of goals) {
    const first = firsts.get(goal);
    if (first === undefined || first === null || first < last) return false;
    last = first;
  }
  return true;
}
