/**
 * The Overview's engagement cards (GET /api/v1/aggregate; docs/reports.md, "Engagement"): the
 * bounce rate with the visits it is a share of, the median visit duration and views per visit,
 * for the shared period under the report filters, each with its change when a comparison is on.
 * Each figure reads as every figure does: "< k" where hidden (never 0), "≈" where estimated; the
 * median, where its own histogram bucket holds fewer than k visits, as the range it lies in
 * ("≈ 40–60 s"), as the vitals show their p75. Visits are whole session-days, so Today and
 * 24 hours are not read: one line says so instead, as it does for filters over days the
 * per-session rows no longer cover.
 */
import type { ComponentChildren } from "preact";
import { api, unwrap, type Figure, type Schemas } from "../../api/client";
import { compareParams, type CompareMode } from "../../state/compare";
import { filterQuery } from "../../state/filters";
import { useLoad } from "../../state/load";
import { dayPeriodParams, isHourly, type Period } from "../../state/period";
import { DeltaView } from "../../ui/compare";
import { durationRangeText, FigureView, RangeView, type FigureFormat } from "../../ui/figure";
import { Loaded } from "../../ui/states";

type Aggregate = Schemas["AggregateReport"];
/** A figure of the report, with its earlier side and change when compared. */
type Compared = Schemas["ReportFigure"];

/** Why the median is a range (the tooltip, with the words of every estimated figure). */
export const MEDIAN_RANGE_REASON =
  "A range: the histogram bucket holding the median has durations of fewer than k visits, so the median is given as the smallest fixed range of buckets around it that holds k visits' durations.";

/** The median visit duration: its value where shown, else the range it lies in, else "< k". */
function DurationView({
  value,
  low,
  high,
  k,
}: {
  value: Figure;
  low?: Figure | undefined;
  high?: Figure | undefined;
  k: number;
}) {
  if (value.value !== null || !low || !high || low.value === null || high.value === null) {
    return <FigureView figure={value} k={k} format="duration" />;
  }
  return <RangeView text={durationRangeText(low.value, high.value)} why={MEDIAN_RANGE_REASON} />;
}

/**
 * "↑ 12 % from 48 % (2026-11-12 to 2026-11-18)", as the trend's totals write their change.
 * `ranged`: a side is shown only as a range (the median), so there is no change to write, and
 * "< k" would read as a few seconds.
 */
function Change({
  figure,
  report,
  format,
  previous,
  ranged = false,
}: {
  figure: Compared;
  report: Aggregate;
  format: FigureFormat;
  previous: ComponentChildren;
  ranged?: boolean;
}) {
  const { comparison, k } = report;
  if (!comparison || !figure.previous || !figure.delta) return null;
  return (
    <p class="delta">
      {ranged ? (
        <span class="delta-change" data-delta="range">
          change not shown (a range)
        </span>
      ) : (
        <DeltaView delta={figure.delta} k={k} format={format} />
      )}{" "}
      from {previous} ({comparison.from} to {comparison.to})
    </p>
  );
}

/** True when the median is no value but its range is shown. */
const onlyRange = (value?: Figure, low?: Figure, high?: Figure): boolean =>
  value?.value === null && typeof low?.value === "number" && typeof high?.value === "number";

function Card({ label, value, children }: { label: string; value: ComponentChildren; children?: ComponentChildren }) {
  return (
    <section class="card overview-card" aria-label={`${label} in the period`}>
      <h3 class="label">{label}</h3>
      <p class="value">{value}</p>
      {children}
    </section>
  );
}

function Cards({ report }: { report: Aggregate }) {
  const { k } = report;
  const {
    bounce_rate: bounceRate,
    views_per_visit: perVisit,
    visit_duration: duration,
    visit_duration_low: low,
    visit_duration_high: high,
  } = report.results;
  return (
    <div class="row trend-totals engagement-cards">
      <Card label="Bounce rate" value={<FigureView figure={bounceRate} k={k} format="percent" />}>
        <p class="delta rate-of">
          of <FigureView figure={bounceRate.denominator} k={k} /> visits
        </p>
        <Change
          figure={bounceRate}
          report={report}
          format="percent"
          previous={bounceRate.previous && <FigureView figure={bounceRate.previous} k={k} format="percent" />}
        />
      </Card>
      <Card label="Visit duration" value={<DurationView value={duration} low={low} high={high} k={k} />}>
        <p class="delta">median</p>
        <Change
          figure={duration}
          report={report}
          format="duration"
          previous={duration.previous && <DurationView value={duration.previous} low={low.previous} high={high.previous} k={k} />}
          ranged={onlyRange(duration, low, high) || onlyRange(duration.previous, low.previous, high.previous)}
        />
      </Card>
      <Card label="Views per visit" value={<FigureView figure={perVisit} k={k} format="decimal" />}>
        <Change
          figure={perVisit}
          report={report}
          format="decimal"
          previous={perVisit.previous && <FigureView figure={perVisit.previous} k={k} format="decimal" />}
        />
      </Card>
    </div>
  );
}

function EngagementCards({ site, period, compare }: { site: string; period: Period; compare: CompareMode | null }) {
  const filter = filterQuery();
  const load = useLoad(
    () =>
      unwrap(
        api.GET("/api/v1/aggregate", {
          params: { query: { site, ...dayPeriodParams(period), ...compareParams(period, compare), ...filter } },
        }),
      ),
    [site, period.name, period.from, period.to, compare, filter.filter?.join("&")],
  );
  // Filters over days the per-session rows no longer cover: one line, the way out is in the
  // trend's note below (the daily timeseries may reach further with one session filter).
  if (load.status === "failed" && load.problem.field === "filter") {
    return (
      <p class="report-note engagement-refused" role="note">
        Bounce rate, visit duration and views per visit cannot be read with filters over this period.{" "}
        {load.problem.message.replace(/^filter: /, "").replace(/^./, (c) => c.toUpperCase())}
      </p>
    );
  }
  return (
    <Loaded load={load} what="the engagement figures">
      {(report) => <Cards report={report} />}
    </Loaded>
  );
}

/** The cards for a period of whole days; for Today and 24 hours, why there are none. */
export function Engagement({ site, period, compare }: { site: string; period: Period; compare: CompareMode | null }) {
  if (isHourly(period)) {
    return (
      <p class="report-note engagement-days" role="note">
        Bounce rate, visit duration and views per visit are read by whole days, since a visit goes on after an hour closes: pick
        Yesterday, 7 days or 30 days to see them.
      </p>
    );
  }
  return <EngagementCards site={site} period={period} compare={compare} />;
}
