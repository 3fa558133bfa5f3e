/**
 * Sources: where visitors come from and what they use, over whole days or today's closed hours
 * (GET /api/v1/breakdown; today as bands, never the last 24 hours): sources and campaigns,
 * entry and exit pages, devices, browsers, systems, countries and custom properties, each a
 * panel of its top values. A goal adds each value's converting sessions and rate (whole days
 * only), and a revenue goal its revenue. Every panel reads the report filters
 * (state/filters.ts), and choosing a value adds it to them: above the panels, the filtered
 * visitors per day and their conversions.
 */
import { api, unwrap } from "../../api/client";
import { useLoad } from "../../state/load";
import { filters } from "../../state/filters";
import { query, setQuery } from "../../state/location";
import { hasScope } from "../../state/session";
import { lazyScreen } from "../../ui/lazy";
import { period, todayPeriodParams } from "../../state/period";
import { Freshness } from "../../ui/freshness";
import { BandsHint, NO_GOAL_TODAY, RollingDayNote } from "../../ui/report-today";
import { isSmokeTest } from "../goals/kinds";
import { PANELS } from "./dimensions";
import { BreakdownPanel } from "./panel";
import { PropsPanel } from "./props";

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

/**
 * The screen's freshness line. The panels read their own breakdowns; the period and the next
 * publication are the site's for the same days (or today's closed hours), read once from the
 * timeseries. With today, the line on bands follows. The breakdowns leave imported days out
 * under a filter or with a goal (`leftOut`), which that unfiltered timeseries cannot say.
 */
function SourcesFreshness({ site, leftOut }: { site: string; leftOut: "filters" | "goal" | undefined }) {
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
      <Freshness range={load.data.period} next={load.data.next_figures} imported={load.data.imported} leftOut={leftOut} />
      {today && <BandsHint k={load.data.k} />}
    </>
  );
}

export function SourcesScreen({ site }: { site: string }) {
  const today = period.value.name === "today";
  const asked = query.value.get("goal") ?? "";
  // Today's breakdowns take no goal (NO_GOAL_TODAY): the URL keeps it for the other periods.
  const goal = today ? "" : asked;
  const goals = useGoals(site);
  const goalName = goals?.find((g) => g.id === goal)?.name ?? goal;
  const list = filters.value;
  const offered = goals !== null || asked !== "";
  return (
    <div class="sources">
      <RollingDayNote what="Sources" />
      <SourcesFreshness site={site} leftOut={list.length > 0 ? "filters" : goal ? "goal" : undefined} />
      <div class="report-tools">
        {offered && !today && <GoalSelect goals={goals} value={goal} />}
        {offered && today && (
          <p class="report-note" role="note">
            No goal with Today: {NO_GOAL_TODAY}.
          </p>
        )}
      </div>
      {list.length > 0 && (
        <section aria-labelledby="sources-filtered-title" class="sources-filter-section">
          <h2 id="sources-filtered-title">The filtered visitors</h2>
          <FilteredReports site={site} filters={list} />
        </section>
      )}
      {/* With a goal's two more columns, a panel takes the whole width. */}
      <div class={goal ? "sources-panels wide" : "sources-panels"}>
        {PANELS.map((spec) => (
          <BreakdownPanel key={spec.id} site={site} spec={spec} goal={goal} goalName={goalName} filters={list} />
        ))}
        <PropsPanel site={site} goal={goal} goalName={goalName} filters={list} />
      </div>
    </div>
  );
}
