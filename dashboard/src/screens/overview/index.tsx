/**
 * The Overview: who is here now, and what changed since a release. The live counter
 * (GET /api/v1/live) refreshes itself each minute; the comparison (GET /api/v1/overview) uses the
 * hours since a deployment marker against as many hours before it; the trend below
 * (GET /api/v1/timeseries) and the engagement cards above it (GET /api/v1/aggregate) follow the
 * shared period, the filters and the compare toggle; the markers (GET /api/v1/deployments)
 * feed the "Compare since" choice, the chart's marker lines and the smoke-test list.
 */
import { api, unwrap, type Schemas } from "../../api/client";
import { useLoad } from "../../state/load";
import { query } from "../../state/location";
import { compareMode } from "../../state/compare";
import { isHourly, period, PERIODS } from "../../state/period";
import { siteCreatedAt } from "../../state/sites";
import { shareToken } from "../../state/share";
import { MetricCards, Windows, windowsBeforeSite, type Overview } from "./cards";
import { NoDataYet, useVerified } from "./empty";
import { FirstDayPanel, useArrivals } from "./first-day";
import { GoalsTable } from "./goals";
import { LiveCounter } from "./live";
import { Engagement } from "./engagement";
import { CompareSince, RecentMarkers } from "./markers";
import { SmokeList, useGoalNames } from "./smoke";
import { Trend, useTimeseries } from "./trend";
import { NotFiltered } from "../../ui/filter-bar";
import { filterQuery, filters } from "../../state/filters";
import { filterLabel } from "../../state/filter-text";

/** The filters the comparison (the running hours) cannot take: worker/reports/explore/overview.ts FILTERS_THAT_MOVE. */
const MOVING = ["page", "goal", "exit_page"] as const;
import { Freshness } from "../../ui/freshness";
import { Loaded } from "../../ui/states";
import { CompareToggle } from "../../ui/compare";

type Deployment = Schemas["Deployment"];

/** One empty list for "not loaded yet", so the chart is not redrawn at every render. */
const NO_DEPLOYMENTS: readonly Deployment[] = [];

function Comparison({
  overview,
  site,
  goalNames,
  hasMarkers,
}: {
  overview: Overview;
  site: string;
  goalNames: ReadonlyMap<string, string>;
  hasMarkers: boolean;
}) {
  const { deployment } = overview;
  const before = windowsBeforeSite(overview, siteCreatedAt(site));
  return (
    <>
      <Windows overview={overview} hasMarkers={hasMarkers} />
      <MetricCards overview={overview} before={before} />
      {deployment && (
        <div class="overview-smoke">
          Smoke tests of {deployment.version}:{" "}
          <SmokeList smoke={deployment.smoke} goalNames={goalNames} timeZone={overview.timezone} />
        </div>
      )}
      <h3>Goals</h3>
      <GoalsTable overview={overview} site={site} before={before} />
    </>
  );
}

export function OverviewScreen({ site }: { site: string }) {
  const chosen = query.value.get("deployment") ?? "";
  const current = period.value;
  // The comparison reads the running day's closed hours: it takes the filters a visitor's first
  // pageview decides, not page, goal or exit page (a later pageview could still change them).
  const moving = filters.value.filter((f) => (MOVING as readonly string[]).includes(f.dimension));
  const comparable = filters.value.filter((f) => !moving.includes(f));
  const comparedFilters = filterQuery(comparable);
  const overview = useLoad(
    () =>
      unwrap(
        api.GET("/api/v1/overview", {
          params: { query: { site, ...(chosen ? { deployment: chosen } : {}), ...comparedFilters } },
        }),
      ),
    [site, chosen, comparedFilters.filter?.join("&")],
  );
  const series = useTimeseries(site, current, compareMode.value);
  // A shared link reads reports only, not the site's deployment markers (worker/api/share-auth.ts).
  const markers = useLoad(
    () =>
      shareToken
        ? Promise.resolve({ deployments: NO_DEPLOYMENTS })
        : unwrap(api.GET("/api/v1/deployments", { params: { query: { site, limit: 100 } } })),
    [site],
  );
  const goalNames = useGoalNames(site);
  const verified = useVerified(site);
  const arrivals = useArrivals(site);

  const deployments = markers.status === "ready" ? markers.data.deployments : NO_DEPLOYMENTS;
  const answered = overview.status === "ready" ? overview.data : null;
  const timeZone = answered?.timezone ?? (series.status === "ready" ? series.data.period.timezone : undefined);
  const periodLabel = PERIODS.find((p) => p.name === current.name)?.label ?? current.name;

  return (
    <div class="overview">
      <div class="row overview-controls">
        <CompareSince deployments={deployments} value={chosen} extra={answered?.deployment ?? null} timeZone={timeZone} />
      </div>
      {verified === false || arrivals?.status === "waiting" ? (
        <NoDataYet site={site} arrivals={arrivals} />
      ) : (
        <>
          {arrivals?.status === "first_day" && <FirstDayPanel arrivals={arrivals} />}
          <section aria-labelledby="overview-live">
            <h2 id="overview-live">Visitors now</h2>
            <NotFiltered what="The live counter is" why="it counts every visitor of the last minutes" />
            <LiveCounter site={site} />
          </section>
          <section aria-labelledby="overview-comparison">
            <h2 id="overview-comparison">Comparison</h2>
            {moving.length > 0 && (
              <NotFiltered
                what={`The comparison is`}
                why={`by ${moving.map((f) => filterLabel(f.dimension).toLowerCase()).join(" or ")}: it reads the running day's closed hours, and a visitor's later pageviews can still change those; its other filters apply`}
              />
            )}
            <Loaded load={overview} what="the comparison">
              {(data) => <Comparison overview={data} site={site} goalNames={goalNames} hasMarkers={deployments.length > 0} />}
            </Loaded>
          </section>
          <section aria-labelledby="overview-trend">
            <h2 id="overview-trend">Trend: {periodLabel}</h2>
            <p class="hint">
              The period above sets the engagement figures, the chart and its table; the comparison uses the deployment's own
              hours.
            </p>
            <CompareToggle hourly={isHourly(current)} />
            <Engagement site={site} period={current} compare={compareMode.value} />
            <Loaded load={series} what="the trend">
              {(data) => (
                <>
                  <Freshness
                    range={data.period}
                    next={data.next_figures}
                    empty={data.points.length === 0}
                    imported={data.imported}
                  />
                  <Trend series={data} deployments={deployments} createdAt={siteCreatedAt(site)} />
                </>
              )}
            </Loaded>
          </section>
        </>
      )}
      <section aria-labelledby="overview-deployments">
        <h2 id="overview-deployments">Deployments</h2>
        <Loaded load={markers} what="deployment markers">
          {(data) => <RecentMarkers site={site} deployments={data.deployments} goalNames={goalNames} timeZone={timeZone} />}
        </Loaded>
      </section>
    </div>
  );
}
