/**
 * The compared reports' cases of the reports bench (bench/reports.ts): 14 days (`from`/`to`)
 * against the 14 before (`compare=previous`), both inside the generated month, each computed as
 * the route computes it (reports/compare.ts comparedReport, without its cache), beside the plain
 * 14 days of pages. Target: p95 ≤ 150 ms computed, ≤ 10 ms cached (1 M events).
 */
import type { ReadOnlyDatabase } from "../worker/lib/read-only";
import { breakdownReport } from "../worker/reports/breakdown";
import { absentFigure, comparisonPeriod, periodHasVisitors } from "../worker/reports/compare";
import {
  compareBreakdown,
  compareConversions,
  compareFunnel,
  comparePages,
  compareTimeseries,
  compareVitals,
} from "../worker/reports/compared";
import { conversionsReport } from "../worker/reports/conversions";
import type { Figure } from "../worker/reports/figures";
import { funnelReport } from "../worker/reports/funnels";
import { pagesReport } from "../worker/reports/pages";
import type { ReportScope } from "../worker/reports/scope";
import { timeseriesReport } from "../worker/reports/timeseries";
import { addDays } from "../worker/reports/timezone";
import { vitalsReport } from "../worker/reports/vitals";

export interface ComparedCase {
  name: string;
  path: string;
  raw: string[];
  compute: (db: ReadOnlyDatabase) => Promise<unknown>;
}

/** Both sides, whether the earlier one had visitors, and the merge: what a compared request computes. */
async function comparedCompute<T>(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  compute: (s: ReportScope) => Promise<T>,
  merge: (current: T, previous: T, absent: Figure) => T,
): Promise<T> {
  const earlier = comparisonPeriod(scope, "previous");
  const previousScope = { ...scope, from: earlier.from, to: earlier.to };
  const [current, previous, any] = await Promise.all([
    compute(scope),
    compute(previousScope),
    periodHasVisitors(db, previousScope),
  ]);
  return merge(current, previous, absentFigure(any));
}

export function comparedCases(site: string, goals: string[], to: string, scope: (from: string) => ReportScope): ComparedCase[] {
  const from = addDays(to, -13);
  const fortnight = scope(from);
  const q = `site=${site}&from=${from}&to=${to}`;
  // The raw scans cover both fortnights.
  const range = `site_id = '${site}' AND ts >= ${Date.parse(`${addDays(to, -27)}T00:00:00Z`)} AND ts < ${Date.parse(`${addDays(to, 1)}T00:00:00Z`)}`;
  const pagesRaw =
    `SELECT path, sum(v) AS visitors, sum(pv) AS pageviews FROM (SELECT path, date(ts / 1000, 'unixepoch') AS day, count(DISTINCT session_id) AS v, count(*) AS pv ` +
    `FROM events WHERE ${range} AND kind = 'pageview' GROUP BY path, day) GROUP BY path ORDER BY visitors DESC LIMIT 100`;
  return [
    { name: "pages 14d", path: `/api/v1/pages?${q}&limit=100`, compute: (db) => pagesReport(db, fortnight), raw: [pagesRaw] },
    {
      name: "pages 14d +compare",
      path: `/api/v1/pages?${q}&limit=100&compare=previous`,
      compute: (db) => comparedCompute(db, fortnight, (s) => pagesReport(db, s), comparePages),
      raw: [pagesRaw],
    },
    {
      name: "vitals 14d +compare",
      path: `/api/v1/vitals?${q}&limit=100&compare=previous`,
      compute: (db) =>
        comparedCompute(db, fortnight, (s) => vitalsReport(db, s, {}, (rows) => rows.slice(0, 100)), compareVitals),
      raw: [
        `SELECT path, metric, count(*), count(DISTINCT session_id) FROM vitals WHERE ${range} GROUP BY path, metric ORDER BY 3 DESC LIMIT 100`,
      ],
    },
    {
      name: "conversions 14d +cmp",
      path: `/api/v1/conversions?${q}&compare=previous`,
      compute: (db) => comparedCompute(db, fortnight, (s) => conversionsReport(db, s), compareConversions),
      raw: [`SELECT goal_id, count(*), count(DISTINCT session_id) FROM conversions WHERE ${range} GROUP BY goal_id`],
    },
    {
      name: "funnels 14d +compare",
      path: `/api/v1/funnels?${q}&goals=${goals.join(",")}&compare=previous`,
      compute: (db) => comparedCompute(db, fortnight, (s) => funnelReport(db, s, goals), compareFunnel),
      raw: [`SELECT goal_id, count(DISTINCT session_id) FROM conversions WHERE ${range} GROUP BY goal_id`],
    },
    {
      name: "timeseries 14d +cmp",
      path: `/api/v1/timeseries?${q}&compare=previous`,
      compute: (db) => comparedCompute(db, fortnight, (s) => timeseriesReport(db, s, "day"), compareTimeseries("previous", 14)),
      raw: [
        `SELECT date(ts / 1000, 'unixepoch') AS day, count(DISTINCT session_id), sum(kind = 'pageview') FROM events WHERE ${range} GROUP BY day`,
      ],
    },
    {
      name: "breakdown src 14d +cmp",
      path: `/api/v1/breakdown?${q}&dimension=source&compare=previous`,
      compute: (db) => comparedCompute(db, fortnight, (s) => breakdownReport(db, s, "source"), compareBreakdown),
      raw: [
        `SELECT source, sum(v) FROM (SELECT day, source, count(*) AS v FROM (SELECT session_id, date(ts / 1000, 'unixepoch') AS day, source, min(id) FROM events ` +
          `WHERE ${range} AND kind = 'pageview' GROUP BY session_id, day)) GROUP BY source`,
      ],
    },
  ];
}
