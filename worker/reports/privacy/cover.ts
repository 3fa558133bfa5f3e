/**
 * Complementary suppression of partitions (rule "partitions" in index.ts): where cells split a
 * published total, the total minus the visible cells is the hidden remainder, so the hidden
 * cells must together hold k units or the smallest visible cell (the cover) is hidden too.
 * The breakdowns and the earlier hour rule pick their cover here; the pages' SQL
 * (page-atoms.ts) applies the same rule.
 */

/** A cell of a partition: `value` is its share of the parent's additive total. */
export interface PartitionCell {
  key: string;
  units: number;
  value: number;
  visible: boolean;
}

/**
 * Complementary suppression for a partition of a published total: unless the hidden cells
 * (with data) are none or include one of at least k units, hide the smallest visible cell
 * (by units, then value, then key), which has at least k units. Mutates `cells`.
 */
export function coverHiddenRemainder(cells: PartitionCell[], k: number): void {
  const hidden = cells.filter((c) => !c.visible && c.units > 0);
  if (hidden.length === 0 || hidden.some((c) => c.units >= k)) return;
  const smallest = smallestVisible(cells);
  if (smallest) smallest.visible = false;
}

/** The visible cell with the fewest units (then the smallest value, then the first key): a partition's cover. */
export function smallestVisible<C extends PartitionCell>(cells: readonly C[]): C | undefined {
  let smallest: C | undefined;
  for (const c of cells) {
    if (!c.visible) continue;
    if (
      !smallest ||
      c.units < smallest.units ||
      (c.units === smallest.units && (c.value < smallest.value || (c.value === smallest.value && c.key < smallest.key)))
    ) {
      smallest = c;
    }
  }
  return smallest;
}
