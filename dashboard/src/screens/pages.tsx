/**
 * Pages: visitors and pageviews per path over whole days, or today's closed hours as bands
 * ("10–14"; GET /api/v1/pages?period=today), never the last 24 hours (that reads yesterday and
 * says why). The report filters apply (state/filters.ts); a row's path adds `page:` to them.
 * Sort, path pattern and page cursor live in the URL, so any view can be bookmarked; "Download CSV" gives every row of the same view (with today, each band's upper end too).
 */
import { api, unwrap, type Schemas } from "../api/client";
import { useLoad } from "../state/load";
import { linkTo, query, setQuery } from "../state/location";
import { filterQuery } from "../state/filters";
import { period, todayPeriodParams } from "../state/period";
import { FilterButton, rowFilter } from "../ui/filter-row";
import { FigureView } from "../ui/figure";
import { CsvDownload } from "../ui/report-csv";
import { Freshness } from "../ui/freshness";
import { CaptionRange } from "../ui/report-range";
import { bandReason } from "../ui/band";
import { BandsHint, RollingDayNote } from "../ui/report-today";
import { Empty, Loaded } from "../ui/states";
import { PatternFilter } from "../ui/table-filter";
import { Pager, urlCursor, useCursorReset } from "../ui/table-pager";
import { useVerified } from "./overview/empty";
import { SortHeader, urlSort, type SortState } from "../ui/table-sort";
import { OtherLabel, OTHER_ROW_CLASS } from "../ui/other-row";

type Column = "visitors" | "pageviews" | "path";
const COLUMNS: readonly Column[] = ["visitors", "pageviews", "path"];
const defaultOrder = (column: Column) => (column === "path" ? "asc" : "desc");

export function PagesScreen({ site }: { site: string }) {
  const days = todayPeriodParams(period.value);
  const today = days.period === "today";
  const sort = urlSort(COLUMNS, "visitors", defaultOrder);
  // ?pattern=: the URL's `filter` holds the report filters (state/filters.ts).
  const pattern = query.value.get("pattern") ?? "";
  const cursor = urlCursor();
  const params = { site, ...days, ...filterQuery(), page: pattern || undefined, sort: sort.sort, order: sort.order };
  const source = JSON.stringify(params);
  useCursorReset(JSON.stringify(days));
  // The route also answers CSV and NDJSON; without an Accept header it answers JSON.
  const read = () => unwrap(api.GET("/api/v1/pages", { params: { query: { ...params, cursor } } }));
  const load = useLoad(read, [source, cursor]);
  // A pattern the API refuses belongs next to the filter, not in place of the screen.
  const patternProblem = load.status === "failed" && load.problem.field === "page" ? load.problem : undefined;
  const readCsv = () =>
    unwrap(api.GET("/api/v1/pages", { params: { query: params }, parseAs: "text", headers: { accept: "text/csv" } }));

  return (
    <>
      <RollingDayNote what="Pages" />
      <div class="report-tools">
        <PatternFilter
          id="pages-pattern"
          value={pattern}
          problem={patternProblem}
          onApply={(p) => setQuery({ pattern: p || undefined, cursor: undefined })}
        />
        {load.status === "ready" && (
          <CsvDownload
            source={source}
            read={readCsv}
            filename={`pages-${site}-${load.data.period.from}-${load.data.period.to}.csv`}
          />
        )}
      </div>
      {!patternProblem && (
        <Loaded load={load} what="pages">
          {(report) => (
            <>
              <Freshness
                range={report.period}
                next={report.next_figures}
                // Today with no rows still covers its closed hours: the line says through when.
                empty={!today && report.rows.length === 0 && !pattern && !cursor}
                imported={report.imported}
              />
              <PagesTable site={site} report={report} sort={sort} pattern={pattern} />
            </>
          )}
        </Loaded>
      )}
    </>
  );
}

/**
 * Why a period has no pages. Whole days are published about 25 seconds after the day ends in the
 * site's zone, today's hours shortly after each ends (docs/reports.md, Freshness): a
 * verified site's first hours show nothing until then, which says nothing about the snippet.
 * Only a site no beacon has reached is told to check it.
 */
