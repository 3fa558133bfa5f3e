/**
 * The report filters, shared by every report screen and kept in the URL in the API's own
 * spelling (`?filter=country:DE&filter=source!:Google`): up to three, AND-ed, each `is` or
 * `is not`, at most one per dimension. Every report read adds them as its `filter` parameters
 * (`filterQuery`), so a bookmark, a reload or the back button shows the same filtered view.
 */
import { computed, signal } from "@preact/signals";
import type { paths } from "../api/openapi";
import type { Schemas } from "../api/client";
import { query, setQuery } from "./location";

/** The dimensions a filter can be on: a breakdown's, a page viewed, a goal completed. */
export type FilterDimension = Schemas["BreakdownReport"]["dimension"] | "page" | "goal";

/** The API's limit (worker/reports/explore/filters.ts MAX_FILTERS). */
export const MAX_FILTERS = 3;

/** Each dimension as the dashboard names it. */
export const FILTER_LABEL: Readonly<Record<FilterDimension, string>> = {
  source: "Source",
  utm_source: "UTM source",
  utm_medium: "UTM medium",
  utm_campaign: "UTM campaign",
  utm_content: "UTM content",
  utm_term: "UTM term",
  entry_page: "Entry page",
  exit_page: "Exit page",
  browser: "Browser",
  os: "System",
  device: "Device",
  country: "Country",
  page: "Page",
  goal: "Goal",
};

const isFilterDimension = (name: string): name is FilterDimension => Object.hasOwn(FILTER_LABEL, name);

export interface Filter {
  dimension: FilterDimension;
  /** `is not`: the visitors without the value. */
  negated: boolean;
  value: string;
}

/** "country:DE" or "country!:DE" → a filter; null when the text is no filter. */
export function parseFilter(text: string): Filter | null {
  const at = text.indexOf(":");
  const negated = at > 0 && text.charAt(at - 1) === "!";
  const dimension = text.slice(0, negated ? at - 1 : at);
  const value = text.slice(at + 1);
  return at > 0 && isFilterDimension(dimension) && value !== "" ? { dimension, negated, value } : null;
}

/** A filter as the URL and the API write it: "country:DE", "source!:Google". */
export const filterText = (filter: Filter): string => `${filter.dimension}${filter.negated ? "!" : ""}:${filter.value}`;

/** The URL's `filter` parameters, the valid ones first three, one per dimension (the first wins). */
export const filters = computed<readonly Filter[]>(() => {
  const read: Filter[] = [];
  for (const text of query.value.getAll("filter")) {
    const filter = parseFilter(text);
    if (filter && read.length < MAX_FILTERS && !read.some((f) => f.dimension === filter.dimension)) read.push(filter);
  }
  return read;
});

/** The URL's `filter` parameters that are no filter (a hand-edited link): the bar says so. */
export const invalidFilters = computed(() => query.value.getAll("filter").filter((text) => parseFilter(text) === null));

/** The `filter` parameters of a report read; none when there is no filter (the request is unchanged). */
export function filterQuery(list: readonly Filter[] = filters.value): { filter?: string[] } {
  return list.length ? { filter: list.map(filterText) } : {};
}

/** The last change refused (a fourth filter), in a short sentence; null once a change is made. */
export const filterNotice = signal<string | null>(null);

function write(next: readonly Filter[]): void {
  filterNotice.value = null;
  // Another filter is another view: a page cursor of the previous one means nothing in it.
  setQuery({ filter: next.map(filterText), cursor: undefined });
}

/**
 * Adds `dimension is value`, replacing a filter on the same dimension; a fourth filter is
 * refused (filterNotice). Returns whether it was added.
 */
export function addFilter(dimension: FilterDimension, value: string): boolean {
  const list = filters.value;
  const same = list.findIndex((f) => f.dimension === dimension);
  if (same < 0 && list.length >= MAX_FILTERS) {
    filterNotice.value = `At most ${MAX_FILTERS} filters: remove one to add ${FILTER_LABEL[dimension].toLowerCase()}.`;
    return false;
  }
  const filter: Filter = { dimension, negated: false, value };
  write(same < 0 ? [...list, filter] : list.map((f, i) => (i === same ? filter : f)));
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
  write(filters.value.map((f, i) => (i === index ? { ...f, negated: !f.negated } : f)));
}

export function removeFilter(index: number): void {
  write(filters.value.filter((_, i) => i !== index));
}

export function clearFilters(): void {
  write([]);
}

/** The query parameters a report route takes, from the OpenAPI document's types. */
type QueryOf<P extends keyof paths> = paths[P] extends { get: { parameters: { query?: infer Q } } } ? NonNullable<Q> : never;

/**
 * Whether a report route takes `filter`. A screen states it as a constant typed with this
 * (`const FILTERED: TakesFilter<"/api/v1/vitals"> = false`): once the API takes the parameter,
 * the typecheck fails there until the screen sends its filters.
 */
export type TakesFilter<P extends keyof paths> = "filter" extends keyof QueryOf<P> ? true : false;
