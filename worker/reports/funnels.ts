/**
 * The funnels report: an ordered list of goals; step 1 is the first goal's converting units
 * of each day (its goal-day atom, as the conversions report shows it), and step i the units of
 * step i − 1 that then completed goal i — in the order of each session's first completion of
 * each goal. Per day, the privacy filter checks each step against every coarser funnel with
 * the same first goal (funnelStepsVisible); the period sums the visible days.
 */
import type { Client } from "@libsql/client/web";
import { difference, ratio, type Figure } from "./figures";
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
 * Units per subsequence mask of the steps for each day: bit i set means goal i was completed,
 * in order with the other set bits. Mask 1 (the first goal alone) counts every unit of the
 * first goal's day atom, sessionless conversions included.
 */
export function subsequenceCounts(firsts: Array<(number | null)[]>, steps: number): number[] {
  const counts = new Array<number>(1 << steps).fill(0);
  for (const f of firsts) {
    for (let mask = 1; mask < 1 << steps; mask += 2) {
      if (mask === 1) {
        counts[1]!++;
        continue;
      }
      let last = -Infinity;
      let ok = true;
      for (let i = 0; i < steps && ok; i++) {
        if (!(mask & (1 << i))) continue;
        const t = f[i];
        if (t === null || t === undefined || t < last) ok = false;
        else last = t;
      }
      if (ok) counts[mask]!++;
    }
  }
  return counts;
}

export async function funnelReport(client: Client, scope: ReportScope, goalIds: string[]): Promise<FunnelStep[]> {
  const { goalDays, goals } = await loadDayAtoms(client, scope);
  const placeholders = goalIds.map(() => "?").join(", ");
  const rs = await client.execute({
    sql:
      "SELECT u.day AS day, u.unit AS unit, g.goal_id AS goal_id, g.first_ts AS first_ts FROM rollup_goal_day_units u " +
      `LEFT JOIN rollup_session_goals g ON g.site_id = u.site_id AND g.session_id = u.unit AND g.goal_id IN (${placeholders}) ` +
      "WHERE u.site_id = ? AND u.goal_id = ? AND u.day >= ? AND u.day <= ?",
    args: [...goalIds, scope.siteId, goalIds[0]!, scope.from, scope.to],
  });
  const index = new Map(goalIds.map((id, i) => [id, i]));
  // day → unit → first completion instant per step
  const byDay = new Map<string, Map<string, (number | null)[]>>();
  for (const r of rs.rows) {
    const day = String(r.day);
    const units = byDay.get(day) ?? byDay.set(day, new Map()).get(day)!;
    const unit = String(r.unit);
    const firsts = units.get(unit) ?? units.set(unit, new Array<number | null>(goalIds.length).fill(null)).get(unit)!;
    if (r.goal_id !== null) firsts[index.get(String(r.goal_id))!] = Number(r.first_ts);
  }

  const steps = goalIds.length;
  const tallies: AtomTally[] = goalIds.map(() => EMPTY_TALLY);
  const firstGoalDays = goalDays.get(goalIds[0]!)!;
  for (const [day, units] of byDay) {
    const counts = subsequenceCounts([...units.values()], steps);
    const atom = firstGoalDays.get(day);
    const visible = funnelStepsVisible((mask) => counts[mask]!, steps, atom?.visible ?? false, scope.k);
    for (let i = 0; i < steps; i++) {
      const count = counts[(1 << (i + 1)) - 1]!;
      tallies[i] = addToTally(tallies[i]!, count, visible[i]!, count > 0);
    }
  }

  const info = new Map(goals.map((g) => [g.id, g]));
  const figures = tallies.map(distinctFigure);
  return goalIds.map((id, i) => ({
    step: i + 1,
    goal: info.get(id)!,
    sessions: figures[i]!,
    dropoff: i === 0 ? { value: 0, qualifier: "exact" } : difference(figures[i - 1]!, figures[i]!),
    rate: ratio(figures[i]!, figures[0]!),
  }));
}
