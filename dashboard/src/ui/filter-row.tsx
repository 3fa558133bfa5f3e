/**
 * A table row whose value is a dimension's adds it as a filter: the value is a button (Enter
 * and Space on it, for the keyboard), and a click anywhere else in the row does the same. The
 * row already filtered on is marked, and choosing it again removes the filter.
 */
import type { ComponentChildren } from "preact";
import { isFiltered, toggleFilter, type FilterDimension } from "../state/filters";
import { FILTER_HINT_ID } from "./filter-bar";

/** The value's button: pressed while it is the filter. */
export function FilterButton({
  dimension,
  value,
  children,
}: {
  dimension: FilterDimension;
  value: string;
  children: ComponentChildren;
}) {
  const selected = isFiltered(dimension, value);
  return (
    <button
      type="button"
      class="row-pick"
      aria-pressed={selected}
      aria-describedby={FILTER_HINT_ID}
      onClick={() => toggleFilter(dimension, value)}
    >
      {selected && <span aria-hidden="true">✓ </span>}
      {children}
    </button>
  );
}

/** The row's click handler: the same as its button's, unless another control of the row was used. */
export function rowFilter(dimension: FilterDimension, value: string | null | undefined) {
  if (value === null || value === undefined) return undefined;
  return (event: MouseEvent) => {
    if ((event.target as Element | null)?.closest("button, a, input, select, summary")) return;
    toggleFilter(dimension, value);
  };
}
