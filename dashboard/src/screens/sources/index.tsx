/**
 * Sources: where visitors come from and what they use, over whole days or today's closed hours
 * (GET /api/v1/breakdown; today as bands, never the last 24 hours): sources and campaigns,
 * entry and exit pages, devices, browsers, systems and countries, each a panel of its top
 * values. A goal adds each value's converting sessions and rate (whole days only). Choosing a
 * value sets the filter (?filter=dimension:value): above the panels, that value's visitors per
 * day and its conversions. The panels themselves are never filtered; the chosen row is marked.
 */
import { useLayoutEffect, useRef } from "preact/hooks";
import { api, unwrap } from "../../api/client";
import { useLoad } from "../../state/load";
import { query, setQuery } from "../../state/location";
import { hasScope } from "../../state/session";
import { lazyScreen } from "../../ui/lazy";
import { period, todayPeriodParams } from "../../state/period";
import { Freshness } from "../../ui/freshness";
import { BandsHint, NO_GOAL_TODAY, RollingDayNote } from "../../ui/report-today";
import { isSmokeTest } from "../goals/kinds";
import { countryName, filterLabel, PANELS, urlFilter, type Filter } from "./dimensions";
import { BreakdownPanel, PICK_HINT_ID } from "./panel";

// Its own chunk: the chart library loads when a filter is first set, not with the screen.
const FilteredReports = lazyScreen(() => import("./filtered").then((m) => m.FilteredReports), "the filtered reports");

/** The site's goals to choose from (not smoke tests: they are in no report); null when this key cannot list them. */
function useGoals(site: string) {
  const canRead = hasScope("read:sites");
  const load = useLoad(
    () =>
      canRead
        ? unwrap(api.GET("/api/v1/sites/{id}/goals", { params: { path: { id: site } } })).then((d) => d.goals)
        : Promise.resolve(null),
    [site, canRead],
  );
  return load.status === "ready" && load.data ? load.data.filter((goal) => !isSmokeTest(goal)) : null;
}

function GoalSelect({ goals, value }: { goals: { id: string; name: string }[] | null; value: string }) {
  // A goal the URL names that is not listed (not read yet, or this key cannot list goals) keeps its option.
  const unnamed = value !== "" && !goals?.some((g) => g.id === value);
  return (
    <span class="sources-goal">
      <label for="sources-goal">Goal</label>
      <select
        id="sources-goal"
        value={value}
        onChange={(event) => setQuery({ goal: (event.target as HTMLSelectElement).value || undefined })}
      >
        <option value="">No goal</option>
        {unnamed && <option value={value}>{value}</option>}
        {(goals ?? []).map((goal) => (
          <option key={goal.id} value={goal.id}>
            {goal.name}
          </option>
        ))}
      </select>
    </span>
  );
}

function FilterBar({ filter }: { filter: Filter | { invalid: string } | null }) {
  const hint = useRef<HTMLParagraphElement>(null);
  const refocus = useRef(false);
  // Removing the filter removes its button: the focus goes to the line under it.
  useLayoutEffect(() => {
    if (!filter && refocus.current) {
      refocus.current = false;
      hint.current?.focus();
    }
  }, [filter]);
  const remove = () => {
    refocus.current = true;
    setQuery({ filter: undefined });
  };
  const text = filter && ("invalid" in filter ? filter.invalid : filterLabel(filter));
  const name = filter && !("invalid" in filter) && filter.dimension === "country" ? countryName(filter.value) : undefined;
  return (
    <div class="sources-filter">
      {text ? (
        <p class="sources-chips">
          Filtered by{" "}
          <span class="chip" title={name}>
            <span>{text}</span>
            <button type="button" aria-label={`Remove filter ${text}`} title="Remove the filter" onClick={remove}>
              ×
            </button>
          </span>
        </p>
      ) : (
        <p class="sources-chips">No filter.</p>
      )}
      {filter && "invalid" in filter && (
        <p class="failure" role="alert">
          This is no filter: a filter is dimension:value, such as country:DE. Remove it and choose a value in a panel.
        </p>
      )}
      <p class="hint" id={PICK_HINT_ID} tabIndex={-1} ref={hint}>
        Choose a value in a panel to see its visitors per day and its conversions here; choose it again, or remove the filter, to
        see every visitor.
      </p>
    </div>
  );
}

/**
 * The screen's freshness line. The panels read their own breakdowns; the period and the next
 * publication are the site's for the same days (or today's closed hours), read once from the
 * timeseries. With today, the line on bands follows.
 */
function SourcesFreshness({ site }: { site: string }) {
  const days = todayPeriodParams(period.value);
  const today = days.period === "today";
  const load = useLoad(async () => {
    // Today is read per hour, the only way the timeseries reads it.
    const data = await unwrap(
      api.GET("/api/v1/timeseries", { params: { query: { site, ...days, interval: today ? "hour" : "day" } } }),
    );
    return typeof data === "string" ? null : data;
  }, [site, JSON.stringify(days)]);
  if (load.status !== "ready" || !load.data) return null;
  return (
    <>
      <Freshness range={load.data.period} next={load.data.next_figures} />
      {today && <BandsHint k={load.data.k} />}
    </>
  );
}

export function SourcesScreen({ site }: { site: string }) {
  const filter = urlFilter();
  const today = period.value.name === "today";
  const asked = query.value.get("goal") ?? "";
  // Today's breakdowns take no goal (NO_GOAL_TODAY): the URL keeps it for the other periods.
  const goal = today ? "" : asked;
  const goals = useGoals(site);
  const goalName = goals?.find((g) => g.id === goal)?.name ?? goal;
  const valid = filter && !("invalid" in filter) ? filter : null;
  const offered = goals !== null || asked !== "";
  return (
    <div class="sources">
      <RollingDayNote what="Sources" />
      <SourcesFreshness site={site} />
      <div class="report-tools">
        {offered && !today && <GoalSelect goals={goals} value={goal} />}
        {offered && today && (
          <p class="report-note" role="note">
            No goal with Today: {NO_GOAL_TODAY}.
          </p>
        )}
      </div>
      <section aria-labelledby="sources-filter-title" class="sources-filter-section">
        <h2 id="sources-filter-title">Filter</h2>
        <FilterBar filter={filter} />
        {valid && (
          <>
            <p class="hint">
              The visitors with {filterLabel(valid)}, day by day. The panels below are not filtered: they show every visitor, the
              filter's row marked.
            </p>
            {today && (
              <p class="report-note" role="note">
                A filter reads whole days only: its figures show yesterday, while the panels show today.
              </p>
            )}
            <FilteredReports site={site} filter={valid} />
          </>
        )}
      </section>
      {/* With a goal's two more columns, a panel takes the whole width. */}
      <div class={goal ? "sources-panels wide" : "sources-panels"}>
        {PANELS.map((spec) => (
          <BreakdownPanel key={spec.id} site={site} spec={spec} goal={goal} goalName={goalName} filter={valid} />
        ))}
      </div>
    </div>
  );
}
