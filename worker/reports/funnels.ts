/**
 * The funnels report: an ordered list of goals; step 1 is the first goal's converting units
 * of each day (its goal-day atom, as the conversions report shows it), and step i the units of
 * step i − 1 that then completed goal i — in the order of each session's first completion of
 * each goal. Per day, the privacy filter checks each step against every coarser funnel with
 * the same first goal (funnelStepsVisible); the period sums the visible days.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { difference, perturbedFigure, ratio, type Figure } from "./figures";
import { NOISE_COLUMN, perturb, unitKeySql } from "./noise";
import { loadDayAtoms } from "./atoms";
import { addToTally, distinctFigure, EMPTY_TALLY, funnelStepsVisible, type AtomTally } from "./privacy";
import type { ReportScope } from "./scope";

export const MAX_FUNNEL_STEPS = 6;

export interface FunnelStep {
  step: number;
  goal: { id: string; name: string; kind: string };
  sessions: Figure;
  /** Units of the previous step that did not reach this one (0 on step 1). */
  dropoff: Figure;
  /** sessions / step 1 sessions. */
  rate: Figure;
}

/**
 * SQL: per day, the units of every subsequence mask of the steps (columns m1, m3, m5, …: odd
 * masks, bit 0 always set), from each unit's first completion of each goal: a unit is in mask
 * m when it completed every goal of m, in step order, on that day. Mask 1 (the first goal alone) counts
 * every unit of the first goal's day atom, sessionless conversions included.
 * Parameters: ?1 site, ?2 from, ?3 to, ?4… the goal ids in step order.
 */
export function funnelCountsSql(steps: number): string {
  const firsts = Array.from(
    { length: steps },
    (_, i) => `min(CASE WHEN g.goal_id = ?${i + 4} THEN g.first_ts END) AS f${i}`,
  ).join(", ");
  const masks: string[] = [];
  for (let mask = 1; mask < 1 << steps; mask += 2) {
    if (mask === 1) {
      masks.push("count(*) AS m1", "sum(unit_key) AS k1");
      continue;
    }
    const bits = Array.from({ length: steps }, (_, i) => i).filter((i) => mask & (1 << i));
    const conditions = bits.map((i) => `f${i} IS NOT NULL`);
    for (let j = 1; j < bits.length; j++) conditions.push(`f${bits[j]} >= f${bits[j - 1]}`);
    masks.push(
      `sum(CASE WHEN ${conditions.join(" AND ")} THEN 1 ELSE 0 END) AS m${mask}`,
      `sum(CASE WHEN ${conditions.join(" AND ")} THEN unit_key ELSE 0 END) AS k${mask}`,
    );
  }
  const goals = Array.from({ length: steps }, (_, i) => `?${i + 4}`).join(", ");
  return (
    `WITH firsts AS (SELECT u.day AS day, u.unit AS unit, ${unitKeySql("u.unit")} AS unit_key, ${firsts} FROM rollup_goal_day_units u ` +
    `LEFT JOIN rollup_session_goals g ON g.site_id = u.site_id AND g.session_id = u.unit AND g.goal_id IN (${goals}) ` +
    // Completions of the same local day only: a late row folds into a later day (publication
    // is final), so it must not reach back into a published day's funnel through first_ts.
    "AND EXISTS (SELECT 1 FROM rollup_goal_day_units v WHERE v.site_id = u.site_id AND v.goal_id = g.goal_id AND v.day = u.day AND v.unit = u.unit) " +
    "WHERE u.site_id = ?1 AND u.goal_id = ?4 AND u.day >= ?2 AND u.day <= ?3 GROUP BY u.day, u.unit) " +
    `SELECT day, ${masks.join(", ")} FROM firsts GROUP BY day`
  );
}

export async function funnelReport(db: ReadOnlyDatabase, scope: ReportScope, goalIds: string[]): Promise<FunnelStep[]> {
  const { goalDays, goals, exactGoals } = await loadDayAtoms(db, scope);
  const rs = await db.query({
    sql: funnelCountsSql(goalIds.length),
    args: [scope.siteId, scope.from, scope.to, ...goalIds],
  });
  const byDay = new Map<string, { counts: number[]; keySums: number[] }>();
  for (const r of rs.rows) {
    const counts = new Array<number>(1 << goalIds.length).fill(0);
    const keySums = new Array<number>(1 << goalIds.length).fill(0);
    for (let mask = 1; mask < 1 << goalIds.length; mask += 2) {
      counts[mask] = Number(r[`m${mask}`] ?? 0);
      keySums[mask] = Number(r[`k${mask}`] ?? 0);
    }
    byDay.set(String(r.day), { counts, keySums });
  }
  // Perturbed like every count of units (noise.ts), unless every step is a smoke-test goal.
  const noise = scope.noise === true && goalIds.some((id) => !exactGoals.has(id));

  const steps = goalIds.length;
  const tallies: AtomTally[] = goalIds.map(() => EMPTY_TALLY);
  const firstGoalDays = goalDays.get(goalIds[0]!)!;
  for (const [day, { counts, keySums }] of byDay) {
    const atom = firstGoalDays.get(day);
    const visible = funnelStepsVisible((mask) => counts[mask]!, steps, atom?.visible ?? false, scope.k);
    for (let i = 0; i < steps; i++) {
      const mask = (1 << (i + 1)) - 1;
      const count = counts[mask]!;
      const shown = noise ? perturb(count, keySums[mask]!, NOISE_COLUMN.units) : count;
      tallies[i] = addToTally(tallies[i]!, shown, visible[i]!, count > 0);
    }
  }

  const info = new Map(goals.map((g) => [g.id, g]));
  const figures = tallies.map((t) => perturbedFigure(distinctFigure(t), noise));
  return goalIds.map((id, i) => ({
    step: i + 1,
    goal: info.get(id)!,
    sessions: figures[i]!,
    dropoff: i === 0 ? { value: 0, qualifier: "exact" } : difference(figures[i - 1]!, figures[i]!),
    rate: ratio(figures[i]!, figures[0]!),
  }));
}
