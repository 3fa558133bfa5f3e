/**
 * Conversions per goal over the period (GET /api/v1/conversions): conversions counted, and
 * the rate written with its denominator ("6 of 8 sessions, 75 %"). This report reads today's
 * and the last 24 hours' closed hours too, so it takes the period as picked; and the report
 * filters (state/filters.ts), a goal's row adding `goal:` to them.
 */
import { api, unwrap, type Schemas } from "../../api/client";
import { useLoad } from "../../state/load";
import { filterQuery } from "../../state/filters";
import { period, periodParams } from "../../state/period";
import { FilterButton, rowFilter } from "../../ui/filter-row";
import { FigureView, RateView } from "../../ui/figure";
import { Freshness } from "../../ui/freshness";
import { CaptionRange } from "../../ui/report-range";
import { Empty, Loaded } from "../../ui/states";

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
          <Freshness range={report.period} next={report.next_figures} />
          <ConversionsTable report={report} />
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
  of = "",
  sessions = "sessions on the site",
  empty = "Create a goal above: its conversions appear here once visitors reach it (smoke-test goals are shown with deployments instead).",
}: {
  report: Report;
  of?: string;
  sessions?: string;
  empty?: string;
}) {
  const { k } = report;
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
            </tr>
          </thead>
          <tbody>
            {report.rows.map((row) => (
              <tr key={row.goal.id} class="filter-row" onClick={rowFilter("goal", row.goal.id)}>
                <th scope="row">
                  <FilterButton dimension="goal" value={row.goal.id}>
                    {row.goal.name}
                  </FilterButton>
                </th>
                <td class="num">
                  <FigureView figure={row.conversions} k={k} />
                </td>
                <td>
                  <RateView numerator={row.converting_sessions} denominator={row.sessions} rate={row.rate} k={k} />
                </td>
              </tr>
            ))}
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
            </tr>
          </tfoot>
        </table>
      </div>
      {report.next_cursor && <p class="hint">Showing the first {LIMIT} goals.</p>}
    </>
  );
}
