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
  // Each filtered session-day's samples of its own day, by the index of samples by session
  // (vitals_site_session_ts): the units drive, each one index range.
  return {
    sql:
      `WITH u AS MATERIALIZED (${units.sql}), d(day, t0, t1) AS (VALUES ${days.map(() => "(?, ?, ?)").join(", ")}), ` +
      "s AS (SELECT u.day || ' ' || u.unit AS unit, u.unit_key AS unit_key, v.path AS path, v.metric AS metric, " +
      `${bucketSql("v.metric", "v.value")} AS bucket, ${RATINGS.map((r) => `${bandSql(RATING_SQL[r], "v.metric", "v.value")} AS ${r}`).join(", ")} ` +
      "FROM u CROSS JOIN d ON d.day = u.day CROSS JOIN vitals v INDEXED BY vitals_site_session_ts " +
      "ON v.site_id = ? AND v.session_id = u.unit AND v.ts >= d.t0 AND v.ts < d.t1)",
    args: [...units.args, ...days.flat(), scope.siteId],
  };
}

/** A row's tallies, built from its units' samples per bucket. */
interface RowTally {
  path: string;
  metric: VitalMetric;
  /** The row's cell and each rating group's: distinct units, samples, key sum. */
  cells: Record<"all" | (typeof RATINGS)[number], Cell>;
  /** Samples per bucket. */
  buckets: Map<number, number>;
  /** Per block level and block: the distinct units with a sample in it. */
  blocks: Map<string, Set<string>>;
}

const emptyCell = (): Cell => ({ keys: [], units: 0, events: 0, keySum: 0 });

/**
 * The rows' tallies from one statement: per row, unit and bucket, the samples and their ratings
 * (a few rows per unit), added up here — one pass over the samples instead of one per figure.
 */
async function tallies(db: ReadOnlyDatabase, samples: Statement): Promise<Map<string, RowTally>> {
  const rs = await db.query({
    sql:
      `${samples.sql} SELECT path, metric, unit, unit_key, bucket, count(*) AS n, ` +
      `${RATINGS.map((r) => `sum(${r}) AS ${r}`).join(", ")} FROM s GROUP BY path, metric, unit, bucket ORDER BY path, metric, unit`,
    args: samples.args,
  });
  const rows = new Map<string, RowTally>();
  let lastUnit = "";
  const seen = new Set<string>();
  for (const r of rs.rows) {
    const path = String(r.path);
    const metric = String(r.metric) as VitalMetric;
    const key = `${path}\u0000${metric}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        path,
        metric,
        cells: { all: emptyCell(), good: emptyCell(), needs_improvement: emptyCell(), poor: emptyCell() },
        buckets: new Map(),
        blocks: new Map(),
      };
      rows.set(key, row);
    }
    const unit = String(r.unit);
    const unitKey = Number(r.unit_key);
    const n = Number(r.n);
    // A unit's rows of a row come together (ORDER BY): count it once per cell it is in.
    if (`${key}\u0000${unit}` !== lastUnit) {
      lastUnit = `${key}\u0000${unit}`;
      seen.clear();
    }
    const add = (name: "all" | (typeof RATINGS)[number], samplesIn: number) => {
      if (samplesIn === 0) return;
      const cell = row.cells[name];
      if (!seen.has(name)) {
        seen.add(name);
        cell.units++;
        cell.keySum += unitKey;
      }
      cell.events += samplesIn;
    };
    add("all", n);
    for (const rating of RATINGS) add(rating, Number(r[rating]));
    const bucket = Number(r.bucket);
    row.buckets.set(bucket, (row.buckets.get(bucket) ?? 0) + n);
    for (const level of BLOCK_LEVELS) {
      const block = `${level}:${bucket >> level}`;
      const units = row.blocks.get(block) ?? new Set<string>();
      row.blocks.set(block, units.add(unit));
    }
  }
  return rows;
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
  for (const row of rows.values()) {
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

/** p75 of a row from its bucket counts and its blocks' distinct units (the smallest level whose block around the rank has k). */
function p75Of(row: RowTally, metric: VitalMetric, k: number): { p75: Figure; p75_low: Figure; p75_high: Figure } {
  const buckets = [...row.buckets].sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((n, [, m]) => n + m, 0);
  let below = 0;
  const rank = buckets.find(([, n]) => {
    if ((below + n) * 4 >= total * 3) return true;
    below += n;
    return false;
  });
  if (!rank) return { p75: SUPPRESSED, p75_low: SUPPRESSED, p75_high: SUPPRESSED };
  const [bucket, n] = rank;
  const level = BLOCK_LEVELS.find((l) => (row.blocks.get(`${l}:${bucket >> l}`)?.size ?? 0) >= k) ?? null;
  return quantileRange(metric, { bucket, below, n, total }, level);
}
