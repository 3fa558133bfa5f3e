/**
 * Rule F: how a cell of a filtered or crossed report is shown (docs/reports.md "Filters"). A
 * filtered report is a cut of a many-way table whose margins other reports publish, so per-row
 * and per-column suppression cannot protect it (a margin minus the shown cells singles out the
 * hidden ones). Rule F follows the cell key method of the Australian Bureau of Statistics'
 * TableBuilder (Fraser & Wooton 2005; Thompson, Broadfoot & Elazar 2013), which is built for
 * exactly this: users cut their own tables from microdata, and every cell, margins included, is
 * perturbed by a function of its own unit set, so that a difference of cells is a difference of
 * noisy figures and no linear combination of published cells pins a hidden one (unlike
 * suppression, which τ-ARGUS must protect with a table-wide search over every linked table).
 *
 * - A cell is a set of units (session-days) from the per-session rollups: those matching the
 *   filters, in one row, over the period. Its units are counted once, however many days.
 * - Fewer than k units: hidden. A perturbed count below k: hidden too, so the threshold is
 *   noisy (privacy/today.ts: a threshold on true counts alone is a sharp edge a reader's sybils
 *   can walk a small group up to).
 * - Shown: the counts through the cell-key noise (noise.ts shownCounts), with tails: where the
 *   table draws its extreme ±5, a further keyed draw adds 0, 1, 2, … with halving odds
 *   (`tailSteps`), so the noise has no bound. Why: a reader forms as many filtered cells of the
 *   same few people as it likes (each with other sessions of its own beside them: another unit
 *   set, another draw), and with a bounded noise enough draws include the extremes, which pin a
 *   count exactly (the filter-attack bench: 13 % of groups at 256 cells, 51 % at 1,024). Without a
 *   bound no reading, nor any number of them, pins a count; the most likely guess still improves
 *   with readings (docs/reports.md, Filters). Only 8 draws in 4,096 reach the tails, so the
 *   figures are as close as before; the same unit set still reads the same in every filtered report.
 * - Nothing else is hidden to protect it: totals are cells of their own, not sums of rows.
 *
 * The rule is a value so the property test can take parts of it out (`exactFiltered`,
 * `filteredOnTrueCounts`) and see its attacker find the leaks.
 */
import { MAX_PERTURBATION, perturbationAt, shownCounts } from "../noise";
import { noisePosition, type NoiseKey } from "../noise-position";

/** How far past ±5 a cell's perturbation goes: each further step taken with odds 1/2, each by its own keyed draw. */
export function tailSteps(keySum: number, value: number, key: NoiseKey): number {
  let steps = 0;
  // A fresh position per step: the cell's key sum moved by a large prime (key sums stay far below 2^53).
  while (steps < 64 && noisePosition(keySum + (steps + 1) * 1_000_003, value, key) % 2 === 1) steps++;
  return steps;
}

/** A filtered cell's shown value: noise.ts perturb with tails past the table's ±5. */
export function perturbWithTails(value: number, keySum: number, key: NoiseKey): number {
  if (value <= 0) return value;
  const d = perturbationAt(noisePosition(keySum, value, key));
  const tail = Math.abs(d) === MAX_PERTURBATION ? Math.sign(d) * tailSteps(keySum, value, key) : 0;
  return Math.max(1, value + d + tail);
}

/** A cell of a filtered report: distinct units, their events (pageviews, conversions), and the units' key sum. */
export interface FilteredCell {
  units: number;
  events: number;
  keySum: number;
}

export interface FilteredRule {
  /**
   * The shown counts of a cell, or null when it is hidden. `eventsCoverUnits`: every unit has at
   * least one of the events (pageviews of a page it viewed), so they never read below the units.
   */
  shown(cell: FilteredCell, key: NoiseKey, k: number, eventsCoverUnits: boolean): { units: number; events: number } | null;
  /** Whether figures are perturbed (`estimated`) or exact. */
  readonly perturbs: boolean;
}

/** The rule the API serves: hidden below k, true or perturbed; else the perturbed counts. */
export const filteredRule: FilteredRule = {
  perturbs: true,
  shown(cell, key, k, eventsCoverUnits) {
    if (cell.units < k || perturbWithTails(cell.units, cell.keySum, key) < k) return null;
    return shownCounts(cell, key, k, eventsCoverUnits, perturbWithTails);
  },
};

/** Rule F with the noisy threshold taken out (shown from k true units): for the attack test. */
export const filteredOnTrueCounts: FilteredRule = {
  perturbs: true,
  shown(cell, key, k, eventsCoverUnits) {
    if (cell.units < k) return null;
    return shownCounts(cell, key, k, eventsCoverUnits, perturbWithTails);
  },
};

/** Rule F with the noise taken out (k-threshold on true counts, exact figures): the attacker must find the leak. */
export const exactFiltered: FilteredRule = {
  perturbs: false,
  shown(cell, _key, k) {
    if (cell.units < k) return null;
    return { units: cell.units, events: cell.events };
  },
};
