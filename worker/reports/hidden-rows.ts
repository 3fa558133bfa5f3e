/**
 * Hidden rows and labels (docs/reports.md, "Hidden rows and labels"): a row whose figures are
 * all suppressed over the period would still publish its label — a campaign named after a
 * person, a path carrying a token — so the reports that list labels (breakdown, pages, vitals)
 * fold every such row into one `other` row ("other values, fewer than k each") that names none
 * and carries no count. Its presence says only that some label of the period is hidden, which
 * is the same whatever page filter is asked: a filter never picks hidden rows, so it cannot
 * probe whether a hidden label exists.
 */
import { SUPPRESSED, type Figure } from "./figures";

/**
 * The row key of an `other` row, for sorting and cursors (list.ts): it sorts after every label
 * (labels hold no U+FFFF: the collector keeps only text characters) and its sort value is null,
 * so it comes last, once, in every order.
 */
export const OTHER_KEY = "\uffff\uffffother";

function isFigure(value: unknown): value is Figure {
  return typeof value === "object" && value !== null && "qualifier" in value && "value" in value;
}

/** True when the row has figures and every one of them is suppressed: nothing of it is shown. */
export function allSuppressed(row: object): boolean {
  const figures = Object.values(row).filter(isFigure);
  return figures.length > 0 && figures.every((f) => f.qualifier === "suppressed");
}

/** `row` with every figure suppressed: the shape of an `other` row. */
export function suppressedLike<R extends object>(row: R): R {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, isFigure(v) ? SUPPRESSED : v])) as R;
}

/**
 * Splits rows into those shown (some figure not suppressed, or `keep`) and the hidden ones,
 * whose labels must not be published.
 */
export function splitHidden<R extends object>(rows: R[], keep: (row: R) => boolean = () => false): { shown: R[]; hidden: R[] } {
  const shown: R[] = [];
  const hidden: R[] = [];
  for (const row of rows) (keep(row) || !allSuppressed(row) ? shown : hidden).push(row);
  return { shown, hidden };
}
