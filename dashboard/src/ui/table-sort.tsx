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

/** The sort the URL asks for, falling back to `fallback` for anything the report does not take. */
export function urlSort<C extends string>(columns: readonly C[], fallback: C, defaultOrder: DefaultOrder<C>): SortState<C> {
  const asked = query.value.get("sort");
  const sort = columns.find((c) => c === asked) ?? fallback;
  const order = query.value.get("order");
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
}: {
  column: C;
  label: string;
  state: SortState<C>;
  defaultOrder: DefaultOrder<C>;
  numeric?: boolean;
}) {
  const active = state.sort === column;
  const next: Order = active ? (state.order === "asc" ? "desc" : "asc") : defaultOrder(column);
  return (
    <th scope="col" class={numeric ? "num" : undefined} aria-sort={active ? (state.order === "asc" ? "ascending" : "descending") : undefined}>
      <button type="button" class="sort" onClick={() => setUrlSort(column, next)}>
        {label}
        <span class="sort-mark" aria-hidden="true">
          {active ? (state.order === "asc" ? "▲" : "▼") : "↕"}
        </span>
      </button>
    </th>
  );
}
