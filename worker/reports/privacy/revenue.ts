/**
 * The revenue rule: how a sum of money over a cell of converting units is shown (docs/reports.md
 * "Revenue"). A sum of a small group's amounts is as identifying as its count, and more: one
 * buyer's amount can be read off a total whose other parts a reader knows (its own sybil
 * purchases). So a revenue figure is
 *
 * 1. shown only where the converting units' cell is shown (rule F, filtered.ts: at least k
 *    units, true and perturbed);
 * 2. hidden when one unit's revenue is more than 60 % of the sum — the dominance (n, k) rule with
 *    n = 1, k = 60 % of τ-ARGUS's manual (Hundepool et al., *τ-ARGUS user's manual*, "dominance
 *    rule"): the other contributors together would read the largest one's amount to within 40 %;
 * 3. perturbed, following the ABS TableBuilder's perturbation of magnitudes (Thompson, Broadfoot &
 *    Elazar 2013, "perturbation of continuous variables"): each unit's amount is moved by its own
 *    persistent keyed fraction, and the cell by a keyed draw scaled by its largest amount:
 *      shown = sum + Σ amountᵤ · mᵤ + draw · largest · 0.2, in whole currency units,
 *    where mᵤ in −0.5…0.5 is a function of the unit's cell key (noise.ts) and the secret (the same
 *    in every cell it is in), and the draw is the count table's keyed draw (with its tails past
 *    ±5, filtered.ts) scaled to −1…1.
 *
 * Why the per-unit fraction, which the lead's design did not have: with the cell draw alone the
 * noise is at most 20 % of the largest amount and mostly within 4 %, and the largest amount may
 * be a sybil's. An attacker that buys at a victim's scale reads the victim's amount to within
 * 10 % from one reading (the property test: every victim, `cellOnlyRevenue`), and a fresh unit
 * set gives a fresh draw to average. A unit's own fraction is the same in every cell, so no
 * number of readings averages it away: what can be learnt is amount × (1 + mᵤ), never the amount.
 *
 * The rule is a value so the property test can take it out (`exactRevenue`, `cellOnlyRevenue`)
 * and see its attacker find the amounts.
 */
import { MAX_PERTURBATION, perturbationAt } from "../noise";
import { noisePosition, noisePositionSql, type NoiseKey } from "../noise-position";
import { filteredRule, tailSteps } from "./filtered";

/** A cell of converting units with their revenue in cents (explore/cells.ts, reports/revenue.ts). */
export interface RevenueCell {
  units: number;
  conversions: number;
  keySum: number;
  /** The units' revenue, in cents. */
  cents: number;
  /** The largest unit's revenue moved by its own fraction, centsᵤ · (1 + mᵤ), in cents (what rules 2 and 3 read). */
  largest: number;
  /** Σ centsᵤ · mᵤ: the units' own fractions of their revenue, in cents (unitShareSql). */
  shares: number;
  /** The largest true amount (read by the cellOnlyRevenue variant only). */
  trueLargest?: number;
}

/** Rule 2: the largest unit's share of the sum above which the figure is hidden. */
export const DOMINANCE_SHARE = 0.6;
/** Rule 3: the cell draw's scale, a fraction of the largest unit's revenue. */
export const DRAW_SCALE = 0.2;
/** Rule 3: each unit's own fraction lies in −UNIT_SHARE…UNIT_SHARE. */
export const UNIT_SHARE = 0.5;

/** Shifts the key sums of revenue draws off the counts' (a fresh place, not the count's noise again). */
const REVENUE_SHIFT = 7_000_003;
const UNIT_SHIFT = 9_000_011;
const POSITIONS = 4096;

/** SQL: a unit's own fraction mᵤ in −UNIT_SHARE…UNIT_SHARE, over the SQL expression of its cell key. */
export function unitShareSql(unitKey: string): string {
  return `((${noisePositionSql(`(${unitKey}) + ${UNIT_SHIFT}`, "0")} - 2047.5) * ${(2 * UNIT_SHARE) / POSITIONS})`;
}

/** TypeScript twin of unitShareSql, for tests. */
export function unitShare(unitKey: number, key: NoiseKey): number {
  return (noisePosition(unitKey + UNIT_SHIFT, 0, key) - 2047.5) * ((2 * UNIT_SHARE) / POSITIONS);
}

/** The cell's keyed draw in −1…1, with the count table's tails past it (filtered.ts). */
export function revenueDraw(cell: RevenueCell, key: NoiseKey): number {
  const keySum = cell.keySum + REVENUE_SHIFT;
  const d = perturbationAt(noisePosition(keySum, cell.cents, key));
  const tail = Math.abs(d) === MAX_PERTURBATION ? Math.sign(d) * tailSteps(keySum, cell.cents, key) : 0;
  return (d + tail) / MAX_PERTURBATION;
}

export interface RevenueRule {
  /** The total shown, in currency units, or null when hidden. */
  shown(cell: RevenueCell, key: NoiseKey, k: number): number | null;
  /** Whether figures are perturbed (`estimated`) or exact. */
  readonly perturbs: boolean;
}

function unitsShown(cell: RevenueCell, key: NoiseKey, k: number): boolean {
  return filteredRule.shown({ units: cell.units, events: cell.conversions, keySum: cell.keySum }, key, k, true) !== null;
}

/**
 * Rule 2 on the amounts as moved by their units' fractions: decided on the true amounts, a hidden
 * or shown total is an oracle on the victim's exact amount (cells of the victim and sybils of
 * known amounts, hidden exactly when it exceeds 1.5 × theirs: a binary search). On the moved
 * amounts it tells no more than the total does: amount × (1 + mᵤ).
 */
function dominated(cell: RevenueCell): boolean {
  return cell.largest > DOMINANCE_SHARE * (cell.cents + cell.shares);
}

/** The rule the API serves: rules 1–3. */
export const revenueRule: RevenueRule = {
  perturbs: true,
  shown(cell, key, k) {
    if (!unitsShown(cell, key, k) || dominated(cell)) return null;
    const cents = cell.cents + cell.shares + revenueDraw(cell, key) * cell.largest * DRAW_SCALE;
    return Math.max(0, Math.round(cents / 100));
  },
};

/**
 * The lead's design alone (rules 1, 2 and the cell draw, on the true amounts: no per-unit
 * fraction), for the attack test. `trueLargest` is the cell's largest true amount.
 */
export const cellOnlyRevenue: RevenueRule = {
  perturbs: true,
  shown(cell, key, k) {
    const largest = cell.trueLargest ?? cell.largest;
    if (!unitsShown(cell, key, k) || largest > DOMINANCE_SHARE * cell.cents) return null;
    return Math.max(0, Math.round((cell.cents + revenueDraw(cell, key) * largest * DRAW_SCALE) / 100));
  },
};

/** The rule taken out: the exact sum wherever k units converted. The attacker must find the amounts. */
export const exactRevenue: RevenueRule = {
  perturbs: false,
  shown(cell, _key, k) {
    return cell.units < k ? null : cell.cents / 100;
  },
};
