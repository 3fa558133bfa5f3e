/**
 * Nested cells (rule "nested cells" in index.ts): a count shown inside another shown count —
 * a goal's converting sessions inside the day's, a funnel step inside the coarser funnels
 * and goals it refines — may differ from it only by 0 or at least k units, since that
 * difference is itself a group a key can read.
 */
import { enoughUnits } from "./threshold";

/** A child may be shown beside its parent only when their difference is 0 or at least k. */
export function complementSafe(parentUnits: number, childUnits: number, k: number): boolean {
  const rest = parentUnits - childUnits;
  return rest <= 0 || rest >= k;
}

/** Two counts of nested groups (either way round): their difference is 0 or at least k. */
export function differenceSafe(a: number, b: number, k: number): boolean {
  const rest = Math.abs(a - b);
  return rest === 0 || rest >= k;
}

/** A goal-day atom: its converting units sit inside the day's units (the rate's denominator). */
export function goalDayVisible(units: number, dayUnits: number, k: number): boolean {
  return enoughUnits(units, k) && complementSafe(dayUnits, units, k);
}

/**
 * Funnel steps of one day. `units[mask]` is the number of units that completed the goals in
 * `mask` (bit i = step i) in order on that day. Step i is shown when step i − 1 is, it has k
 * units, and for every coarser grouping a key could also read — any proper subsequence of
 * steps 0..i, as a funnel of its own or (a single step) as that goal's converting sessions in
 * the conversions report — the difference is 0 or at least k: each of those holds every unit
 * of step i. (Checkout converting 8, pricing → checkout 6: 2 checked out without pricing.)
 * `step0Visible` is the first goal's day atom as the conversions report shows it.
 */
export function funnelStepsVisible(units: (mask: number) => number, steps: number, step0Visible: boolean, k: number): boolean[] {
  const visible: boolean[] = [step0Visible];
  for (let i = 1; i < steps; i++) {
    const full = (1 << (i + 1)) - 1;
    const count = units(full);
    let ok = visible[i - 1]! && enoughUnits(count, k);
    for (let mask = 1; ok && mask < full; mask++) {
      if (!complementSafe(units(mask), count, k)) ok = false;
    }
    visible.push(ok);
  }
  return visible;
}
