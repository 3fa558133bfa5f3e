/**
 * Sortable column headers for the report tables. The sort lives in the URL (?sort=…&order=…)
 * so a sorted view can be bookmarked; the header is a button inside the <th>, and the <th>
 * carries aria-sort, so the state is announced and not only drawn as an arrow.
 */
import { query, setQuery } from "../state/location";

export type Order = "asc" | "desc";

export interface SortState<C extends string> {
  sort: C;
  order: Order;
}

/** Figures sort largest first, names alphabetically: the API's own defaults. */
export type DefaultOrder<C extends string> = (column: C) => Order;

/**
 * The sort the URL asks for, falling back to `fallback` for anything the report does not take.
 * A screen with several tables names each one's parameters (`names`); one table uses sort and order.
 */
export function urlSort<C extends string>(
  columns: readonly C[],
  fallback: C,
  defaultOrder: DefaultOrder<C>,
  names: { sort: string; order: string } = { sort: "sort", order: "order" },
): SortState<C> {
  const asked = query.value.get(names.sort);
  const sort = columns.find((c) => c === asked) ?? fallback;
  const order = query.value.get(names.order);
  return { sort, order: order === "asc" || order === "desc" ? order : defaultOrder(sort) };
}

/** A new sort starts again at the first page: a cursor belongs to the order it was made in. */
export function setUrlSort(sort: string, order: Order): void {
  setQuery({ sort, order, cursor: undefined });
}

export function SortHeader<C extends string>({
  column,
  label,
  state,
  defaultOrder,
  numeric = false,
  onSort = setUrlSort,
}: {
  column: C;
  label: string;
  state: SortState<C>;
  defaultOrder: DefaultOrder<C>;
  numeric?: boolean;
  /** Where the new sort goes: the URL's sort and order unless the table keeps its own. */
  onSort?: (sort: C, order: Order) => void;
}) {
  const active = state.sort === column;
  const next: Order = active ? (state.order === "asc" ? "desc" : "asc") : defaultOrder(column);
  return (
    <th scope="col" class={numeric ? "num" : undefined} aria-sort={active ? (state.order === "asc" ? "ascending" : "descending") : undefined}>
      <button type="button" class="sort" onClick={() => onSort(column, next)}>
        {label}
        <span class="sort-mark" aria-hidden="true">
          {active ? (state.order === "asc" ? "▲" : "▼") : "↕"}
        </span>
      </button>
    </th>
  );
}
