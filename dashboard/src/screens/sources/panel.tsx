/**
 * One panel of the Sources screen: the top values of a dimension (GET /api/v1/breakdown), a
 * small table sortable by any column, "Show 10 more" raising the limit, of the visitors the
 * report filters let through. A value's row adds it to the filters (not the null row: visitors
 * without a value cannot be filtered on, nor the `other` row, which names none). Its dimension
 * choice, sort and row count live in the URL under the panel's id.
 * With today the figures are bands, and the exit pages, which today has not, say why instead.
 */
import { useRef } from "preact/hooks";
import { api, unwrap, type Schemas } from "../../api/client";
import { useLoad } from "../../state/load";
import { query, setQuery } from "../../state/location";
import { period, todayPeriodParams } from "../../state/period";
import { FigureView } from "../../ui/figure";
import { CaptionRange, rangeText } from "../../ui/report-range";
import { bandReason } from "../../ui/band";
import { NO_EXIT_PAGES_TODAY } from "../../ui/report-today";
import { Empty, Failure, Loading } from "../../ui/states";
import { SortHeader, urlSort, type Order } from "../../ui/table-sort";
import { OtherLabel, OTHER_ROW_CLASS } from "../../ui/other-row";
import { filterQuery, filterText, type Filter } from "../../state/filters";
import { FilterButton, rowFilter } from "../../ui/filter-row";
import { RevenueHeaders, RevenueView } from "../../ui/revenue";
import { countryName, dimensionLabel, type Dimension, type PanelSpec } from "./dimensions";

type Report = Schemas["BreakdownReport"];
type Row = Report["rows"][number];
type Column = "value" | "visitors" | "pageviews" | "converting_sessions" | "rate";

/** Rows shown at first, and added by each "Show 10 more". */
export const PAGE = 10;
/** The API's largest page. */
const MAX_ROWS = 1000;
const defaultOrder = (column: Column): Order => (column === "value" ? "asc" : "desc");

/** A value as the panel writes it: a country as its code and English name, anything else as it is. */
function ValueLabel({ dimension, value }: { dimension: Dimension; value: string }) {
  if (dimension !== "country") return <>{value}</>;
  const name = countryName(value);
  return (
    <>
      <code class="sources-code">{value}</code>
      {name && ` ${name}`}
    </>
  );
}

