/**
 * The filtered vitals report: per path and metric, the samples of the filtered units (raw
 * `vitals` rows of their session on their day, kept as long as the per-session rows), each
 * figure a cell through rule F (shown.ts): the row's sessions and samples; each rating group
 * (good, needs improvement, poor) the sessions with a sample in it and those samples, its share
 * over the row's shown samples; p75 as the unfiltered report shows it (histogram.ts
 * quantileRange): the smallest aligned block of buckets around the rank holding samples of k of
 * the row's sessions — here counted exactly, since the samples' sessions are known.
 */
import type { ReadOnlyDatabase } from "../../lib/read-only";
import { VITAL_METRICS } from "../../lib/schema";
import { ratio, SUPPRESSED, type Figure } from "../figures";
import { bandSql, BLOCK_LEVELS, bucketSql, quantileRange, THRESHOLDS, type VitalMetric } from "../histogram";
import { pathFilter } from "../pattern";
import { datesOf } from "../period";
import type { ReportScope } from "../scope";
import { addDays, startOfLocalDay } from "../timezone";
import type { VitalsRow } from "../vitals";
import type { Cell } from "./cells";
import type { Filter } from "./filters";
import { cellFigures, type ExploreOptions } from "./shown";
import { filteredUnits, type Statement } from "./units";

const RATINGS = ["good", "needs_improvement", "poor"] as const;
const RATING_SQL = { good: "good", needs_improvement: "ni", poor: "poor" } as const;

/** One row per sample of a filtered unit: its path, metric, bucket, rating, and the unit. */
function samplesSql(scope: ReportScope, units: Statement): Statement {
  const days = datesOf(scope).map((day) => [
    day,
    startOfLocalDay(scope.timeZone, day),
    startOfLocalDay(scope.timeZone, addDays(day, 1)),
  ]);
  const first = days[0]![1]!;
  const end = days[days.length - 1]![2]!;
  return {
    sql:
      `WITH u AS MATERIALIZED (${units.sql}), d(day, t0, t1) AS (VALUES ${days.map(() => "(?, ?, ?)").join(", ")}), ` +
      "s AS (SELECT u.day || ' ' || u.unit AS unit, u.unit_key AS unit_key, v.path AS path, v.metric AS metric, " +
      `${bucketSql("v.metric", "v.value")} AS bucket, ${RATINGS.map((r) => `${bandSql(RATING_SQL[r], "v.metric", "v.value")} AS ${r}`).join(", ")} ` +
      "FROM vitals v JOIN d ON v.ts >= d.t0 AND v.ts < d.t1 JOIN u ON u.day = d.day AND u.unit = v.session_id " +
      "WHERE v.site_id = ? AND v.ts >= ? AND v.ts < ?)",
    args: [...units.args, ...days.flat(), scope.siteId, first, end],
  };
}

/** A cell per (path, metric, group): its distinct units, samples and the units' key sum. */
const CELLS = (group: string, where = "true") =>
  `SELECT path, metric, ${group} AS grp, count(*) AS units, sum(n) AS events, sum(unit_key) AS key_sum FROM ` +
  `(SELECT path, metric, unit, unit_key, ${group === "'all'" ? "'all'" : group} AS g, count(*) AS n FROM s WHERE ${where} GROUP BY path, metric, unit) ` +
  "GROUP BY path, metric";