function NoPagesYet({ site, timeZone, today }: { site: string; timeZone: string; today: boolean }) {
  const verified = useVerified(site);
  if (verified === false) {
    return (
      <p>
        No pageview has arrived from this site yet. Check that the snippet is installed: the Add site wizard shows it and says
        when the first pageview arrives.
      </p>
    );
  }
  if (today) {
    return (
      <p>
        No pageviews in today's closed hours yet. Each hour's pages appear shortly after it ends in the site's time zone:{" "}
        {timeZone}.
      </p>
    );
  }
  return (
    <p>
      No pageviews in this period yet. Pages appear once the day ends: a day is published about 25 seconds after midnight in the
      site's time zone ({timeZone}). Today's closed hours are under{" "}
      <a href={`${linkTo(`/s/${encodeURIComponent(site)}/pages`, [])}?period=today`}>Today</a>.
    </p>
  );
}

function PagesTable({
  site,
  report,
  sort,
  pattern,
}: {
  site: string;
  report: Schemas["PagesReport"];
  sort: SortState<Column>;
  pattern: string;
}) {
  const { k } = report;
  // Today's rows are bands (the API adds `high`); whole days never have one.
  const today = report.period.end !== undefined;
  const band = bandReason(k, report.period);
  if (report.rows.length === 0 && !urlCursor()) {
    return (
      <Empty>
        {pattern ? (
          <p>No page matches {pattern} in this period. Try another pattern, or clear the filter.</p>
        ) : (
          <NoPagesYet site={site} timeZone={report.period.timezone} today={today} />
        )}
      </Empty>
    );
  }
  return (
    <>
      <div class="table-wrap">
        <table class="report-table">
          <caption>
            Pages by path{pattern && `, matching ${pattern}`}
            <CaptionRange range={report.period} />
          </caption>
          <thead>
            <tr>
              <SortHeader column="path" label="Path" state={sort} defaultOrder={defaultOrder} />
              <SortHeader column="visitors" label="Visitors" state={sort} defaultOrder={defaultOrder} numeric />
              <SortHeader column="pageviews" label="Pageviews" state={sort} defaultOrder={defaultOrder} numeric />
            </tr>
          </thead>
          <tbody>
            {report.rows.map((row) => (
              <tr
                key={row.path ?? "\u0000other"}
                class={row.other ? OTHER_ROW_CLASS : row.path ? "filter-row" : undefined}
                onClick={row.other ? undefined : rowFilter("page", row.path)}
              >
                <th scope="row" class="report-path">
                  {row.other ? (
                    <OtherLabel k={k} what="pages" today={report.period.end !== undefined} />
                  ) : row.path ? (
                    <FilterButton dimension="page" value={row.path}>
                      {row.path}
                    </FilterButton>
                  ) : (
                    row.path
                  )}
                </th>
                <td class="num">
                  <FigureView figure={row.visitors} k={k} band={band} />
                </td>
                <td class="num">
                  <FigureView figure={row.pageviews} k={k} band={band} />
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">{pattern ? "All matching pages" : "All pages"}</th>
              <td class="num">
                {/* Distinct visitors do not add up across pages: one session can view several. */}
                <span aria-hidden="true" title="Not added up: one visitor can view several pages.">
                  —
                </span>
                <span class="sr-only">Visitors are not added up across pages: one visitor can view several.</span>
              </td>
              <td class="num">
                <FigureView figure={report.totals.pageviews} k={k} band={bandReason(k, report.period, true)} />
              </td>
            </tr>
          </tfoot>
        </table>
      </div>
      {report.rows.length === 0 && <p>No more rows.</p>}
      {today && <BandsHint k={k} />}
      <p class="hint">Totals add up the rows shown over all pages of the list; hidden rows (&lt; {k}) are left out.</p>
      <Pager label="Pages" nextCursor={report.next_cursor} />
    </>
  );
}
