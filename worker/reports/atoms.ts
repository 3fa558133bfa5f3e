/**
 * The day atoms of a site that several reports share, read from the rollups: site-day
 * (units, pageviews) and goal-day (units, conversions), with their visibility decided once
 * by the privacy rules on the true counts, and the figures they show (perturbed by the cell
 * key method when the scope asks for it), so every report shows the same atoms the same way.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { NOISE_COLUMN, perturb } from "./noise";
import { goalDayVisible, siteDayVisible } from "./privacy";
import type { ReportScope } from "./scope";

export interface SiteDayAtom {
  units: number;
  pageviews: number;
  visible: boolean;
  /** What the atom shows: units and pageviews, perturbed (noise.ts) or exact. */
  shown: { units: number; pageviews: number };
}

export interface GoalDayAtom {
  units: number;
  conversions: number;
  visible: boolean;
  shown: { units: number; conversions: number };
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
  /** Goals whose figures are shown exactly: smoke tests, the operator's own synthetic events. */
  exactGoals: Set<string>;
}

/** A goal of the operator's own smoke tests: an event goal marked `purpose: "smoke-test"`. */
export function isSmokeGoal(goal: { kind: string; purpose: string | null }): boolean {
  return goal.kind === "event" && goal.purpose === "smoke-test";
}

/** The atom's shown value: perturbed by its cell key when the scope asks for noise. */
export function shownValue(scope: ReportScope, value: number, keySum: number, column: (typeof NOISE_COLUMN)[keyof typeof NOISE_COLUMN]): number {
  return scope.noise ? perturb(value, keySum, column) : value;
}

export async function loadDayAtoms(db: ReadOnlyDatabase, scope: ReportScope): Promise<DayAtoms> {
  const range = [scope.siteId, scope.from, scope.to];
  const [siteRows, goalRows, goalList] = await db.queryAll([
    { sql: "SELECT day, visitors, pageviews, key_sum FROM rollup_site_day WHERE site_id = ? AND day >= ? AND day <= ?", args: range },
    {
      sql: "SELECT goal_id, day, units, conversions, key_sum FROM rollup_goal_day WHERE site_id = ? AND day >= ? AND day <= ?",
      args: range,
    },
    { sql: "SELECT id, name, kind, purpose FROM goals WHERE site_id = ? ORDER BY created_at, id", args: [scope.siteId] },
  ]);
  const siteDays = new Map<string, SiteDayAtom>();
  for (const r of siteRows!.rows) {
    const units = Number(r.visitors);
    const pageviews = Number(r.pageviews);
    const keySum = Number(r.key_sum);
    siteDays.set(String(r.day), {
      units,
      pageviews,
      visible: siteDayVisible(units, scope.k),
      shown: {
        units: shownValue(scope, units, keySum, NOISE_COLUMN.units),
        pageviews: shownValue(scope, pageviews, keySum, NOISE_COLUMN.events),
      },
    });
  }
  const goals = goalList!.rows.map((r) => ({ id: String(r.id), name: String(r.name), kind: String(r.kind) }));
  const exactGoals = new Set(
    goalList!.rows.filter((r) => isSmokeGoal({ kind: String(r.kind), purpose: r.purpose === null ? null : String(r.purpose) })).map((r) => String(r.id)),
  );
  const known = new Set(goals.map((g) => g.id));
  const goalDays = new Map<string, Map<string, GoalDayAtom>>(goals.map((g) => [g.id, new Map()]));
  for (const r of goalRows!.rows) {
    const goal = String(r.goal_id);
    if (!known.has(goal)) continue; // a deleted goal's leftovers
    const day = String(r.day);
    const units = Number(r.units);
    const conversions = Number(r.conversions);
    const keySum = Number(r.key_sum);
    const exact = exactGoals.has(goal);
    goalDays.get(goal)!.set(day, {
      units,
      conversions,
      visible: goalDayVisible(units, siteDays.get(day)?.units ?? 0, scope.k),
      shown: {
        units: exact ? units : shownValue(scope, units, keySum, NOISE_COLUMN.units),
        conversions: exact ? conversions : shownValue(scope, conversions, keySum, NOISE_COLUMN.events),
      },
    });
  }
  return { siteDays, goalDays, goals, exactGoals };
}
