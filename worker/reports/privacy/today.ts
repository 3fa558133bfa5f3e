/**
 * Today's rule for pages and breakdowns (docs/reports.md "Today"): how a cell of today's closed
 * hours so far (a path, or a dimension's value) is shown. The reading is taken again after each
 * hour closes, from raw rows (reports/today.ts), and a reader differences consecutive readings,
 * so it must be safe as a series:
 *
 * - Fewer than k units: hidden (the `other` row), as on a whole day.
 * - k or more: the cell's counts through the cell-key noise (noise.ts: the same unit set always
 *   reads the same, one unit more redraws it). A perturbed count below k is hidden too: the
 *   threshold is noisy as well. Decided on the true count alone, it would be a sharp edge that
 *   the same people cross again and again as a reader adds its own sessions one an hour (k − 1 − j
 *   of them hidden, k − j shown: j others, exactly); whole days are read once, today up to 23
 *   times. Now a hidden row says "fewer than k + 5", and only a −5 draw makes that sharp.
 * - Shown: the perturbed counts (pageviews never below the units), each as the band of width k it
 *   falls in (bands.ts). The hour's newcomers to a cell move its reading by a whole band or not at
 *   all, and by a fresh draw: two readings tell a range of width ≥ k + 10 for them, never their
 *   count.
 *
 * Nothing else is needed beside the whole day's rules: a hidden cell's complement (the site's
 * today total, shown by the hour, minus the shown bands) is uncertain by a band and ±5 per
 * shown cell, and so is the day's cover when it was shown today. The rule is a value so the
 * property test can run its attacker with the band and the noise taken out (`exactToday`), or
 * the noisy threshold (`bandedOnTrueCounts`).
 */
import { band, exact, type Figure } from "../figures";
import { perturb, shownCounts } from "../noise";
import type { NoiseKey } from "../noise-position";
import { bandOf } from "./bands";

/** A cell of today so far: distinct units, their pageviews (each unit has one), and the units' key sum. */
export interface TodayCell {
  units: number;
  events: number;
  keySum: number;
}

export interface TodayRule {
  /** The figures of a cell, or null when it is hidden. */
  figures(cell: TodayCell, key: NoiseKey, k: number): { visitors: Figure; pageviews: Figure } | null;
}

const banded = (count: number, k: number): Figure => {
  const { low, high } = bandOf(count, k);
  return band(low, high);
};

/** The rule the API serves: hidden below k, true or perturbed; else the perturbed counts as their bands. */
export const bandedToday: TodayRule = {
  figures(cell, key, k) {
    if (cell.units < k || perturb(cell.units, cell.keySum, key) < k) return null;
    const shown = shownCounts(cell, key, k, true);
    return { visitors: banded(shown.units, k), pageviews: banded(shown.events, k) };
  },
};

/** The rule with the noisy threshold removed (shown from k true units, perturbed counts floored at k): for the attack test. */
export const bandedOnTrueCounts: TodayRule = {
  figures(cell, key, k) {
    if (cell.units < k) return null;
    const shown = shownCounts(cell, key, k, true);
    return { visitors: banded(shown.units, k), pageviews: banded(shown.events, k) };
  },
};

/** The rule with band and noise removed (k-threshold only): for the attack test, which must find the leak. */
export const exactToday: TodayRule = {
  figures(cell, _key, k) {
    if (cell.units < k) return null;
    return { visitors: exact(cell.units), pageviews: exact(cell.events) };
  },
};
