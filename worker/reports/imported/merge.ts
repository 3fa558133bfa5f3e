/**
 * Merging imported days into a report of collected ones (docs/reports.md, "Imported days"): a
 * row's figure is its collected figure plus the imported sum, each side counting only its shown
 * parts. A value shown on one side only reads that side's figure; a collected label hidden over
 * the period stays in the collected `other` row, whatever the imported side shows (the row the
 * imported side lists reads the imported sum alone). Totals stay sums of the visible rows. A
 * merged figure is `estimated` as soon as an imported part is in it.
 */
import type { Figure } from "../figures";
import type { ImportedSum } from "./cells";

/** The qualifier of an imported part: perturbed, and a sum of day cells. */
const importedFigure = (value: number): Figure => ({ value, qualifier: "estimated" });

/** A collected figure plus an imported part that is shown (`shown` false: nothing to add). */
export function plusImported(collected: Figure, imported: number, shown: boolean): Figure {
  if (!shown) return collected;
  if (collected.value === null) return importedFigure(imported);
  return importedFigure(collected.value + imported);
}

/** A table row of figures (pages, breakdown) with its label and `other` flag. */
export interface LabelledRow {
  other: boolean;
  visitors?: Figure;
  pageviews: Figure;
}

/**
 * Rows merged with the imported sums by label (`labelOf`: a collected row's label, null for none).
 * `keep` picks the imported labels the report lists (the pages report's path pattern);
 * `make` builds a row listed by the imported side only. The `other` row comes last, and is
 * there when either side hides a label over the whole period.
 */
export function mergeRows<R extends LabelledRow>(
  rows: readonly R[],
  imported: ReadonlyMap<string, ImportedSum>,
  labelOf: (row: R) => string | null,
  keep: (label: string) => boolean,
  make: (label: string, visitors: Figure, pageviews: Figure) => R,
  other: () => R,
): { rows: R[]; added: { visitors: number; pageviews: number; rows: number } } {
  const out: R[] = [];
  const listed = new Set<string>();
  const added = { visitors: 0, pageviews: 0, rows: 0 };
  let anyHidden = false;
  for (const row of rows) {
    if (row.other) {
      anyHidden = true;
      continue;
    }
    const label = labelOf(row);
    const sum = label === null ? undefined : imported.get(label);
    if (label !== null) listed.add(label);
    if (!sum || sum.shownDays === 0 || !keep(label!)) {
      out.push(row);
      continue;
    }
    added.visitors += sum.visitors;
    added.pageviews += sum.pageviews;
    added.rows += 1;
    out.push({
      ...row,
      ...(row.visitors ? { visitors: plusImported(row.visitors, sum.visitors, true) } : {}),
      pageviews: plusImported(row.pageviews, sum.pageviews, true),
    });
  }
  for (const [label, sum] of imported) {
    if (listed.has(label)) continue;
    // Hidden on every imported day and listed by no collected row: its label appears nowhere.
    if (sum.shownDays === 0) {
      if (sum.hiddenDays > 0) anyHidden = true;
      continue;
    }
    if (!keep(label)) continue;
    added.visitors += sum.visitors;
    added.pageviews += sum.pageviews;
    added.rows += 1;
    out.push(make(label, importedFigure(sum.visitors), importedFigure(sum.pageviews)));
  }
  if (anyHidden) out.push(other());
  return { rows: out, added };
}

/** A total (a sum of visible rows) with the imported rows' shown sums added. */
export function plusImportedTotal(total: Figure, added: number, anyAdded: boolean): Figure {
  if (!anyAdded) return total;
  return importedFigure((total.value ?? 0) + added);
}
