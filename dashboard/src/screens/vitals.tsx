/**
 * Vitals: the 75th percentile of each Web Vital per page (GET /api/v1/vitals), with the share
 * of samples rated good, needs improvement and poor. Metric, path pattern, sort and cursor
 * live in the URL. The report filters apply (state/filters.ts).
 */
import { api, unwrap, type Schemas } from "../api/client";
import { useLoad } from "../state/load";
import { query, setQuery } from "../state/location";
import { filterQuery } from "../state/filters";
import { dayPeriodParams, period } from "../state/period";
import { FigureView, RangeView } from "../ui/figure";
import { Freshness } from "../ui/freshness";
import { CaptionRange } from "../ui/report-range";
import { VITALS_BY_DAY, WholeDayNote } from "../ui/report-days";
import { RatingBar } from "../ui/rating-bar";
import { Empty, Loaded } from "../ui/states";
import { PatternFilter } from "../ui/table-filter";
import { Pager, urlCursor, useCursorReset } from "../ui/table-pager";
import { SortHeader, urlSort, type SortState } from "../ui/table-sort";
import { OtherLabel, OTHER_ROW_CLASS } from "../ui/other-row";


type Report = Schemas["VitalsReport"];
type Metric = Report["rows"][number]["metric"];
type Column = "samples" | "p75" | "path";

const COLUMNS: readonly Column[] = ["samples", "p75", "path"];
const defaultOrder = (column: Column) => (column === "path" ? "asc" : "desc");

const METRICS: readonly { name: Metric; label: string; thresholds: string }[] = [
  { name: "LCP", label: "Largest Contentful Paint", thresholds: "good ≤ 2.5 s, poor > 4 s" },
  { name: "INP", label: "Interaction to Next Paint", thresholds: "good ≤ 200 ms, poor > 500 ms" },
  { name: "CLS", label: "Cumulative Layout Shift", thresholds: "good ≤ 0.1, poor > 0.25" },
  { name: "FCP", label: "First Contentful Paint", thresholds: "good ≤ 1.8 s, poor > 3 s" },
  { name: "TTFB", label: "Time to First Byte", thresholds: "good ≤ 0.8 s, poor > 1.8 s" },
];

export function VitalsScreen({ site }: { site: string }) {
  const days = dayPeriodParams(period.value);
  const sort = urlSort(COLUMNS, "samples", defaultOrder);
  // ?pattern=: the URL's `filter` holds the report filters (state/filters.ts).
  const pattern = query.value.get("pattern") ?? "";
  const metric = METRICS.find((m) => m.name === query.value.get("metric"))?.name;
  const cursor = urlCursor();
  const params = { site, ...days, ...filterQuery(), page: pattern || undefined, metric, sort: sort.sort, order: sort.order };
  const source = JSON.stringify(params);
  useCursorReset(JSON.stringify(days));
  // The route also answers CSV and NDJSON; without an Accept header it answers JSON.
  const read = () => unwrap(api.GET("/api/v1/vitals", { params: { query: { ...params, cursor } } }));
  const load = useLoad(read, [source, cursor]);
  const patternProblem = load.status === "failed" && load.problem.field === "page" ? load.problem : undefined;

  return (
    <>
      <WholeDayNote what="Vitals" site={site} why={VITALS_BY_DAY} />
      <div class="report-tools">
        <PatternFilter id="vitals-pattern" value={pattern} problem={patternProblem} onApply={(p) => setQuery({ pattern: p || undefined, cursor: undefined })} />
        <label class="report-select">
          Metric
          <select value={metric ?? ""} onChange={(event) => setQuery({ metric: (event.target as HTMLSelectElement).value || undefined, cursor: undefined })}>
            <option value="">All metrics</option>
            {METRICS.map((m) => (
              <option key={m.name} value={m.name}>
                {m.name} ({m.label})
              </option>
            ))}
          </select>
        </label>
      </div>
      <details class="report-thresholds">
        <summary>Thresholds</summary>
        <p>
          p75: three in four samples were at most this. Where the histogram bucket holding it has samples of fewer than k sessions, it is given as
          the smallest fixed range around it that holds k sessions' samples ("≈ 2.4–3.5 s"). Samples are rated on the standard thresholds:
        </p>
        <ul>
          {METRICS.map((m) => (
            <li key={m.name}>
              <abbr title={m.label}>{m.name}</abbr>: {m.thresholds}
            </li>
          ))}
        </ul>
      </details>
      {!patternProblem && (
        <Loaded load={load} what="vitals">
          {(report) => (
            <>
              <Freshness
                range={report.period}
                next={report.next_figures}
                empty={report.rows.length === 0 && !pattern && !metric && !cursor}
                imported={report.imported}
              />
              <VitalsTable report={report} sort={sort} filtered={Boolean(pattern || metric)} />
            </>
          )}
        </Loaded>
      )}
    </>
  );
}

