/**
 * A day's partition of a whole (the site-day, or a goal-day) into dimension cells, and which of
 * them a breakdown shows (docs/reports.md, rule 9): k units, complements, and complementary
 * suppression so that the hidden cells together hold a group of k — also when the whole is
 * hidden beside its hours only (guarded), so that the cells never add up to it.
 */
import { enoughUnits, smallestVisible, type NestedCell, type PartitionCell } from "./privacy";

/** A day's cell: a value's units and additive count, and what it shows. */
export interface DayCell extends PartitionCell, NestedCell {
  value: number;
  keySum: number;
}

/** The key of the cell with no value (PartitionCell keys are strings). */
export const NONE = "\u0000none";

/**
 * The cells of fewer than k visitors are hidden whatever else holds, so they come summed per day
 * (value null: the SMALL key), and per value only as the number of days they were small
 * (SMALL_VALUES_SQL): a long tail of values (entry pages) is read as a few rows a day.
 */
export const SMALL = "\u0000small";

export type Rows = { day: unknown; value: unknown; units: unknown; count: unknown; key_sum: unknown }[];

/**
 * A day's partition of `total` into its cells and the rest, with visibility decided: none when
 * the total is hidden; else k units, `extra` for each cell, then complementary suppression.
 */
export function partition(
  total: PartitionTotal,
  rows: Rows,
  k: number,
  extra: (value: string, units: number) => boolean,
): DayCell[] {
  const cells: DayCell[] = rows.map((r) => ({
    key: r.value === null ? SMALL : String(r.value),
    units: Number(r.units),
    value: Number(r.count),
    keySum: Number(r.key_sum),
    visible: false,
  }));
  const rest = cells.reduce(
    (acc, c) => ({ units: acc.units - c.units, count: acc.count - c.value, keySum: acc.keySum - c.keySum }),
    { units: total.units, count: total.count, keySum: total.keySum },
  );
  if (rest.units > 0) cells.push({ key: NONE, units: rest.units, value: rest.count, keySum: rest.keySum, visible: false });
  if (!total.visible && !total.guarded) return cells;
  const sensitive = new Set<DayCell>();
  for (const c of cells) {
    // The small cells' sum is no cell of k: it never counts as the hidden group of k.
    if (c.key === SMALL) {
      sensitive.add(c);
      c.sensitive = true;
    }
    c.visible = c.key !== SMALL && enoughUnits(c.units, k);
    if (c.visible && c.key !== NONE && !extra(c.key, c.units)) {
      c.visible = false;
      sensitive.add(c);
      c.sensitive = true;
    }
  }
  coverPartition(cells, sensitive, k, total.guarded);
  return cells;
}

/** The whole a day's partition splits: the site-day (or goal-day) atom. */
export interface PartitionTotal {
  units: number;
  count: number;
  keySum: number;
  visible: boolean;
  /** Hidden beside its hours only (atoms.ts SiteDayAtom.guarded): its cells show, never adding up to it. */
  guarded?: boolean;
}

/**
 * Complementary suppression over a day's partition (privacy/cover.ts coverHiddenRemainder), where a
 * cell hidden for its complement elsewhere (`sensitive`) must not be pinned down by the total
 * minus the shown cells either: unless the hidden cells that are not sensitive hold k units
 * together, the smallest shown cell is hidden too. The cells are disjoint, so their units add
 * up: the remainder is then a group of k, and no sensitive cell is alone in it.
 */
export function coverPartition(cells: DayCell[], sensitive: Set<DayCell>, k: number, guarded = false): void {
  const hidden = cells.filter((c) => !c.visible && c.units > 0);
  // A guarded total must not follow from its cells: it needs a hidden remainder of k even when nothing is hidden.
  if ((hidden.length === 0 && !guarded) || hiddenUnits(hidden, sensitive) >= k) return;
  const smallest = smallestVisible(cells);
  if (smallest) smallest.visible = false;
}

/** The units of the hidden cells not hidden for a complement elsewhere (the small cells' sum is). */
function hiddenUnits(hidden: DayCell[], sensitive: Set<DayCell>): number {
  return hidden.reduce((n, c) => n + (sensitive.has(c) && c.key !== SMALL ? 0 : c.units), 0);
}
