/**
 * The Overview's trend over the shared period: a chart of visitors, pageviews and conversions
 * with a marker per deployment, and below it a table of every point. A hidden point is a gap in
 * the chart, never a zero; the table writes it as "< k", so no figure lives in the picture only.
 */
import { useMemo } from "preact/hooks";
import { api, ApiProblem, unwrap, type Figure, type Schemas } from "../../api/client";
import { useLoad } from "../../state/load";
import { isHourly, periodParams, type Period } from "../../state/period";
import { TimeChart, type ChartMarker, type ChartSeries } from "../../ui/chart";
import { FigureView } from "../../ui/figure";
import { formatPoint, siteClock } from "../../ui/time";
import { Empty } from "../../ui/states";

export type Timeseries = Schemas["TimeseriesReport"];
type Deployment = Schemas["Deployment"];

/** Hourly periods are reported per closed hour (the API refuses days there); the others per day. */
export function useTimeseries(site: string, period: Period) {
  return useLoad(async () => {
    const query = { site, ...periodParams(period), interval: isHourly(period) ? ("hour" as const) : ("day" as const) };
    const data = await unwrap(api.GET("/api/v1/timeseries", { params: { query } }));
    // The route can also answer CSV; the dashboard always asks for JSON.
    if (typeof data === "string") throw new ApiProblem(0, "The timeseries came back as text, not JSON.");
    return data;
  }, [site, period.name, period.from, period.to]);
}

const value = (figure: Figure): number | null => (figure.qualifier === "suppressed" ? null : figure.value);

/** The instants the points cover, [first start, last end), in Unix seconds. */
function span(series: Timeseries): [number, number] | null {
  const first = series.points[0];
  const last = series.points.at(-1);
  if (!first || !last) return null;
  return [Date.parse(first.start) / 1000, Date.parse(last.start) / 1000 + (series.interval === "hour" ? 3600 : 86_400)];
}

function TrendChart({ series, deployments }: { series: Timeseries; deployments: readonly Deployment[] }) {
  const zone = series.period.timezone;
  // TimeChart redraws when its arrays change: build them once per answer, not per render.
  const times = useMemo(() => series.points.map((p) => siteClock(Date.parse(p.start) / 1000, zone)), [series]);
  const lines = useMemo<ChartSeries[]>(
    () => [
      { label: "Visitors", values: series.points.map((p) => value(p.visitors)) },
      { label: "Pageviews", values: series.points.map((p) => value(p.pageviews)) },
      { label: "Conversions", values: series.points.map((p) => value(p.conversions)) },
    ],
    [series],
  );
  const markers = useMemo<ChartMarker[]>(() => {
    const range = span(series);
    if (!range) return [];
    return deployments
      .map((d) => ({ at: Date.parse(d.deployed_at) / 1000, label: d.version }))
      .filter((m) => m.at >= range[0] && m.at < range[1])
      .map((m) => ({ ...m, at: siteClock(m.at, zone) }));
  }, [series, deployments]);
  // To the end of the last point, so a marker in the last day or hour is drawn too.
  const extent = useMemo(() => {
    const range = span(series);
    return range ? ([siteClock(range[0], zone), siteClock(range[1], zone)] as const) : undefined;
  }, [series]);
  const unit = series.interval === "hour" ? "hour" : "day";
  const described = markers.length ? `, with ${markers.length} deployment ${markers.length === 1 ? "marker" : "markers"} (${markers.map((m) => m.label).join(", ")})` : "";
  return (
    <TimeChart
      title={`Chart of visitors, pageviews and conversions per ${unit}${described}. Every figure is in the table below.`}
      times={times}
      series={lines}
      markers={markers}
      span={extent}
    />
  );
}

function PointsTable({ series }: { series: Timeseries }) {
  const { k, interval, period } = series;
  return (
    // Focusable, so a keyboard can scroll it where it is wider than the screen.
    <div class="table-wrap" tabIndex={0} role="region" aria-labelledby="overview-points-caption">
      <table class="overview-points">
        <caption id="overview-points-caption">
          Visitors, pageviews and conversions per {interval} ({period.timezone} time)
        </caption>
        <thead>
          <tr>
            <th scope="col">{interval === "hour" ? "Hour" : "Day"}</th>
            <th scope="col" class="num">
              Visitors
            </th>
            <th scope="col" class="num">
              Pageviews
            </th>
            <th scope="col" class="num">
              Conversions
            </th>
          </tr>
        </thead>
        <tbody>
          {series.points.map((point) => (
            <tr key={point.start}>
              <th scope="row">
                <time dateTime={point.start}>{formatPoint(point.start, interval, period.timezone)}</time>
              </th>
              <td class="num">
                <FigureView figure={point.visitors} k={k} />
              </td>
              <td class="num">
                <FigureView figure={point.pageviews} k={k} />
              </td>
              <td class="num">
                <FigureView figure={point.conversions} k={k} />
              </td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total shown</th>
            <td class="num">
              <FigureView figure={series.totals.visitors} k={k} />
            </td>
            <td class="num">
              <FigureView figure={series.totals.pageviews} k={k} />
            </td>
            <td class="num">
              <FigureView figure={series.totals.conversions} k={k} />
            </td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

export function Trend({ series, deployments }: { series: Timeseries; deployments: readonly Deployment[] }) {
  if (series.points.length === 0) {
    return (
      <Empty>
        <p>No {series.interval === "hour" ? "hour of this period has closed" : "day of this period is published"} yet. Hours are reported about 25 seconds after they end.</p>
      </Empty>
    );
  }
  return (
    <>
      <TrendChart series={series} deployments={deployments} />
      <PointsTable series={series} />
    </>
  );
}