function VitalsTable({ report, sort, filtered }: { report: Report; sort: SortState<Column>; filtered: boolean }) {
  const { k } = report;
  if (report.rows.length === 0 && !urlCursor()) {
    return (
      <Empty>
        {filtered ? (
          <p>No vitals match this filter in this period. Try another pattern or metric, or clear the filter.</p>
        ) : (
          <p>
            No Web Vitals measured in this period. The snippet sends them from browsers that measure them, once a page is left or hidden; pick a longer
            period, or check that the snippet is installed.
          </p>
        )}
      </Empty>
    );
  }
  return (
    <>
      <div class="table-wrap">
        <table class="report-table">
          <caption>
            Web Vitals by page
            <CaptionRange range={report.period} />
          </caption>
          <thead>
            <tr>
              <SortHeader column="path" label="Path" state={sort} defaultOrder={defaultOrder} />
              <th scope="col">Metric</th>
              <SortHeader column="p75" label="p75" state={sort} defaultOrder={defaultOrder} numeric />
              <th scope="col">Rating</th>
              <SortHeader column="samples" label="Samples" state={sort} defaultOrder={defaultOrder} numeric />
            </tr>
          </thead>
          <tbody>
            {report.rows.map((row) => (
              <tr key={`${row.path ?? "\u0000other"} ${row.metric}`} class={row.other ? OTHER_ROW_CLASS : undefined}>
                <th scope="row" class="report-path">
                  {row.other ? <OtherLabel k={k} what="pages" /> : row.path}
                </th>
                <td>
                  <abbr title={METRICS.find((m) => m.name === row.metric)?.label}>{row.metric}</abbr>
                </td>
                <td class="num">
                  <P75View row={row} k={k} />
                </td>
                <td>
                  <RatingBar good={row.good} needs={row.needs_improvement} poor={row.poor} k={k} />
                </td>
                <td class="num">
                  <FigureView figure={row.samples} k={k} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {report.rows.length === 0 && <p>No more rows.</p>}
      <Pager label="Vitals" nextCursor={report.next_cursor} />
    </>
  );
}

const seconds = new Intl.NumberFormat("en", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const plain = new Intl.NumberFormat("en", { maximumFractionDigits: 3 });

/** "2.4–3.5 s", "93–104 ms", "0.05–0.12": a p75 range in the unit of its metric. */
export function rangeText(low: number, high: number, unit: "ms" | "score"): string {
  if (unit === "score") return `${plain.format(low)}–${plain.format(high)}`;
  if (high >= 1000) return `${seconds.format(low / 1000)}–${seconds.format(high / 1000)} s`;
  return `${plain.format(low)}–${plain.format(high)} ms`;
}

const RANGE_REASON =
  "A range: the histogram bucket holding p75 has samples of fewer than k sessions, so p75 is given as the smallest fixed range of buckets around it that holds samples of k sessions.";

/** p75 as a value when shown, else the range it lies in ("≈ 2.4–3.5 s"), else "< k". */
function P75View({ row, k }: { row: Report["rows"][number]; k: number }) {
  const { p75, p75_low: low, p75_high: high } = row;
  if (p75.value !== null || low.value === null || high.value === null) {
    return <FigureView figure={p75} k={k} format={row.unit === "ms" ? "ms" : "decimal"} />;
  }
  return <RangeView text={rangeText(low.value, high.value, row.unit)} why={RANGE_REASON} />;
}
