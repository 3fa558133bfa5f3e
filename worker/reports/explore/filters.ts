/**
 * The filters of a report (`filter=country:DE&filter=source!:Google`, docs/reports.md "Filters"):
 * up to three, AND-ed, each `is` (`dimension:value`) or `is not` (`dimension!:value`), on any
 * dimension of a session-day, on a page it viewed, on a goal it completed, or on a custom
 * property one of its events carried (`prop:plan:pro`, `prop:plan!:pro`: the name ends at its
 * first `:`). Values are read in the spelling the breakdown shows (dimensions.ts filterValue); a
 * goal is named by its id, a property's value is exact.
 */
import { PROP_NAME_PATTERN } from "../../lib/beacon-limits";
import { goalId } from "../../lib/ids";
import { DIMENSIONS, filterValue, isDimension, type Dimension } from "../dimensions";
import { PROP_KEY_PREFIX, type PropKey } from "./cells";

export const FILTER_DIMENSIONS = [...DIMENSIONS, "page", "goal", "prop:NAME"] as const;
/** A dimension a filter may name: `prop:NAME` stands for any custom property. */
export type FilterDimension = Exclude<(typeof FILTER_DIMENSIONS)[number], "prop:NAME"> | PropKey;

/** More filters than people click: each one more is one more crossing of the table to protect. */
export const MAX_FILTERS = 3;

export interface Filter {
  dimension: FilterDimension;
  /** `is not`: the session-days without the value (those without any value included). */
  negated: boolean;
  value: string;
}

const isFilterDimension = (name: string): name is Dimension | "page" | "goal" =>
  name !== "prop:NAME" && (FILTER_DIMENSIONS as readonly string[]).includes(name);

/** `prop:NAME:value` or `prop:NAME!:value`: the name ends at the first `:` after `prop:`. */
function parsePropFilter(text: string): Filter | { error: string } {
  const rest = text.slice(PROP_KEY_PREFIX.length);
  const at = rest.indexOf(":");
  const negated = at > 0 && rest.charAt(at - 1) === "!";
  const name = rest.slice(0, negated ? at - 1 : at);
  const value = rest.slice(at + 1);
  if (at < 0 || !PROP_NAME_PATTERN.test(name) || value === "") {
    return { error: "prop: must be prop:NAME:value or prop:NAME!:value (is not), NAME a property name (e.g. prop:plan:pro)" };
  }
  return { dimension: `prop:${name}`, negated, value };
}

/** A filter from its text, or why it is not one (the route answers a 400 naming `filter`). */
export function parseFilter(text: string): Filter | { error: string } {
  if (text.startsWith(PROP_KEY_PREFIX)) return parsePropFilter(text);
  const at = text.indexOf(":");
  const negated = at > 0 && text.charAt(at - 1) === "!";
  const dimension = text.slice(0, negated ? at - 1 : at);
  const raw = text.slice(at + 1);
  if (at < 0 || !isFilterDimension(dimension) || raw === "") {
    return {
      error: `must be dimension:value or dimension!:value (is not), the dimension one of ${FILTER_DIMENSIONS.join(", ")} (e.g. country:DE, source!:Google)`,
    };
  }
  if (dimension === "page") {
    return raw.startsWith("/")
      ? { dimension, negated, value: raw }
      : { error: "page: must be a path starting with / (page:/pricing)" };
  }
  if (dimension === "goal") {
    return goalId.safeParse(raw).success
      ? { dimension, negated, value: raw }
      : { error: "goal: must be a goal id (goal:goal_…)" };
  }
  const canonical = filterValue(dimension, raw);
  return "error" in canonical ? canonical : { dimension, negated, value: canonical.value };
}

/** A filter as it is written in a request (and in cache keys). */
export function filterText(filter: Filter): string {
  return `${filter.dimension}${filter.negated ? "!" : ""}:${filter.value}`;
}

/** The filters in one order, so the same question is one cache entry whatever order it was asked in. */
export function canonicalFilters(filters: readonly Filter[]): Filter[] {
  return [...filters].sort((a, b) => filterText(a).localeCompare(filterText(b)));
}

/** A filter on a dimension of the session-day itself (a column of rollup_session_day). */
export function onSessionDimension(filter: Filter): filter is Filter & { dimension: Dimension } {
  return isDimension(filter.dimension);
}