/** The filtered vitals rows (all of them: a page of them is chosen by the route), `page` and `metric` as unfiltered. */
export async function filteredVitalsReport(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  filters: readonly Filter[],
  only: { page?: string | undefined; metric?: VitalMetric | undefined } = {},
  options: ExploreOptions = {},
): Promise<VitalsRow[]> {
  const samples = samplesSql(scope, filteredUnits(scope, filters));
  const levels = `(SELECT value AS level FROM json_each('${JSON.stringify(BLOCK_LEVELS)}'))`;
  const [rows, ...groups] = await db.queryAll([
    { sql: `${samples.sql} ${CELLS("'all'")}`, args: samples.args },
    ...RATINGS.map((r) => ({ sql: `${samples.sql} ${CELLS(`'${r}'`, `${r} = 1`)}`, args: samples.args })),
    // Per row and bucket its samples, and per level and block the distinct units with a sample in it.
    {
      sql: `${samples.sql} SELECT path, metric, 'b' AS kind, bucket AS at, NULL AS level, count(*) AS n FROM s GROUP BY path, metric, bucket UNION ALL SELECT path, metric, 'u', bucket >> l.level, l.level, count(DISTINCT unit) FROM s CROSS JOIN ${levels} l GROUP BY path, metric, l.level, bucket >> l.level`,
      args: samples.args,
    },
  ]);
  const histograms = groups.pop()!;
  const key = (r: Record<string, unknown>) => `${String(r.path)}\u0000${String(r.metric)}`;
  const cellOf = (r: Record<string, unknown>): Cell => ({
    keys: [],
    units: Number(r.units),
    events: Number(r.events),
    keySum: Number(r.key_sum),
  });
  const ratingCells = groups.map((rs) => new Map(rs!.rows.map((r) => [key(r), cellOf(r)])));
  const keepPath = only.page === undefined ? () => true : pathFilter(only.page);
  const out: VitalsRow[] = [];
  const hiddenMetrics = new Set<VitalMetric>();
  for (const r of rows!.rows) {
    const metric = String(r.metric) as VitalMetric;
    if (!(VITAL_METRICS as readonly string[]).includes(metric) || (only.metric !== undefined && only.metric !== metric)) continue;
    const row = cellFigures(cellOf(r), scope, true, true, options);
    if (row.units.value === null) {
      hiddenMetrics.add(metric);
      continue;
    }
    if (!keepPath(String(r.path))) continue;
    const samplesShown = row.events;
    const share = (i: number) => ratio(cellFigures(ratingCells[i]!.get(key(r)), scope, true, true, options).events, samplesShown);
    out.push({
      path: String(r.path),
      other: false,
      metric,
      unit: THRESHOLDS[metric].unit,
      ...p75Of(
        histograms!.rows.filter((h) => key(h) === key(r)),
        metric,
        scope.k,
      ),
      good: share(0),
      needs_improvement: share(1),
      poor: share(2),
      samples: samplesShown,
    });
  }
  for (const metric of VITAL_METRICS.filter((m) => hiddenMetrics.has(m))) {
    out.push({
      path: null,
      other: true,
      metric,
      unit: THRESHOLDS[metric].unit,
      p75: SUPPRESSED,
      p75_low: SUPPRESSED,
      p75_high: SUPPRESSED,
      good: SUPPRESSED,
      needs_improvement: SUPPRESSED,
      poor: SUPPRESSED,
      samples: SUPPRESSED,
    });
  }
  return out;
}

/** p75 of a row from its bucket counts and its blocks' distinct units (the smallest level whose block around the rank has k). */
function p75Of(
  histogram: Record<string, unknown>[],
  metric: VitalMetric,
  k: number,
): { p75: Figure; p75_low: Figure; p75_high: Figure } {
  const buckets = histogram
    .filter((h) => h.kind === "b")
    .map((h) => ({ bucket: Number(h.at), n: Number(h.n) }))
    .sort((a, b) => a.bucket - b.bucket);
  const total = buckets.reduce((n, b) => n + b.n, 0);
  let below = 0;
  const rank = buckets.find((b) => {
    if ((below + b.n) * 4 >= total * 3) return true;
    below += b.n;
    return false;
  });
  if (!rank) return { p75: SUPPRESSED, p75_low: SUPPRESSED, p75_high: SUPPRESSED };
  const proven = new Map(histogram.filter((h) => h.kind === "u").map((h) => [`${Number(h.level)}:${Number(h.at)}`, Number(h.n)]));
  const level = BLOCK_LEVELS.find((l) => (proven.get(`${l}:${rank.bucket >> l}`) ?? 0) >= k) ?? null;
  return quantileRange(metric, { bucket: rank.bucket, below, n: rank.n, total }, level);
}
