/**
 * Conversions per goal over the period (GET /api/v1/conversions): conversions counted, and
 * the rate written with its denominator ("6 of 8 sessions, 75 %"). This report reads today's
 * and the last 24 hours' closed hours too, so it takes the period as picked; and the report
 * filters (state/filters.ts), a goal's row adding `goal:` to them. A revenue goal's row adds its
 * total and average revenue in its currency (ui/revenue.tsx); a tracker goal's row (outbound,
 * download, not-found) opens to its hosts, files or missing paths (tracker-goal.tsx).
 */
import { useState } from "preact/hooks";
import { api, unwrap, type Schemas } from "../../api/client";
import { useLoad } from "../../state/load";
import { filterQuery } from "../../state/filters";
import { period, periodParams } from "../../state/period";
import { FilterButton, rowFilter } from "../../ui/filter-row";
import { FigureView, RateView } from "../../ui/figure";
import { Freshness } from "../../ui/freshness";
import { CaptionRange } from "../../ui/report-range";
import { Empty, Loaded } from "../../ui/states";
import { RevenueHeaders, RevenueView } from "../../ui/revenue";
import { isTrackerKind, TRACKER_DETAIL, TrackerGoalDetail } from "./tracker-goal";

type Report = Schemas["ConversionsReport"];

/** Goals per site are few; one page of the largest size holds them all. */
const LIMIT = 1000;

export function ConversionsReport({ site, goalsKey }: { site: string; /** Changes when goals are added or deleted. */ goalsKey: string }) {
  const params = { site, ...periodParams(period.value), ...filterQuery(), limit: LIMIT };
  // The route also answers CSV and NDJSON; without an Accept header it answers JSON.
  const read = () => unwrap(api.GET("/api/v1/conversions", { params: { query: params } }));
  const load = useLoad(read, [JSON.stringify(params), goalsKey]);
  return (
    <Loaded load={load} what="conversions">
      {(report) => (
        <>
          <Freshness range={report.period} next={report.next_figures} imported={report.imported} />
          <ConversionsTable report={report} site={site} />
        </>
      )}
    </Loaded>
  );
}

/**
 * A conversions report as a table; also the Sources screen's, filtered (`of` names whose
 * conversions, `sessions` what its denominator counts).
 */
export function ConversionsTable({
  report,
  site,
  of = "",
  sessions = "sessions on the site",
  empty = "Create a goal above: its conversions appear here once visitors reach it (smoke-test goals are shown with deployments instead).",
}: {
  report: Report;
  /** Where given, a tracker goal's row opens to what it counted. */
  site?: string;
  of?: string;
  sessions?: string;
  empty?: string;
}) {
  const { k } = report;
  const [open, setOpen] = useState<string | null>(null);
  // Revenue columns only where a goal has revenue: a plain goal's report keeps its three.
  const revenue = report.rows.some((row) => row.total_revenue);
  const columns = revenue ? 5 : 3;
  if (report.rows.length === 0) {
    return (
      <Empty>
        <p>No goals to report. {empty}</p>
      </Empty>
    );
  }
  return (
    <>
      <div class="table-wrap">
        <table class="report-table">
          <caption>
            Conversions by goal{of && `, ${of}`}
            <CaptionRange range={report.period} />
          </caption>
          <thead>
            <tr>
              <th scope="col">Goal</th>
              <th scope="col" class="num">
                Conversions
              </th>
              <th scope="col">Converting sessions and rate</th>
              {revenue && <RevenueHeaders />}
            </tr>
          </thead>
          <tbody>
            {report.rows.map((row) => {
              const { kind, id } = row.goal;
              const expandable = site !== undefined && isTrackerKind(kind);
              const expanded = expandable && open === id;
              return [
                <tr key={id} class="filter-row" onClick={rowFilter("goal", id)}>
                  <th scope="row">
                    <FilterButton dimension="goal" value={id}>
                      {row.goal.name}
                    </FilterButton>
                    {expandable && (
                      <button
                        type="button"
                        class="tracker-goal-toggle"
                        aria-expanded={expanded}
                        aria-label={`${TRACKER_DETAIL[kind].show} of ${row.goal.name}`}
                        onClick={() => setOpen(expanded ? null : id)}
                      >
                        {TRACKER_DETAIL[kind].show}
                      </button>
                    )}
                  </th>
                  <td class="num">
                    <FigureView figure={row.conversions} k={k} />
                  </td>
                  <td>
                    <RateView numerator={row.converting_sessions} denominator={row.sessions} rate={row.rate} k={k} />
                  </td>
                  {revenue && (
                    <>
                      <td class="num">{row.total_revenue ? <RevenueView figure={row.total_revenue} /> : <NoRevenue />}</td>
                      <td class="num">
                        {row.average_revenue ? <RevenueView figure={row.average_revenue} cents /> : <NoRevenue />}
                      </td>
                    </>
                  )}
                </tr>,
                expanded && site !== undefined && isTrackerKind(kind) && (
                  <tr key={`${id}-detail`} class="table-panel-row">
                    <td colSpan={columns}>
                      <TrackerGoalDetail site={site} goal={id} kind={kind} name={row.goal.name} />
                    </td>
                  </tr>
                ),
              ];
            })}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">All goals</th>
              <td class="num">
                <FigureView figure={report.totals.conversions} k={k} />
              </td>
              <td>
                <FigureView figure={report.totals.sessions} k={k} /> {sessions}
              </td>
              {revenue && <td colSpan={2} />}
            </tr>
          </tfoot>
        </table>
      </div>
      {report.next_cursor && <p class="hint">Showing the first {LIMIT} goals.</p>}
    </>
  );
}

/** A plain goal's cell in a revenue column: not a zero. */
function NoRevenue() {
  return (
    <>
      <span aria-hidden="true">—</span>
      <span class="sr-only">not a revenue goal</span>
    </>
  );
}
