/**
 * The Overview's trend over the shared period: a chart of visitors, pageviews and conversions
 * with a marker per deployment, and below it a table of every point. A hidden point is a gap in
 * the chart, never a zero; the table writes it as "< k", so no figure lives in the picture only.
 * A point wholly before the site was registered is "no data" (a gap in the chart too), and so
 * are the totals when every point is: nothing was there to count, which "< k" or "≈ 0" would hide.
 * With a comparison (?compare=…), the totals carry their change ("↑ 12 %"), the chart a lighter
 * dashed line of the earlier period's visitors, and the table that line's figures and dates.
 */
import { useMemo } from "preact/hooks";
import { api, ApiProblem, unwrap, type Figure, type Schemas } from "../../api/client";
import { useLoad } from "../../state/load";
import { filterQuery } from "../../state/filters";
import { compareParams, type CompareMode } from "../../state/compare";
import { isHourly, periodParams, type Period } from "../../state/period";
import { TimeChart, type ChartMarker, type ChartSeries, type ShadedSpan } from "../../ui/chart";
import { importedSpans } from "../../ui/imported";
import { beforeSite, FigureView, noDataBefore, SiteFigureView } from "../../ui/figure";
import { formatPoint, siteClock } from "../../ui/time";
import { Empty } from "../../ui/states";
import { hiddenLabel } from "../../ui/hidden";
import { DeltaView, type Delta } from "../../ui/compare";

export type Timeseries = Schemas["TimeseriesReport"];
type Deployment = Schemas["Deployment"];

/** Hourly periods are reported per closed hour (the API refuses days there); the others per day. */
export function useTimeseries(site: string, period: Period, compare: CompareMode | null = null) {
  const filter = filterQuery();
  return useLoad(async () => {
    const query = { site, ...periodParams(period), ...compareParams(period, compare), interval: isHourly(period) ? ("hour" as const) : ("day" as const), ...filter };
    const data = await unwrap(api.GET("/api/v1/timeseries", { params: { query } }));
    // The route can also answer CSV; the dashboard always asks for JSON.
    if (typeof data === "string") throw new ApiProblem(0, "The timeseries came back as text, not JSON.");
    return data;
  }, [site, period.name, period.from, period.to, compare, filter.filter?.join("&")]);
}

const value = (figure: Figure): number | null => (figure.qualifier === "suppressed" ? null : figure.value);

/** A point, with why it is hidden where the API names it. */
type Point = Timeseries["points"][number];

/** When a point ends (ms). */
const pointEnd = (point: Point, interval: Timeseries["interval"]): number => Date.parse(point.start) + (interval === "hour" ? 3_600_000 : 86_400_000);

/** Time before the site was registered, which holds no data — unless it is an imported day. */
const before = (point: Point, interval: Timeseries["interval"], createdAt: number | null): boolean =>
  !point.imported && beforeSite(pointEnd(point, interval), createdAt);

/** The instants the points cover, [first start, last end), in Unix seconds. */
function span(series: Timeseries): [number, number] | null {
  const first = series.points[0];
  const last = series.points.at(-1);
  if (!first || !last) return null;
  return [Date.parse(first.start) / 1000, pointEnd(last, series.interval) / 1000];
}

function TrendChart({ series, deployments, createdAt }: { series: Timeseries; deployments: readonly Deployment[]; createdAt: number | null }) {
  const zone = series.period.timezone;
  // TimeChart redraws when its arrays change: build them once per answer, not per render.
  const times = useMemo(() => series.points.map((p) => siteClock(Date.parse(p.start) / 1000, zone)), [series]);
  const lines = useMemo<ChartSeries[]>(() => {
    const points: Point[] = series.points;
    const at = (figure: (p: Point) => Figure) =>
      points.map((p) => (noDataBefore(figure(p), before(p, series.interval, createdAt)) ? null : value(figure(p))));
    const gapLabel = (index: number) => {
      const point = points[index];
      return point && before(point, series.interval, createdAt) ? "no data" : hiddenLabel(series.k, point?.hidden);
    };
    const lines: ChartSeries[] = [
      { label: "Visitors", values: at((p) => p.visitors), gapLabel },
      { label: "Pageviews", values: at((p) => p.pageviews), gapLabel },
      { label: "Conversions", values: at((p) => p.conversions), gapLabel },
    ];
    // The earlier period's visitors, point by point (the table lists the same figures).
    if (series.comparison) {
      lines.push({
        label: "Visitors, earlier",
        values: points.map((p) => (p.visitors.previous ? value(p.visitors.previous) : null)),
        gapLabel: () => `< ${series.k}`,
        previousOf: 0,
      });
    }
    return lines;
  }, [series, createdAt]);
  const markers = useMemo<ChartMarker[]>(() => {
    const range = span(series);
    if (!range) return [];
    return deployments
      .map((d) => ({ at: Date.parse(d.deployed_at) / 1000, label: d.version }))
      .filter((m) => m.at >= range[0] && m.at < range[1])
      .map((m) => ({ ...m, at: siteClock(m.at, zone) }));
  }, [series, deployments]);
  // Imported days, shaded: from the first one's start to the last one's end.
  const shaded = useMemo<ShadedSpan[]>(
    () =>
      importedSpans(series.points).map(([first, last]) => ({
        from: siteClock(Date.parse(series.points[first]!.start) / 1000, zone),
        to: siteClock(pointEnd(series.points[last]!, series.interval) / 1000, zone),
        label: "imported",
      })),
    [series],
  );
  // To the end of the last point, so a marker in the last day or hour is drawn too.
  const extent = useMemo(() => {
    const range = span(series);
    return range ? ([siteClock(range[0], zone), siteClock(range[1], zone)] as const) : undefined;
  }, [series]);
  const unit = series.interval === "hour" ? "hour" : "day";
  const compared = series.comparison ? `, and the visitors of ${series.comparison.from} to ${series.comparison.to} as a dashed line` : "";
  const described = markers.length ? `, with ${markers.length} deployment ${markers.length === 1 ? "marker" : "markers"} (${markers.map((m) => m.label).join(", ")})` : "";
  const imported = shaded.length ? `; imported days are shaded` : "";
  return (
    <TimeChart
      title={`Chart of visitors, pageviews and conversions per ${unit}${described}${compared}${imported}. Every figure is in the table below.`}
      times={times}
      series={lines}
      markers={markers}
      shaded={shaded}
      span={extent}
    />
  );
}

