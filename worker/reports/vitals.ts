/**
 * The vitals report: per path and metric, p75 (estimated from the histogram), the good /
 * needs-improvement / poor shares on the standard thresholds and the sample count. A vitals
 * atom (path, metric, day) is a child of its page-day atom: it is shown only when that page
 * atom is, when it has k units, and when the page's units outside it are 0 or at least k.
 */
import type { Client } from "@libsql/client/web";
import { VITAL_METRICS } from "../lib/schema";
import { ratio, SUPPRESSED, type Figure } from "./figures";
import { percentileFromBucket, THRESHOLDS, type VitalMetric } from "./histogram";
import { pathFilter } from "./pattern";
import { additiveFigure, PAGE_ATOMS_SQL, type AtomTally } from "./privacy";
import type { ReportScope } from "./scope";

export interface VitalsRow {
  path: string;
  metric: VitalMetric;
  unit: "ms" | "score";
  p75: Figure;
  good: Figure;
  needs_improvement: Figure;
  poor: Figure;
  samples: Figure;
}

const VITAL_ATOMS_SQL = `${PAGE_ATOMS_SQL},
  vital_atoms AS (
    SELECT v.day AS day, v.path AS path, v.metric AS metric, v.samples AS samples, v.good AS good,
      v.needs_improvement AS needs_improvement, v.poor AS poor,
      CASE WHEN pa.visible = 1 AND v.units >= ?1 AND (pa.visitors - v.units <= 0 OR pa.visitors - v.units >= ?1) THEN 1 ELSE 0 END AS visible
    FROM rollup_vital_day v LEFT JOIN page_atoms pa ON pa.day = v.day AND pa.path = v.path
    WHERE v.site_id = ?2 AND v.day >= ?3 AND v.day <= ?4
  )`;

const SUMS_SQL = `WITH ${VITAL_ATOMS_SQL}
  SELECT path, metric,
    sum(CASE WHEN visible = 1 THEN samples ELSE 0 END) AS samples,
    sum(CASE WHEN visible = 1 THEN good ELSE 0 END) AS good,
    sum(CASE WHEN visible = 1 THEN needs_improvement ELSE 0 END) AS needs_improvement,
    sum(CASE WHEN visible = 1 THEN poor ELSE 0 END) AS poor,
    sum(visible) AS visible_days,
    count(*) - sum(visible) AS hidden_days
  FROM vital_atoms GROUP BY path, metric`;

/** The bucket holding rank 0.75·total of each (path, metric) histogram over visible atoms. */
const P75_SQL = `WITH ${VITAL_ATOMS_SQL},
  histogram AS (
    SELECT h.path AS path, h.metric AS metric, h.bucket AS bucket, sum(h.samples) AS n
    FROM rollup_vital_histogram h
    JOIN vital_atoms a ON a.day = h.day AND a.path = h.path AND a.metric = h.metric AND a.visible = 1
    WHERE h.site_id = ?2 AND h.day >= ?3 AND h.day <= ?4
    GROUP BY h.path, h.metric, h.bucket
  ),
  cumulative AS (
    SELECT path, metric, bucket, n,
      sum(n) OVER (PARTITION BY path, metric ORDER BY bucket ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS upto,
      sum(n) OVER (PARTITION BY path, metric) AS total
    FROM histogram
  )
  SELECT path, metric, bucket, upto - n AS below, n, total FROM cumulative
  WHERE upto * 4 >= total * 3 AND (upto - n) * 4 < total * 3`;

export async function vitalsReport(client: Client, scope: ReportScope, filters: { page?: string; metric?: VitalMetric } = {}): Promise<VitalsRow[]> {
  const args = [scope.k, scope.siteId, scope.from, scope.to];
  const [sums, p75s] = await client.batch([{ sql: SUMS_SQL, args }, { sql: P75_SQL, args }], "read");
  const keepPath = filters.page === undefined ? () => true : pathFilter(filters.page);
  const p75 = new Map<string, number>();
  for (const r of p75s!.rows) {
    const metric = String(r.metric) as VitalMetric;
    p75.set(`${metric}\u0000${String(r.path)}`, percentileFromBucket(metric, Number(r.bucket), Number(r.below), Number(r.n), Number(r.total)));
  }
  const rows: VitalsRow[] = [];
  for (const r of sums!.rows) {
    const metric = String(r.metric) as VitalMetric;
    const path = String(r.path);
    if (!(VITAL_METRICS as readonly string[]).includes(metric) || !keepPath(path)) continue;
    if (filters.metric !== undefined && filters.metric !== metric) continue;
    const tally = (column: string): AtomTally => ({ sum: Number(r[column]), visible: Number(r.visible_days), hidden: Number(r.hidden_days) });
    const samples = additiveFigure(tally("samples"));
    const estimate = p75.get(`${metric}\u0000${path}`);
    rows.push({
      path,
      metric,
      unit: THRESHOLDS[metric].unit,
      // A percentile from bucket counts is computed, not counted: always estimated.
      p75: samples.value && estimate !== undefined ? { value: estimate, qualifier: "estimated" } : SUPPRESSED,
      good: ratio(additiveFigure(tally("good")), samples),
      needs_improvement: ratio(additiveFigure(tally("needs_improvement")), samples),
      poor: ratio(additiveFigure(tally("poor")), samples),
      samples,
    });
  }
  return rows;
}
