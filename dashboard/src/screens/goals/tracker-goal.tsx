/**
 * What a tracker goal counted, opened under its row of the conversions table: an `outbound`
 * goal's links by host (`dimension=prop:url&goal=ID`), a `download` goal's files
 * (`dimension=prop:file&goal=ID`), a `not-found` goal's missing paths (`dimension=prop:path&goal=ID`:
 * the collector gives each `404` event its own path as that prop). One table for the three, every figure through the k-filter as elsewhere: hidden
 * values in the `other` row, qualifiers drawn by FigureView. Whole days only (properties and
 * filters are read from per-session rows): an hourly period reads yesterday, and says so.
 */
import { api, unwrap, type Figure } from "../../api/client";
import { filterQuery, filters, filterText, type Filter } from "../../state/filters";
import { useLoad } from "../../state/load";
import { dayPeriodParams, isHourly, period } from "../../state/period";
import { FigureView } from "../../ui/figure";
import { OtherLabel, OTHER_ROW_CLASS } from "../../ui/other-row";
import { CaptionRange } from "../../ui/report-range";
import { Empty, Loaded } from "../../ui/states";

export type TrackerKind = "outbound" | "download" | "not-found";

/** Per kind: what its rows are, and the button that opens them. */
export const TRACKER_DETAIL: Readonly<Record<TrackerKind, { show: string; column: string; caption: string; what: string }>> = {
  outbound: { show: "Show hosts", column: "Host", caption: "Outbound clicks by host", what: "hosts" },
  download: { show: "Show files", column: "File", caption: "Downloads by file", what: "files" },
  "not-found": { show: "Show paths", column: "Path", caption: "Missing pages by path", what: "paths" },
};

export const isTrackerKind = (kind: string): kind is TrackerKind => Object.hasOwn(TRACKER_DETAIL, kind);

/** The prop each kind's events carry (docs/collector.md, reserved props; `path` the collector's own). */
const PROP: Readonly<Record<TrackerKind, string>> = { outbound: "prop:url", download: "prop:file", "not-found": "prop:path" };

interface DetailRow {
  label: string | null;
  other: boolean;
  visitors: Figure;
  events: Figure;
}

const GOALS_LIMIT = 50;

export function TrackerGoalDetail({ site, goal, kind, name }: { site: string; goal: string; kind: TrackerKind; name: string }) {
  const days = dayPeriodParams(period.value);
  const list: readonly Filter[] = filters.value;
  const { filter } = filterQuery(list);
  const spec = TRACKER_DETAIL[kind];
  const load = useLoad(async () => {
    const report = await unwrap(
      api.GET("/api/v1/breakdown", {
        params: {
          query: { site, ...days, filter, dimension: PROP[kind], goal, sort: "visitors", order: "desc", limit: GOALS_LIMIT },
        },
      }),
    );
    const rows: DetailRow[] = report.rows.map((r) => ({
      label: r.value,
      other: r.other,
      visitors: r.visitors,
      events: r.pageviews,
    }));
    return { k: report.k, period: report.period, rows };
  }, [site, goal, JSON.stringify(days), list.map(filterText).join()]);
  return (
    <div class="tracker-goal-detail">
      {isHourly(period.value) && (
        <p class="report-note" role="note">
          Read for yesterday: these rows come from whole days of per-session rows.
        </p>
      )}
      <Loaded load={load} what={`the ${spec.what}`}>
        {(data) =>
          data.rows.length === 0 ? (
            <Empty>
              <p>Nothing recorded for {name} in this period.</p>
            </Empty>
          ) : (
            <table class="report-table tracker-goal-table">
              <caption>
                {spec.caption}, {name}
                <CaptionRange range={data.period} />
              </caption>
              <thead>
                <tr>
                  <th scope="col">{spec.column}</th>
                  <th scope="col" class="num">
                    Visitors
                  </th>
                  <th scope="col" class="num">
                    {kind === "not-found" ? "Hits" : "Clicks"}
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.rows.map((row) => (
                  <tr
                    key={row.other ? "\u0000other" : (row.label ?? "\u0000none")}
                    class={row.other ? OTHER_ROW_CLASS : undefined}
                  >
                    <th scope="row">
                      {row.other ? <OtherLabel k={data.k} what={spec.what} /> : <code>{row.label ?? "(none)"}</code>}
                    </th>
                    <td class="num">
                      <FigureView figure={row.visitors} k={data.k} />
                    </td>
                    <td class="num">
                      <FigureView figure={row.events} k={data.k} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Loaded>
    </div>
  );
}
