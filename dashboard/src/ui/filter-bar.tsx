/**
 * The filters above every report screen: one chip per filter ("Country is Germany"), its
 * is / is not flipped by a button and removed by its ×, and "Clear filters". Also what a
 * filtered view cannot show and why, in plain words rather than the API's refusal: Today and
 * 24 hours take no filter (filters read whole days), and a report the API does not filter yet.
 */
import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";
import { useGoalNames } from "../state/goal-names";
import {
  clearFilters,
  filterLabel,
  filterNotice,
  filters,
  filterText,
  flipFilter,
  invalidFilters,
  removeFilter,
  type Filter,
} from "../state/filters";
import { setQuery } from "../state/location";
import { isHourly, period } from "../state/period";
import { countryName } from "./country";

/** A filter's value as a person reads it: a country's name, a goal's name. */
function valueName(filter: Filter, goalNames: ReadonlyMap<string, string>): string {
  if (filter.dimension === "country") return countryName(filter.value) ?? filter.value;
  if (filter.dimension === "goal") return goalNames.get(filter.value) ?? filter.value;
  return filter.value;
}

/** "Country is Germany", "Source is not Google". */
export function filterSentence(filter: Filter, goalNames: ReadonlyMap<string, string>, negated = filter.negated): string {
  return `${filterLabel(filter.dimension)} ${negated ? "is not" : "is"} ${valueName(filter, goalNames)}`;
}

/** The id of the bar's line on how filters are added: where the focus goes when the last chip goes. */
export const FILTER_HINT_ID = "filters-hint";

export function FilterBar({ site }: { site: string }) {
  const list = filters.value;
  const invalid = invalidFilters.value;
  const goalNames = useGoalNames(site);
  const hint = useRef<HTMLParagraphElement>(null);
  const refocus = useRef(false);
  // Removing a chip removes the button that had the focus: it goes to the line under the chips.
  useLayoutEffect(() => {
    if (refocus.current) {
      refocus.current = false;
      hint.current?.focus();
    }
  }, [list.length]);
  const removing = (change: () => void) => () => {
    refocus.current = true;
    change();
  };
  return (
    <section class="filter-bar" aria-label="Filters">
      {list.length > 0 && (
        <ul class="chips">
          {list.map((filter, index) => {
            const sentence = filterSentence(filter, goalNames);
            return (
              <li key={filterText(filter)} class="chip" title={filterText(filter)}>
                <span>{filterLabel(filter.dimension)}</span>
                <button
                  type="button"
                  class="chip-flip"
                  aria-label={`${sentence}: change to ${filter.negated ? "is" : "is not"}`}
                  onClick={() => flipFilter(index)}
                >
                  {filter.negated ? "is not" : "is"}
                </button>
                <span class="chip-value">{valueName(filter, goalNames)}</span>
                <button
                  type="button"
                  class="chip-remove"
                  aria-label={`Remove filter ${sentence}`}
                  onClick={removing(() => removeFilter(index))}
                >
                  ×
                </button>
              </li>
            );
          })}
          <li>
            <button type="button" class="filters-clear" onClick={removing(clearFilters)}>
              Clear filters
            </button>
          </li>
        </ul>
      )}
      {filterNotice.value && (
        <p class="field-problem" role="status">
          {filterNotice.value}
        </p>
      )}
      {invalid.length > 0 && (
        <p class="failure" role="alert">
          Not a filter, left out: {invalid.join(", ")}. A filter is dimension:value, such as country:DE.{" "}
          <button type="button" onClick={() => setQuery({ filter: list.map(filterText) })}>
            Drop it
          </button>
        </p>
      )}
      <p class="hint" id={FILTER_HINT_ID} tabIndex={-1} ref={hint}>
        {list.length
          ? "Only the visitors matching every filter are counted. Click a row of any table to add its value (up to 3)."
          : "Click a row of any table to see only its visitors."}
      </p>
    </section>
  );
}

/**
 * The screen's content, or, with filters on an hourly period, why there is none: the API
 * filters whole days only, since a filtered hour would rest on a handful of sessions.
 */
export function FilteredScreen({ children }: { children: ComponentChildren }) {
  const p = period.value;
  if (filters.value.length === 0 || !isHourly(p)) return <>{children}</>;
  return (
    <div class="report-note filters-days" role="note">
      <p>
        Filters apply to whole days: {p.name === "today" ? "Today" : "the last 24 hours"} cannot be filtered, since a filtered
        hour would rest on a handful of visitors.
      </p>
      <p>
        <button type="button" class="primary" onClick={() => setQuery({ period: "day", from: undefined, to: undefined })}>
          Show yesterday
        </button>{" "}
        <button type="button" onClick={clearFilters}>
          Clear filters
        </button>
      </p>
    </div>
  );
}

/** Says that a part of a filtered screen counts every visitor, and why (`why`: a short clause). */
export function NotFiltered({ what, why }: { what: string; why: string }) {
  if (filters.value.length === 0) return null;
  return (
    <p class="report-note" role="note">
      {what} not filtered: {why}.
    </p>
  );
}
