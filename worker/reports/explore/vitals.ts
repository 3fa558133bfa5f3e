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
import {
  bandSql,
  BLOCK_LEVELS,
  bucketSql,
  quantileRange,
  quantileRankSql,
  THRESHOLDS,
  type QuantileRank,
  type VitalMetric,
} from "../histogram";
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
  // Each filtered session-day's samples of its own day, by the index of samples by session
  // (vitals_site_session_ts): the units drive, each one index range.
  return {
    sql:
      `WITH u AS MATERIALIZED (${units.sql}), d(day, t0, t1) AS (VALUES ${days.map(() => "(?, ?, ?)").join(", ")}), ` +
      "s AS MATERIALIZED (SELECT u.day || ' ' || u.unit AS unit, u.unit_key AS unit_key, v.path AS path, v.metric AS metric, " +
      `${bucketSql("v.metric", "v.value")} AS bucket, ${RATINGS.map((r) => `${bandSql(RATING_SQL[r], "v.metric", "v.value")} AS ${r}`).join(", ")} ` +
      "FROM u CROSS JOIN d ON d.day = u.day CROSS JOIN vitals v INDEXED BY vitals_site_session_ts " +
      "ON v.site_id = ? AND v.session_id = u.unit AND v.ts >= d.t0 AND v.ts < d.t1)",
    args: [...units.args, ...days.flat(), scope.siteId],
  };
}

/** A row's tallies: its cells, and the rank of p75 with its blocks' distinct units. */
interface RowTally {
  path: string;
  metric: VitalMetric;
  /** The row's cell and each rating group's: distinct units, samples, key sum. */
  cells: Record<"all" | (typeof RATINGS)[number], Cell>;
  /** The bucket holding rank p75, the samples below it and in it, the row's samples; null without samples. */
  rank: QuantileRank | null;
  /** Per block level (BLOCK_LEVELS), the distinct units with a sample in the rank bucket's block. */
  blockUnits: number[];
}

const CELLS = ["all", ...RATINGS] as const;

/**
 * The rows' tallies, added up by SQLite: one row per path and metric comes back. Shipping the
 * samples per unit and bucket instead grew with the traffic (at 10 M events the answer passed
 * the Hrana response limit). Per row: each cell's distinct units, samples and key sum (from the
 * samples per unit), the histogram's cumulative counts (the rank of p75), and per block level
 * the distinct units in the rank bucket's block.
 */
async function tallies(db: ReadOnlyDatabase, samples: Statement): Promise<RowTally[]> {
  const perCell = (c: (typeof CELLS)[number]) =>
    c === "all"
      ? "count(*) AS all_units, sum(unit_key) AS all_keys, sum(n) AS all_events"
      : `sum(${c} > 0) AS ${c}_units, sum(CASE WHEN ${c} > 0 THEN unit_key ELSE 0 END) AS ${c}_keys, sum(${c}) AS ${c}_events`;
  const perLevel = BLOCK_LEVELS.map(
    (l) => `count(DISTINCT CASE WHEN s.bucket >> ${l} = r.bucket >> ${l} THEN s.unit END) AS l${l}`,
  );
  const rs = await db.query({
    sql:
      `${samples.sql}, ` +
      `pu AS (SELECT path, metric, unit, unit_key, count(*) AS n, ${RATINGS.map((r) => `sum(${r}) AS ${r}`).join(", ")} ` +
      "FROM s GROUP BY path, metric, unit), " +
      `cells AS (SELECT path, metric, ${CELLS.map(perCell).join(", ")} FROM pu GROUP BY path, metric), ` +
      "h AS (SELECT path, metric, bucket, count(*) AS n FROM s GROUP BY path, metric, bucket), " +
      `${quantileRankSql("h", ["path", "metric"], 3, 4)}, ` +
      `b AS (SELECT r.path AS path, r.metric AS metric, ${perLevel.join(", ")} FROM r JOIN s ON s.path = r.path AND s.metric = r.metric GROUP BY r.path, r.metric) ` +
      `SELECT cells.*, r.bucket AS bucket, r.below AS below, r.n AS n, r.total AS total, ${BLOCK_LEVELS.map((l) => `b.l${l} AS l${l}`).join(", ")} ` +
      "FROM cells LEFT JOIN r ON r.path = cells.path AND r.metric = cells.metric " +
      "LEFT JOIN b ON b.path = cells.path AND b.metric = cells.metric",
    args: samples.args,
  });
  return rs.rows.map((r) => {
    const cell = (c: (typeof CELLS)[number]): Cell => ({
      keys: [],
      units: Number(r[`${c}_units`] ?? 0),
      events: Number(r[`${c}_events`] ?? 0),
      keySum: Number(r[`${c}_keys`] ?? 0),
    });
    return {
      path: String(r.path),
      metric: String(r.metric) as VitalMetric,
      cells: { all: cell("all"), good: cell("good"), needs_improvement: cell("needs_improvement"), poor: cell("poor") },
      rank:
        r.bucket === null ? null : { bucket: Number(r.bucket), below: Number(r.below), n: Number(r.n), total: Number(r.total) },
      blockUnits: BLOCK_LEVELS.map((l) => Number(r[`l${l}`] ?? 0)),
    };
  });
}

/** The filtered vitals rows (all of them: a page of them is chosen by the route), `page` and `metric` as unfiltered. */
export async function filteredVitalsReport(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  filters: readonly Filter[],
  only: { page?: string | undefined; metric?: VitalMetric | undefined } = {},
  options: ExploreOptions = {},
): Promise<VitalsRow[]> {
  const rows = await tallies(db, samplesSql(scope, filteredUnits(scope, filters)));
  const keepPath = only.page === undefined ? () => true : pathFilter(only.page);
  const out: VitalsRow[] = [];
  const hiddenMetrics = new Set<VitalMetric>();
  for (const row of rows) {
    const { path, metric } = row;
    if (!(VITAL_METRICS as readonly string[]).includes(metric) || (only.metric !== undefined && only.metric !== metric)) continue;
    const shown = cellFigures(row.cells.all, scope, true, true, options);
    if (shown.units.value === null) {
      hiddenMetrics.add(metric);
      continue;
    }
    if (!keepPath(path)) continue;
    const share = (rating: (typeof RATINGS)[number]) =>
      ratio(
        cellFigures(row.cells[rating].units > 0 ? row.cells[rating] : undefined, scope, true, true, options).events,
        shown.events,
      );
    out.push({
      path,
      other: false,
      metric,
      unit: THRESHOLDS[metric].unit,
      ...p75Of(row, metric, scope.k),
      good: share("good"),
      needs_improvement: share("needs_improvement"),
      poor: share("poor"),
      samples: shown.events,
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

/** p75 of a row: its rank bucket's range at the smallest block level whose block holds samples of k units. */
function p75Of(row: RowTally, metric: VitalMetric, k: number): { p75: Figure; p75_low: Figure; p75_high: Figure } {
  if (!row.rank) return { p75: SUPPRESSED, p75_low: SUPPRESSED, p75_high: SUPPRESSED };
  const level = BLOCK_LEVELS.find((_, i) => (row.blockUnits[i] ?? 0) >= k) ?? null;
  return quantileRange(metric, row.rank, level);
}
