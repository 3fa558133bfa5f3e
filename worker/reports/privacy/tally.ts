/**
 * Suppress, then aggregate (rule "suppress, then aggregate" in index.ts): a figure over several
 * atoms is the sum of the visible ones only, so any difference of periods is a sum of visible
 * atoms; the tally of visible and hidden atoms says whether it is exact, estimated or suppressed.
 */
import { SUPPRESSED, type Figure } from "../figures";

/** What a figure over several atoms is built from: the sum over visible atoms and the atom counts. */
export interface AtomTally {
  /** Sum of the figure over visible atoms. */
  sum: number;
  /** Visible atoms (with data) in the period. */
  visible: number;
  /** Hidden atoms with data in the period. */
  hidden: number;
}

export const EMPTY_TALLY: AtomTally = Object.freeze({ sum: 0, visible: 0, hidden: 0 });

export function addToTally(tally: AtomTally, value: number, visible: boolean, hasData = true): AtomTally {
  if (!hasData) return tally;
  return visible
    ? { sum: tally.sum + value, visible: tally.visible + 1, hidden: tally.hidden }
    : { ...tally, hidden: tally.hidden + 1 };
}

/**
 * Adds the shown part of a hidden atom (a day hidden beside its hours: the sum of its shown
 * hours, guarded-days.ts): it counts towards the sum and makes the figure a lower bound.
 */
export function addPartial(tally: AtomTally, value: number): AtomTally {
  return { sum: tally.sum + value, visible: tally.visible + 1, hidden: tally.hidden + 1 };
}

/**
 * An additive figure (pageviews, conversions, samples): the sum of visible atoms; suppressed
 * when every atom with data is hidden; estimated when some are (a lower bound); exact else.
 * No data at all is an exact 0.
 */
export function additiveFigure(t: AtomTally): Figure {
  if (t.visible === 0) return t.hidden > 0 ? SUPPRESSED : { value: 0, qualifier: "exact" };
  return { value: t.sum, qualifier: t.hidden > 0 ? "estimated" : "exact" };
}

/**
 * A distinct-unit figure (visitors, sessions): like additiveFigure, and estimated as soon as it
 * adds more than one day, because sessions are counted per salt period (a day) and a visitor
 * of two days is two sessions.
 */
export function distinctFigure(t: AtomTally): Figure {
  const f = additiveFigure(t);
  if (f.qualifier === "exact" && t.visible > 1) return { value: f.value, qualifier: "estimated" };
  return f;
}