function PointsTable({ series, createdAt }: { series: Timeseries; createdAt: number | null }) {
  const { k, interval, period } = series;
  const last = series.points.at(-1);
  const allBefore = last !== undefined && before(last, interval, createdAt) && !series.points.some((p) => p.imported);
  const cell = (figure: Figure, before: boolean, hidden?: string, fromHours?: boolean) => (
    <td class="num">
      <SiteFigureView figure={figure} k={k} before={before} hidden={hidden} fromHours={fromHours} />
    </td>
  );
  const points: Point[] = series.points;
  const compared = series.comparison !== undefined;
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
            {compared && (
              <>
                <th scope="col">Compared with</th>
                <th scope="col" class="num">
                  Visitors then
                </th>
                <th scope="col" class="num">
                  Change
                </th>
              </>
            )}
          </tr>
        </thead>
        <tbody>
          {points.map((point) => {
            const noData = before(point, interval, createdAt);
            return (
              <tr key={point.start} class={point.imported ? "imported" : undefined}>
                <th scope="row">
                  <time dateTime={point.start}>{formatPoint(point.start, interval, period.timezone)}</time>
                  {point.imported && <span class="imported-tag"> imported</span>}
                </th>
                {cell(point.visitors, noData, point.hidden, point.from_hours)}
                {cell(point.pageviews, noData, point.hidden, point.from_hours)}
                {cell(point.conversions, noData, point.hidden)}
                {compared && (
                  <>
                    <td>{point.previous_date ?? "–"}</td>
                    <td class="num">{point.visitors.previous && <FigureView figure={point.visitors.previous} k={k} />}</td>
                    <td class="num">{point.visitors.delta && <DeltaView delta={point.visitors.delta as Delta} k={k} />}</td>
                  </>
                )}
              </tr>
            );
          })}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total shown</th>
            {cell(series.totals.visitors, allBefore)}
            {cell(series.totals.pageviews, allBefore)}
            {cell(series.totals.conversions, allBefore)}
            {compared && (
              <>
                <td />
                <td class="num">{series.totals.visitors.previous && <FigureView figure={series.totals.visitors.previous} k={k} />}</td>
                <td class="num">{series.totals.visitors.delta && <DeltaView delta={series.totals.visitors.delta as Delta} k={k} />}</td>
              </>
            )}
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

/** With a comparison: the period's top figures, each with its change ("↑ 12 %") and the earlier figure. */
function TrendTotals({ series }: { series: Timeseries }) {
  const { k, totals, comparison } = series;
  const figures = [
    ["Visitors", totals.visitors],
    ["Pageviews", totals.pageviews],
    ["Conversions", totals.conversions],
  ] as const;
  return (
    <div class="row trend-totals">
      {figures.map(([label, figure]) => (
        <section key={label} class="card overview-card" aria-label={`${label} in the period`}>
          <h3 class="label">{label}</h3>
          <p class="value">
            <FigureView figure={figure} k={k} />
          </p>
          {comparison && figure.previous && figure.delta && (
            <p class="delta">
              <DeltaView delta={figure.delta as Delta} k={k} /> from <FigureView figure={figure.previous} k={k} /> ({comparison.from} to {comparison.to})
            </p>
          )}
        </section>
      ))}
    </div>
  );
}

export function Trend({ series, deployments, createdAt }: { series: Timeseries; deployments: readonly Deployment[]; createdAt: number | null }) {
  if (series.points.length === 0) {
    return (
      <Empty>
        <p>No {series.interval === "hour" ? "hour of this period has closed" : "day of this period is published"} yet. Hours are reported about 25 seconds after they end.</p>
      </Empty>
    );
  }
  return (
    <>
      {series.comparison && <TrendTotals series={series} />}
      <TrendChart series={series} deployments={deployments} createdAt={createdAt} />
      <PointsTable series={series} createdAt={createdAt} />
    </>
  );
}
