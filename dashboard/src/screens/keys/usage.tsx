/**
 * A key's call counters (GET /api/v1/keys/{id}/usage?days=30): calls per UTC day, summed over
 * routes, as a chart and as a table of the same numbers; and the calls per route.
 */
import type { JSX } from "preact";
import { useMemo } from "preact/hooks";
import { DetailPanel } from "../../ui/panel";
import { api, unwrap, type ApiKey, type Schemas } from "../../api/client";
import { useLoad } from "../../state/load";
import { TimeChart, type ChartMarker, type ChartSeries } from "../../ui/chart";
import { formatValue } from "../../ui/figure";
import { Empty, Loaded } from "../../ui/states";

type Usage = Schemas["KeyUsage"]["usage"];

const DAYS = 30;
const DAY_MS = 86_400_000;
const NO_MARKERS: ChartMarker[] = [];

/** The last DAYS UTC days, oldest first, each with its calls (0 where the API lists none). */
export function callsPerDay(usage: Usage, now = Date.now()): { day: string; calls: number }[] {
  const totals = new Map<string, number>();
  for (const row of usage) totals.set(row.day, (totals.get(row.day) ?? 0) + row.calls);
  return Array.from({ length: DAYS }, (_, i) => {
    const day = new Date(now - (DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10);
    return { day, calls: totals.get(day) ?? 0 };
  });
}

function callsPerRoute(usage: Usage): { route: string; calls: number }[] {
  const totals = new Map<string, number>();
  for (const row of usage) totals.set(row.route, (totals.get(row.route) ?? 0) + row.calls);
  return [...totals]
    .map(([route, calls]) => ({ route, calls }))
    .sort((a, b) => b.calls - a.calls || a.route.localeCompare(b.route));
}

/** One of the two tables: a row header per day or route, and its calls. */
function CallsTable({
  caption,
  label,
  rows,
}: {
  caption: string;
  label: string;
  rows: { key: string; head: JSX.Element; calls: number }[];
}) {
  return (
    <div class="table-wrap">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{label}</th>
            <th scope="col" class="num">
              Calls
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              <th scope="row">{row.head}</th>
              <td class="num">{formatValue(row.calls)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function UsageView({ name, usage }: { name: string; usage: Usage }) {
  const days = useMemo(() => callsPerDay(usage), [usage]);
  // Noon UTC: the chart labels days in the reader's zone, and noon stays on the same date from UTC−11 to UTC+11.
  const times = useMemo(() => days.map((d) => Date.parse(`${d.day}T12:00:00Z`) / 1000), [days]);
  const series = useMemo<ChartSeries[]>(() => [{ label: "Calls", values: days.map((d) => d.calls) }], [days]);
  const routes = useMemo(() => callsPerRoute(usage), [usage]);
  const total = days.reduce((sum, d) => sum + d.calls, 0);
  if (total === 0) {
    return (
      <Empty>
        <p>No calls in the last {DAYS} days. Calls are counted as they are made, refused ones too.</p>
      </Empty>
    );
  }
  return (
    <>
      <p>
        {formatValue(total)} calls in the last {DAYS} days (UTC).
      </p>
      <TimeChart
        title={`Calls per day of ${name}, last ${DAYS} days`}
        times={times}
        series={series}
        markers={NO_MARKERS}
        height={180}
      />
      <div class="key-usage-tables">
        <CallsTable
          caption="Calls per day (UTC)"
          label="Day"
          rows={[...days].reverse().map((d) => ({ key: d.day, head: <time dateTime={d.day}>{d.day}</time>, calls: d.calls }))}
        />
        <CallsTable
          caption="Calls per route"
          label="Route"
          rows={routes.map((r) => ({ key: r.route, head: <code>{r.route}</code>, calls: r.calls }))}
        />
      </div>
    </>
  );
}

export function KeyUsagePanel({ apiKey, onClose }: { apiKey: ApiKey; onClose: () => void }) {
  const load = useLoad(
    () => unwrap(api.GET("/api/v1/keys/{id}/usage", { params: { path: { id: apiKey.id }, query: { days: DAYS } } })),
    [apiKey.id],
  );
  return (
    <DetailPanel
      id="key-usage"
      class="key-usage"
      title={`Calls of ${apiKey.name}`}
      subject={apiKey.id}
      closeLabel="Close usage"
      onRefresh={load.reload}
      onClose={onClose}
    >
      <Loaded load={load} what="the key's calls">
        {(data) => <UsageView name={apiKey.name} usage={data.usage} />}
      </Loaded>
    </DetailPanel>
  );
}
