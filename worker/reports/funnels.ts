/**
 * The funnels report: an ordered list of goals; step 1 is the first goal's converting units
 * of each day (its goal-day atom, as the conversions report shows it), and step i the units of
 * step i − 1 that then completed goal i — in the order of each session's first completion of
 * each goal. Per day, the privacy filter checks each step against every coarser funnel with
 * the same first goal (funnelStepsVisible); the period sums the visible days.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { difference, perturbedFigure, ratio, type Figure } from "./figures";
import { unitKeySql } from "./noise";
import { loadDayAtoms, shownValue } from "./atoms";
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
 * SQL: per day, the units of every subsequence of the steps (column m<mask>, bit i = step i,
 * every mask from 1 to 2^steps − 1) and the sum of their keys (k<mask>, noise.ts). A unit is in
 * mask m when it completed every goal of m on that day, in step order, by each session's first
 * completion of each goal — so m counts what the funnel of m's goals would show as its last
 * step, and a single bit counts that goal's day atom (sessionless conversions included). The
 * masks without step 0 are there for the privacy check: a key can ask for those funnels too.
 * Parameters: ?1 site, ?2 from, ?3 to, ?4… the goal ids in step order.
 */
export function funnelCountsSql(steps: number): string {
  const goal = (i: number) => `?${i + 4}`;
  const step = Array.from({ length: steps }, (_, i) => i);
  const goals = step.map(goal).join(", ");
  // Whether the unit is in goal i's day atom (one grouped pass over the step goals' units), and
  // its first completion of goal i where it is: completions of that local day only, so a late row
  // (folded into a later day: publication is final) cannot reach back into a published day.
  const member = step.map((i) => `max(goal_id = ${goal(i)}) AS in${i}`);
  const first = step.map((i) => `min(CASE WHEN m.in${i} AND g.goal_id = ${goal(i)} THEN g.first_ts END) AS f${i}`);
  const masks: string[] = [];
  for (let mask = 1; mask < 1 << steps; mask++) {
    const bits = step.filter((i) => mask & (1 << i));
    const conditions =
      bits.length === 1 ? [`in${bits[0]}`] : [...bits.map((i) => `f${i} IS NOT NULL`), ...bits.slice(1).map((i, j) => `f${i} >= f${bits[j]}`)];
    masks.push(
      `sum(CASE WHEN ${conditions.join(" AND ")} THEN 1 ELSE 0 END) AS m${mask}`,
      `sum(CASE WHEN ${conditions.join(" AND ")} THEN unit_key ELSE 0 END) AS k${mask}`,
    );
  }
  return (
    `WITH members AS (SELECT day, unit, ${member.join(", ")} FROM rollup_goal_day_units ` +
    `WHERE site_id = ?1 AND goal_id IN (${goals}) AND day >= ?2 AND day <= ?3 GROUP BY day, unit), ` +
    `timed AS (SELECT m.day AS day, ${unitKeySql("m.unit")} AS unit_key, ${step.map((i) => `m.in${i} AS in${i}`).join(", ")}, ${first.join(", ")} ` +
    `FROM members m LEFT JOIN rollup_session_goals g ON g.site_id = ?1 AND g.session_id = m.unit AND g.goal_id IN (${goals}) ` +
    "GROUP BY m.day, m.unit) " +
    `SELECT day, ${masks.join(", ")} FROM timed GROUP BY day`
  );
}

export async function funnelReport(db: ReadOnlyDatabase, scope: ReportScope, goalIds: string[]): Promise<FunnelStep[]> {
  const { goalDays, goals } = await loadDayAtoms(db, scope);
  const rs = await db.query({
    sql: funnelCountsSql(goalIds.length),
    args: [scope.siteId, scope.from, scope.to, ...goalIds],
  });
  const byDay = new Map<string, { counts: number[]; keySums: number[] }>();
  for (const r of rs.rows) {
    const counts = new Array<number>(1 << goalIds.length).fill(0);
    const keySums = new Array<number>(1 << goalIds.length).fill(0);
    for (let mask = 1; mask < 1 << goalIds.length; mask++) {
      counts[mask] = Number(r[`m${mask}`] ?? 0);
      keySums[mask] = Number(r[`k${mask}`] ?? 0);
    }
    byDay.set(String(r.day), { counts, keySums });
  }
  // Perturbed like every count of units (noise.ts), unless every step is a smoke-test goal.
  const noise = scope.noise === true;

  const steps = goalIds.length;
  const tallies: AtomTally[] = goalIds.map(() => EMPTY_TALLY);
  const firstGoalDays = goalDays.get(goalIds[0]!)!;
  for (const [day, { counts, keySums }] of byDay) {
    const atom = firstGoalDays.get(day);
    const visible = funnelStepsVisible((mask) => counts[mask]!, steps, atom?.visible ?? false, scope.k);
    for (let i = 0; i < steps; i++) {
      const mask = (1 << (i + 1)) - 1;
      const count = counts[mask]!;
      const shown = noise ? shownValue(scope, count, keySums[mask]!) : count;
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
