/**
 * What the Sources screen shows for its filters: the filtered visitors and pageviews per day
 * (GET /api/v1/timeseries?filter=…, a uPlot chart and the table of every point) and each goal's
 * conversions with its rate and denominator (GET /api/v1/conversions?filter=…). Filters read
 * whole days only. Its own chunk: the chart library loads when a filter is first set, not with
 * the screen.
 */
import { useMemo } from "preact/hooks";
import { api, ApiProblem, unwrap, type Figure, type Schemas } from "../../api/client";
import { useLoad } from "../../state/load";
import { dayPeriodParams, period } from "../../state/period";
import { TimeChart, type ChartSeries } from "../../ui/chart";
import { beforeSite, noDataBefore, SiteFigureView } from "../../ui/figure";
import { CaptionRange } from "../../ui/report-range";
import { Empty, Loaded } from "../../ui/states";
import { formatPoint, siteClock } from "../../ui/time";
import { siteCreatedAt } from "../../state/sites";
import { ConversionsTable } from "../goals/conversions";
import { filterQuery, type Filter } from "../../state/filters";
import { useGoalNames } from "../../state/goal-names";
import { filterSentence } from "../../ui/filter-bar";

type Timeseries = Schemas["TimeseriesReport"];

/** Goals per site are few; one page of the largest size holds them all. */
const GOALS_LIMIT = 1000;

const plotted = (figure: Figure): number | null => (figure.qualifier === "suppressed" ? null : figure.value);

export function FilteredReports({ site, filters }: { site: string; filters: readonly Filter[] }) {
  const days = dayPeriodParams(period.value);
  const { filter } = filterQuery(filters);
  const goalNames = useGoalNames(site);
  // "Country is Germany and Source is Google": whose figures these are.
  const label = filters.map((f) => filterSentence(f, goalNames)).join(" and ");
  const inputs = [site, JSON.stringify(days), filter?.join("&")];
  const series = useLoad(async () => {
    const data = await unwrap(api.GET("/api/v1/timeseries", { params: { query: { site, ...days, interval: "day", filter } } }));
    // The route can also answer CSV; the dashboard always asks for JSON.
    if (typeof data === "string") throw new ApiProblem(0, "The timeseries came back as text, not JSON.");
    return data;
  }, inputs);
  const conversions = useLoad(
    () => unwrap(api.GET("/api/v1/conversions", { params: { query: { site, ...days, filter, limit: GOALS_LIMIT } } })),
    inputs,
  );
  return (
    <div class="sources-filtered">
      <h3>Visitors and pageviews per day</h3>
      <Loaded load={series} what="the filtered visitors">
        {(data) => <FilteredSeries series={data} filterText={label} createdAt={siteCreatedAt(site)} />}
      </Loaded>
      <h3>Conversions</h3>
      <Loaded load={conversions} what="the filtered conversions">
        {(data) => (
          <ConversionsTable
            report={data}
            of={label}
            sessions={`sessions where ${label}`}
            empty="Goals are made on the Goals & funnels screen."
          />
        )}
      </Loaded>
    </div>
  );
}

/** When a day ends (ms): the next day's start, or a day after its own for the last. */
const dayEnd = (series: Timeseries, i: number): number => {
  const next = series.points[i + 1];
  return next ? Date.parse(next.start) : Date.parse(series.points[i]!.start) + 86_400_000;
};

function FilteredSeries({ series, filterText, createdAt }: { series: Timeseries; filterText: string; createdAt: number | null }) {
  // Days that ended before the site was registered are "no data" where they show nothing (ui/figure.tsx noDataBefore).
  const before = (i: number) => beforeSite(dayEnd(series, i), createdAt);
  const zone = series.period.timezone;
  // TimeChart redraws when its arrays change: build them once per answer, not per render.
  const times = useMemo(() => series.points.map((p) => siteClock(Date.parse(p.start) / 1000, zone)), [series]);
  const lines = useMemo<ChartSeries[]>(
    () => [
      {
        label: "Visitors",
        values: series.points.map((p, i) => (noDataBefore(p.visitors, before(i)) ? null : plotted(p.visitors))),
      },
      {
        label: "Pageviews",
        values: series.points.map((p, i) => (noDataBefore(p.pageviews, before(i)) ? null : plotted(p.pageviews))),
      },
    ],
    [series, createdAt],
  );
  const extent = useMemo(() => {
    const first = series.points[0];
    const last = series.points.at(-1);
    if (!first || !last) return undefined;
    return [siteClock(Date.parse(first.start) / 1000, zone), siteClock(Date.parse(last.start) / 1000 + 86_400, zone)] as const;
  }, [series]);
  if (series.points.length === 0) {
    return (
      <Empty>
        <p>No day of this period is published yet.</p>
      </Empty>
    );
  }
  const { k } = series;
  return (
    <>
      <TimeChart
        title={`Chart of the visitors and pageviews per day where ${filterText}. Every figure is in the table below.`}
        times={times}
        series={lines}
        span={extent}
      />
      <div class="table-wrap">
        <table class="report-table sources-points">
          <caption>
            Visitors and pageviews per day, {filterText}
            <CaptionRange range={series.period} />
          </caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col" class="num">
                Visitors
              </th>
              <th scope="col" class="num">
                Pageviews
              </th>
            </tr>
          </thead>
          <tbody>
            {series.points.map((point, i) => (
              <tr key={point.start}>
                <th scope="row">
                  <time dateTime={point.local}>{formatPoint(point.start, "day", zone)}</time>
                </th>
                <td class="num">
                  <SiteFigureView figure={point.visitors} k={k} before={before(i)} />
                </td>
                <td class="num">
                  <SiteFigureView figure={point.pageviews} k={k} before={before(i)} />
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total shown</th>
              <td class="num">
                <SiteFigureView figure={series.totals.visitors} k={k} before={before(series.points.length - 1)} />
              </td>
              <td class="num">
                <SiteFigureView figure={series.totals.pageviews} k={k} before={before(series.points.length - 1)} />
              </td>
            </tr>
          </tfoot>
        </table>
      </div>
    </>
  );
}