export function BreakdownPanel({
  site,
  spec,
  goal,
  goalName,
  filters,
}: {
  site: string;
  spec: PanelSpec;
  /** The goal whose converting sessions and rate are added; "" for none. */
  goal: string;
  goalName: string;
  filters: readonly Filter[];
}) {
  const param = (name: string) => `${spec.id}_${name}`;
  // The URL's choice; else the filter's dimension where this panel has it (a shared link to
  // ?filter=utm_campaign:launch opens on campaigns, its row marked); else the first.
  const chosen =
    spec.dimensions.find((d) => d.dimension === query.value.get(spec.id)) ??
    spec.dimensions.find((d) => filters.some((f) => f.dimension === d.dimension)) ??
    spec.dimensions[0]!;
  const { dimension } = chosen;
  const columns: readonly Column[] = goal
    ? ["value", "visitors", "pageviews", "converting_sessions", "rate"]
    : ["value", "visitors", "pageviews"];
  const sort = urlSort(columns, "visitors", defaultOrder, { sort: param("sort"), order: param("order") });
  const asked = Number(query.value.get(param("rows")));
  const limit = Number.isInteger(asked) && asked > PAGE ? Math.min(asked, MAX_ROWS) : PAGE;
  const days = todayPeriodParams(period.value);
  // Today has no exit pages nor properties (the API refuses them): the panel says why instead of asking.
  const property = dimension.startsWith("prop:");
  const notToday = (dimension === "exit_page" || property) && days.period === "today";
  // The view: what the figures are of. Sort and row count only reorder or extend it.
  const view = JSON.stringify([site, days, dimension, goal, filters.map(filterText)]);
  const params = {
    site,
    ...days,
    ...filterQuery(filters),
    dimension,
    goal: goal || undefined,
    sort: sort.sort,
    order: sort.order,
    limit,
  };
  // Each answer carries the view it was asked for.
  const load = useLoad(
    () =>
      notToday
        ? Promise.resolve(null)
        : unwrap(api.GET("/api/v1/breakdown", { params: { query: params } })).then((report) => ({ view, report })),
    [JSON.stringify(params)],
  );

  // While another sort or more rows load, the rows of the same view stay (the focus stays on
  // the button pressed); another period, dimension or goal never shows the previous figures.
  const last = useRef<{ view: string; report: Report } | null>(null);
  if (load.status === "ready" && load.data) last.current = load.data;
  const report = last.current?.view === view ? last.current.report : null;
  const busy = load.status === "loading";

  const onSort = (column: Column, order: Order) => {
    const usual = column === "visitors" && order === "desc";
    setQuery({ [param("sort")]: usual ? undefined : column, [param("order")]: usual ? undefined : order }, true);
  };
  const rows = (n: number) => setQuery({ [param("rows")]: n > PAGE ? String(n) : undefined }, true);
  // Written even for the first choice: without it, the filter's dimension would be shown.
  const choose = (next: Dimension) => setQuery({ [spec.id]: next, [param("rows")]: undefined }, true);

  let body;
  if (notToday && property) {
    body = (
      <p class="report-note" role="note">
        No properties for today: they are read from whole days of per-session rows. Choose Yesterday or longer.
      </p>
    );
  } else if (notToday) {
    body = (
      <p class="report-note" role="note">
        No exit pages for today: {NO_EXIT_PAGES_TODAY}. Entry pages are read for today; exit pages for Yesterday or longer.
      </p>
    );
  } else if (load.status === "failed") body = <Failure problem={load.problem} retry={load.reload} />;
  else if (!report) body = <Loading what={spec.title.toLowerCase()} />;
  else if (report.rows.length === 0) {
    body = (
      <Empty>
        <p>No visitors in this period ({rangeText(report.period)}).</p>
      </Empty>
    );
  } else {
    const label = property ? "Value" : dimensionLabel(dimension);
    // A revenue goal's rows carry its revenue (docs/reports.md, Revenue): two more columns.
    const revenue = goal !== "" && report.rows.some((row) => row.total_revenue);
    body = (
      <>
        <div class="table-wrap" aria-busy={busy || undefined}>
          <table class="report-table sources-table">
            <caption>
              {chosen.label}
              {goal && `, converting on ${goalName}`}
              <CaptionRange range={report.period} />
            </caption>
            <thead>
              <tr>
                <SortHeader column="value" label={label} state={sort} defaultOrder={defaultOrder} onSort={onSort} />
                <SortHeader column="visitors" label="Visitors" state={sort} defaultOrder={defaultOrder} onSort={onSort} numeric />
                {/* A property's `pageviews` are the events that carried the value (docs/reports.md). */}
                <SortHeader
                  column="pageviews"
                  label={property ? "Events" : "Pageviews"}
                  state={sort}
                  defaultOrder={defaultOrder}
                  onSort={onSort}
                  numeric
                />
                {goal && (
                  <>
                    <SortHeader
                      column="converting_sessions"
                      label="Converting sessions"
                      state={sort}
                      defaultOrder={defaultOrder}
                      onSort={onSort}
                      numeric
                    />
                    <SortHeader column="rate" label="Rate" state={sort} defaultOrder={defaultOrder} onSort={onSort} numeric />
                  </>
                )}
                {revenue && <RevenueHeaders />}
              </tr>
            </thead>
            <tbody>
              {report.rows.map((row) => (
                <ValueRow
                  key={row.other ? "\u0000other" : (row.value ?? "\u0000none")}
                  row={row}
                  k={report.k}
                  band={bandReason(report.k, report.period)}
                  today={report.period.end !== undefined}
                  dimension={dimension}
                  goal={goal !== ""}
                  revenue={revenue}
                />
              ))}
            </tbody>
          </table>
        </div>
        {report.rows.some((row) => row.value === null && !row.other) && (
          <p class="hint sources-none">
            (none): visitors without a {label.toLowerCase()}
            {none(dimension)}.
          </p>
        )}
        {(report.next_cursor || limit > PAGE) && (
          <div class="table-pager">
            {report.next_cursor && limit < MAX_ROWS && (
              <button type="button" onClick={() => rows(limit + PAGE)}>
                Show {PAGE} more<span class="sr-only"> {chosen.label.toLowerCase()}</span>
              </button>
            )}
            {limit > PAGE && (
              <button type="button" onClick={() => rows(PAGE)}>
                Show the top {PAGE}
                <span class="sr-only"> {chosen.label.toLowerCase()}</span>
              </button>
            )}
          </div>
        )}
      </>
    );
  }

  return (
    <section class="sources-panel" aria-labelledby={`${spec.id}-title`}>
      <div class="sources-panel-head">
        <h2 id={`${spec.id}-title`}>{spec.title}</h2>
        {spec.chooser === "select" && (
          <label class="sources-choose">
            <span>Show</span>
            <select value={dimension} onChange={(event) => choose((event.target as HTMLSelectElement).value as Dimension)}>
              {spec.dimensions
                .filter((d) => !d.group)
                .map((d) => (
                  <option key={d.dimension} value={d.dimension}>
                    {d.label}
                  </option>
                ))}
              {[...new Set(spec.dimensions.flatMap((d) => (d.group ? [d.group] : [])))].map((group) => (
                <optgroup key={group} label={group}>
                  {spec.dimensions
                    .filter((d) => d.group === group)
                    .map((d) => (
                      <option key={d.dimension} value={d.dimension}>
                        {d.label}
                      </option>
                    ))}
                </optgroup>
              ))}
            </select>
          </label>
        )}
        {spec.chooser === "toggle" && (
          <div role="group" aria-label={`${spec.title}: show`} class="segmented">
            {spec.dimensions.map((d) => (
              <button
                key={d.dimension}
                type="button"
                aria-pressed={d.dimension === dimension}
                onClick={() => choose(d.dimension)}
              >
                {d.label}
              </button>
            ))}
          </div>
        )}
      </div>
      {body}
    </section>
  );
}

