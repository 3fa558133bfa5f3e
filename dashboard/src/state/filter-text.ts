/**
 * The report filters as text, without the browser: how the URL and the API spell a filter
 * (`country:DE`, `source!:Google`), how the URL's parameters are read back into at most three
 * (one per dimension), and what adding one does. state/filters.ts keeps them in the URL.
 */

/**
 * The dimensions a filter can be on: a breakdown's session dimensions, a custom property
 * (`prop:plan`), a page viewed, a goal completed.
 */
export type FilterDimension = SessionDimension | PropDimension | "page" | "goal";
/** A custom property's dimension: `prop:` and the property's name. */
export type PropDimension = `prop:${string}`;
type SessionDimension =
  | "source"
  | "utm_source"
  | "utm_medium"
  | "utm_campaign"
  | "utm_content"
  | "utm_term"
  | "entry_page"
  | "exit_page"
  | "browser"
  | "os"
  | "device"
  | "country";

/** The API's limit (worker/reports/explore/filters.ts MAX_FILTERS). */
export const MAX_FILTERS = 3;

/** Each named dimension as the dashboard names it (a property by filterLabel). */
export const FILTER_LABEL: Readonly<Record<Exclude<FilterDimension, PropDimension>, string>> = {
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

/** The collector's property name pattern less `:`, which would end the name in a filter (docs/reports.md). */
const FILTER_PROP_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** A property's dimension: `prop:plan` → "plan"; null for any other. */
export const propName = (dimension: string): string | null => (dimension.startsWith("prop:") ? dimension.slice(5) : null);

const isFilterDimension = (name: string): name is FilterDimension =>
  Object.hasOwn(FILTER_LABEL, name) || FILTER_PROP_NAME.test(propName(name) ?? "");

/** A dimension as the dashboard names it: "Country", or a property as "Property plan". */
export const filterLabel = (dimension: FilterDimension): string => {
  const prop = propName(dimension);
  return prop === null ? FILTER_LABEL[dimension as Exclude<FilterDimension, PropDimension>] : `Property ${prop}`;
};

export interface Filter {
  dimension: FilterDimension;
  /** `is not`: the visitors without the value. */
  negated: boolean;
  value: string;
}

/**
 * "country:DE" or "country!:DE" → a filter; null when the text is no filter. A property's name
 * ends at the first `:` after `prop:` ("prop:plan:pro:max" is the value "pro:max" of plan).
 */
export function parseFilter(text: string): Filter | null {
  const prefix = text.startsWith("prop:") ? 5 : 0;
  const at = text.indexOf(":", prefix);
  const negated = at > 0 && text.charAt(at - 1) === "!";
  const dimension = text.slice(0, negated ? at - 1 : at);
  const value = text.slice(at + 1);
  return at > 0 && isFilterDimension(dimension) && value !== "" ? { dimension, negated, value } : null;
}

/** A filter as the URL and the API write it: "country:DE", "source!:Google". */
export const filterText = (filter: Filter): string => `${filter.dimension}${filter.negated ? "!" : ""}:${filter.value}`;

/** The URL's `filter` values as filters: the valid ones, the first three, one per dimension (the first wins). */
export function readFilters(texts: readonly string[]): Filter[] {
  const read: Filter[] = [];
  for (const text of texts) {
    const filter = parseFilter(text);
    if (filter && read.length < MAX_FILTERS && !read.some((f) => f.dimension === filter.dimension)) read.push(filter);
  }
  return read;
}

/**
 * The filters with `dimension is value` added, replacing a filter on the same dimension where
 * there is one (in its place); null when it would be one more than MAX_FILTERS.
 */
export function withFilter(list: readonly Filter[], dimension: FilterDimension, value: string): Filter[] | null {
  const filter: Filter = { dimension, negated: false, value };
  const same = list.findIndex((f) => f.dimension === dimension);
  if (same >= 0) return list.map((f, i) => (i === same ? filter : f));
  return list.length < MAX_FILTERS ? [...list, filter] : null;
}

/** The filters with the one at `index` turned from is to is not, or back. */
export const flipped = (list: readonly Filter[], index: number): Filter[] =>
  list.map((f, i) => (i === index ? { ...f, negated: !f.negated } : f));
