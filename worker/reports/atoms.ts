/**
 * The day atoms of a site that several reports share, read from the rollups: site-day
 * (units, pageviews) and goal-day (units, conversions), with their visibility decided once
 * by the privacy rules, so every report shows the same atoms the same way.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { goalDayVisible, siteDayVisible } from "./privacy";
import type { ReportScope } from "./scope";

export interface SiteDayAtom {
  units: number;
  pageviews: number;
  visible: boolean;
}

export interface GoalDayAtom {
  units: number;
  conversions: number;
  visible: boolean;
}

export interface GoalInfo {
  id: string;
  name: string;
  kind: string;
}

export interface DayAtoms {
  siteDays: Map<string, SiteDayAtom>;
  /** goal id → day → atom */
  goalDays: Map<string, Map<string, GoalDayAtom>>;
  goals: GoalInfo[];
}

export async function loadDayAtoms(db: ReadOnlyDatabase, scope: ReportScope): Promise<DayAtoms> {
  const range = [scope.siteId, scope.from, scope.to];
  const [siteRows, goalRows, goalList] = await db.queryAll(
    [
      { sql: "SELECT day, visitors, pageviews FROM rollup_site_day WHERE site_id = ? AND day >= ? AND day <= ?", args: range },
      {
        sql: "SELECT goal_id, day, units, conversions FROM rollup_goal_day WHERE site_id = ? AND day >= ? AND day <= ?",
        args: range,
      },
      { sql: "SELECT id, name, kind FROM goals WHERE site_id = ? ORDER BY created_at, id", args: [scope.siteId] },
    ],
  );
  const siteDays = new Map<string, SiteDayAtom>();
  for (const r of siteRows!.rows) {
    const units = Number(r.visitors);
    siteDays.set(String(r.day), { units, pageviews: Number(r.pageviews), visible: siteDayVisible(units, scope.k) });
  }
  const goals = goalList!.rows.map((r) => ({ id: String(r.id), name: String(r.name), kind: String(r.kind) }));
  const known = new Set(goals.map((g) => g.id));
  const goalDays = new Map<string, Map<string, GoalDayAtom>>(goals.map((g) => [g.id, new Map()]));
  for (const r of goalRows!.rows) {
    const goal = String(r.goal_id);
    if (!known.has(goal)) continue; // a deleted goal's leftovers
    const day = String(r.day);
    const units = Number(r.units);
    goalDays
      .get(goal)!
      .set(day, {
        units,
        conversions: Number(r.conversions),
        visible: goalDayVisible(units, siteDays.get(day)?.units ?? 0, scope.k),
      });
  }
  return { siteDays, goalDays, goals };
}