/** Why a value can be missing, per dimension. */
function none(dimension: Dimension): string {
  if (dimension.startsWith("utm_")) return " (no UTM parameter on the landing page)";
  // A visit without a referrer has one: "Direct / None".
  if (dimension === "source") return " (recorded before sources were)";
  if (dimension === "country") return " (a private address, or one the country database does not place)";
  return " (not known, or recorded before dimensions were)";
}

function ValueRow({
  row,
  k,
  band,
  today,
  dimension,
  goal,
  revenue,
}: {
  row: Row;
  k: number;
  /** The tooltip of today's bands. */
  band: string;
  /** A reading of today's closed hours. */
  today: boolean;
  dimension: Dimension;
  goal: boolean;
  revenue: boolean;
}) {
  const { value } = row;
  // A property whose name has a `:` can be broken down by but not filtered on (docs/reports.md).
  const pickable = !row.other && value !== null && !dimension.slice("prop:".length).includes(":");
  return (
    <tr
      class={row.other ? OTHER_ROW_CLASS : pickable ? "filter-row" : undefined}
      onClick={pickable ? rowFilter(dimension, value) : undefined}
    >
      <th scope="row" class="sources-value">
        {row.other ? (
          <OtherLabel k={k} today={today} />
        ) : value === null ? (
          <span class="muted">(none)</span>
        ) : !pickable ? (
          value
        ) : (
          <FilterButton dimension={dimension} value={value}>
            <ValueLabel dimension={dimension} value={value} />
          </FilterButton>
        )}
      </th>
      <td class="num">
        <FigureView figure={row.visitors} k={k} band={band} />
      </td>
      <td class="num">
        <FigureView figure={row.pageviews} k={k} band={band} />
      </td>
      {goal && (
        <>
          <td class="num">
            {row.converting_sessions && (
              <span class="rate">
                <FigureView figure={row.converting_sessions} k={k} /> of <FigureView figure={row.visitors} k={k} /> sessions
              </span>
            )}
          </td>
          <td class="num">{row.rate && <FigureView figure={row.rate} k={k} format="percent" />}</td>
        </>
      )}
      {revenue && (
        <>
          <td class="num">{row.total_revenue && <RevenueView figure={row.total_revenue} />}</td>
          <td class="num">{row.average_revenue && <RevenueView figure={row.average_revenue} cents />}</td>
        </>
      )}
    </tr>
  );
}
