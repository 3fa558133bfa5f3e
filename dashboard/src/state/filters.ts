/**
 * The report filters, shared by every report screen and kept in the URL in the API's own
 * spelling (`?filter=country:DE&filter=source!:Google`): up to three, AND-ed, each `is` or
 * `is not`, at most one per dimension. Every report read adds them as its `filter` parameters
 * (`filterQuery`), so a bookmark, a reload or the back button shows the same filtered view.
 */
import { computed, signal } from "@preact/signals";
import {
  filterLabel,
  filterText,
  flipped,
  MAX_FILTERS,
  parseFilter,
  readFilters,
  withFilter,
  type Filter,
  type FilterDimension,
} from "./filter-text";
import { path, query, setQuery } from "./location";

export { FILTER_LABEL, filterLabel, filterText, MAX_FILTERS, type Filter, type FilterDimension } from "./filter-text";

/** The URL's filters (filter-text.ts readFilters). */
export const filters = computed<readonly Filter[]>(() => readFilters(query.value.getAll("filter")));

/** The URL's `filter` parameters that are no filter (a hand-edited link): the bar says so. */
export const invalidFilters = computed(() => query.value.getAll("filter").filter((text) => parseFilter(text) === null));

/** The `filter` parameters of a report read; none when there is no filter (the request is unchanged). */
export function filterQuery(list: readonly Filter[] = filters.value): { filter?: string[] } {
  return list.length ? { filter: list.map(filterText) } : {};
}

/** The last change refused (a fourth filter), and the view it was refused in. */
const refused = signal<{ text: string; view: string } | null>(null);
const currentView = () => `${path.value}?${query.value}`;

/** Why the last change was refused, in a short sentence, while the view it was tried in is shown. */
export const filterNotice = computed(() => (refused.value?.view === currentView() ? refused.value.text : null));

function write(next: readonly Filter[]): void {
  refused.value = null;
  // Another filter is another view: a page cursor of the previous one means nothing in it.
  setQuery({ filter: next.map(filterText), cursor: undefined });
}

/**
 * Adds `dimension is value`, replacing a filter on the same dimension; a fourth filter is
 * refused (filterNotice). Returns whether it was added.
 */
export function addFilter(dimension: FilterDimension, value: string): boolean {
  const next = withFilter(filters.value, dimension, value);
  if (!next) {
    refused.value = {
      text: `At most ${MAX_FILTERS} filters: remove one to add ${filterLabel(dimension).toLowerCase()}.`,
      view: currentView(),
    };
    return false;
  }
  write(next);
  return true;
}

/** True when `dimension is value` is one of the filters (its row is marked). */
export const isFiltered = (dimension: FilterDimension, value: string): boolean =>
  filters.value.some((f) => f.dimension === dimension && f.value === value && !f.negated);

/** A row's click: adds its filter, or removes it when the row is already the filter. */
export function toggleFilter(dimension: FilterDimension, value: string): void {
  if (isFiltered(dimension, value)) write(filters.value.filter((f) => f.dimension !== dimension));
  else addFilter(dimension, value);
}

/** Turns `is` into `is not` and back. */
export function flipFilter(index: number): void {
  write(flipped(filters.value, index));
}

export function removeFilter(index: number): void {
  write(filters.value.filter((_, i) => i !== index));
}

export function clearFilters(): void {
  write([]);
}
