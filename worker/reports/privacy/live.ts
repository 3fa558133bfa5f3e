/**
 * The live counter's rule (docs/reports.md "Live"): how many units are on the site now, in a
 * form a poller cannot difference into one person's arrival. The figure is the only one read
 * from raw rows (reports/live.ts), so it gets no help from publication and must be safe alone:
 *
 * - Fixed for a minute: the window ends at the last whole minute before now − grace (rows in
 *   flight are in), so a reader polling every second sees at most one change a minute.
 * - Fewer than k units: suppressed, read "fewer than k" (band 0 … k − 1, which 0 reads too, so
 *   nobody-here and a-few-here look alike).
 * - k or more: the unit set's cell-key noise (noise.ts: the same set always reads the same, one
 *   unit more redraws it), never below k, then the band of width k the noisy value falls in
 *   (10–14), published as its bounds. One session arriving or leaving moves the true count by
 *   one, but the figure only by a whole band, and then by a fresh draw, not by the session.
 *
 * The rule is a value (LiveRule) so the property test can run its attacker against the rule
 * with the band and the noise taken out (`exactLive`) and see that it then finds the leak.
 */
import type { Figure } from "../figures";
import { MAX_PERTURBATION } from "../noise";
import { bandOf } from "./bands";

/** A live figure: a Figure with the band it stands for (suppressed: 0 … k − 1, "fewer than k"). */
export interface LiveFigure extends Figure {
  low: number;
  high: number;
}

/** Readings change once a minute at most. */
export const LIVE_STEP_MS = 60_000;

/**
 * The end of the window read at `nowMs`: the last whole minute at or before now − grace. A row
 * stamped before it was received at least `graceMs` ago, so it is committed (publisher.ts).
 */
export function liveWindowEnd(nowMs: number, graceMs: number): number {
  return Math.floor((nowMs - graceMs) / LIVE_STEP_MS) * LIVE_STEP_MS;
}

/** When the reading after the one ending at `endMs` is first served. */
export function liveNextUpdate(endMs: number, graceMs: number): number {
  return endMs + LIVE_STEP_MS + graceMs;
}

export interface LiveRule {
  /** The perturbations the rule may add; the attacker knows these (the table is public), not which one a set draws. */
  readonly perturbations: readonly number[];
  /** The figure for a window of `units` true units whose set draws `perturbation`. */
  figure(units: number, perturbation: number, k: number): LiveFigure;
}

const ALL_PERTURBATIONS = Array.from({ length: 2 * MAX_PERTURBATION + 1 }, (_, i) => i - MAX_PERTURBATION);

/** Below k: "fewer than k". The same object for 0 and for k − 1. */
export function fewerThanK(k: number): LiveFigure {
  return { value: null, qualifier: "suppressed", low: 0, high: k - 1 };
}

/** The rule the API serves: suppressed below k; else the noisy count, at least k, as its band of width k. */
export const bandedLive: LiveRule = {
  perturbations: ALL_PERTURBATIONS,
  figure(units, perturbation, k) {
    if (units < k) return fewerThanK(k);
    const { low, high } = bandOf(Math.max(k, units + perturbation), k);
    return { value: low, qualifier: "estimated", low, high };
  },
};

/** The rule with band and noise removed (k-threshold only): for the attack test, which must find the leak. */
export const exactLive: LiveRule = {
  perturbations: [0],
  figure(units, _perturbation, k) {
    if (units < k) return fewerThanK(k);
    return { value: units, qualifier: "exact", low: units, high: units };
  },
};
