/**
 * The vitals report: per path and metric, p75 (estimated from the histogram), the good /
 * needs-improvement / poor shares on the standard thresholds and the sample count. A vitals
 * atom (path, metric, day) is a child of its page-day atom: it is shown only when that page
 * atom is, when it has k units, and when the page's units outside it are 0 or at least k.
 * Inside a shown atom, the three rating groups partition its samples, and each is a group of
 * sessions: a group is shown only when it provably holds k sessions, and when the groups it
 * hides together may hold fewer, the smallest shown group is hidden too (privacy/rating-groups.ts,
 * ratingGroupsSql). A share over several days sums the days where its group is shown. p75 is
 * shown as the range of the smallest fixed block of buckets around its rank that holds k
 * sessions' samples (histogram.ts quantileRange), and as a value only when one bucket does.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { VITAL_METRICS } from "../lib/schema";
import { perturbedFigure, ratio, SUPPRESSED, type Figure } from "./figures";
import { BLOCK_LEVELS, quantileRange, THRESHOLDS, type VitalMetric } from "./histogram";
import { shownUnitsSql } from "./noise";
import { pathFilter } from "./pattern";
import { additiveFigure, PAGE_ATOMS_SQL, pageAtomVisibleSql, ratingGroupsSql, type AtomTally } from "./privacy";
import type { ReportScope } from "./scope";

export interface VitalsRow {
  /** The path; null in a metric's `other` row. */
  path: string | null;
  /** The one row per metric standing for every path hidden over the period (hidden-rows.ts). */
  other: boolean;
  metric: VitalMetric;
  unit: "ms" | "score";
  /** The estimate, shown only when the rank's bucket alone holds k sessions' samples. */
  p75: Figure;
  /** The range the rank lies in: the smallest fixed block of buckets around it holding k sessions' samples. */
  p75_low: Figure;
  p75_high: Figure;
  good: Figure;
  needs_improvement: Figure;
  poor: Figure;
  samples: Figure;
}

/**
 * Vitals atoms with their visibility; a vitals atom's page atom is looked up directly (its
 * row and its day's decisions), never by scanning the page atoms. `only` restricts the paths.
 */
const vitalAtomsSql = (only = "") => `${PAGE_ATOMS_SQL},
  vital_atoms AS (
    SELECT v.day AS day, v.path AS path, v.metric AS metric, v.samples AS samples, v.good AS good,
      v.needs_improvement AS needs_improvement, v.poor AS poor, v.key_sum AS key_sum, v.units AS units,
      CASE WHEN ${pageAtomVisibleSql("p", "d")} = 1 AND v.units >= ?1 AND (p.visitors - v.units <= 0 OR p.visitors - v.units >= ?1) THEN 1 ELSE 0 END AS visible
    FROM page_days d
    CROSS JOIN rollup_vital_day v ON v.site_id = d.site_id AND v.day = d.day
    LEFT JOIN rollup_page_day p ON p.site_id = v.site_id AND p.day = v.day AND p.path = v.path
    ${only ? `WHERE ${only}` : ""}
  )`;

/**
 * Sums of the visible atoms' figures, each perturbed by the atom's cell key and post-processed
 * (noise.ts shownCounts) or exact. A shown atom has k sessions and so k samples, and a shown
 * rating group provably holds k samples (privacy/rating-groups.ts): none reads below k. The
 * samples and a group are clamped alike, so a group holding every sample reads as the samples
 * (one unit set, one value, one reading) and its share is 1.
 */
function sumsSql(noise: boolean): string {
  const shown = (column: "samples" | "good" | "needs_improvement" | "poor") => (noise ? shownUnitsSql(column, "key_sum", "?1") : column);
  // A rating group's figure over the period: its shown atoms' counts, and how many atoms with
  // samples in the group are hidden (the atom, or the group inside it).
  const group = (column: "good" | "needs_improvement" | "poor") => `
    sum(CASE WHEN visible = 1 AND ${column}_shown THEN ${shown(column)} ELSE 0 END) AS ${column},
    sum(CASE WHEN visible = 1 AND ${column}_shown THEN 1 ELSE 0 END) AS ${column}_visible_days,
    sum(CASE WHEN ${column} > 0 AND NOT (visible = 1 AND ${column}_shown) THEN 1 ELSE 0 END) AS ${column}_hidden_days`;
  return `WITH ${vitalAtomsSql()},
  rated AS (${ratingGroupsSql("vital_atoms")})
  SELECT path, metric,
    sum(CASE WHEN visible = 1 THEN ${shown("samples")} ELSE 0 END) AS samples,
    ${group("good")},
    ${group("needs_improvement")},
    ${group("poor")},
    sum(visible) AS visible_days,
    count(*) - sum(visible) AS hidden_days
  FROM rated GROUP BY path, metric`;
}

const SUMS_SQL = { exact: sumsSql(false), perturbed: sumsSql(true) };

/**
 * The bucket holding rank 0.75·total of each (path, metric) histogram over visible atoms, for
 * the paths in ?5 (a JSON array): only the rows a page of the report shows need it. With it,
 * `level`: the smallest level of the fixed block grid (histogram.ts quantileRange) whose block
 * around that bucket provably holds samples of k sessions — every unit of an atom has a sample,
 * so x of an atom's samples in the block are at least units − samples + x of its sessions
 * (rule 8's bound), summed over the visible atoms; null when no block up to the widest does.
 */
const P75_SQL = `WITH ${vitalAtomsSql("v.path IN (SELECT value FROM json_each(?5))")},
  histogram AS (
    SELECT h.path AS path, h.metric AS metric, h.bucket AS bucket, sum(h.samples) AS n
    FROM vital_atoms a
    CROSS JOIN rollup_vital_histogram h ON h.site_id = ?2 AND h.path = a.path AND h.metric = a.metric AND h.day = a.day
    WHERE a.visible = 1
    GROUP BY h.path, h.metric, h.bucket
  ),
  cumulative AS (
    SELECT path, metric, bucket, n,
      sum(n) OVER (PARTITION BY path, metric ORDER BY bucket ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS upto,
      sum(n) OVER (PARTITION BY path, metric) AS total
    FROM histogram
  ),
  ranked AS (
    SELECT path, metric, bucket, upto - n AS below, n, total FROM cumulative
    WHERE upto * 4 >= total * 3 AND (upto - n) * 4 < total * 3
  ),
  levels AS (SELECT value AS level FROM json_each('${JSON.stringify(BLOCK_LEVELS)}')),
  atom_blocks AS (
    SELECT r.path AS path, r.metric AS metric, l.level AS level, max(0, a.units - a.samples + sum(h.samples)) AS proven
    FROM ranked r CROSS JOIN levels l
    CROSS JOIN vital_atoms a ON a.path = r.path AND a.metric = r.metric AND a.visible = 1
    CROSS JOIN rollup_vital_histogram h ON h.site_id = ?2 AND h.path = a.path AND h.metric = a.metric AND h.day = a.day
      AND (h.bucket >> l.level) = (r.bucket >> l.level)
    GROUP BY r.path, r.metric, l.level, a.day
  ),
  blocks AS (SELECT path, metric, level FROM atom_blocks GROUP BY path, metric, level HAVING sum(proven) >= ?1)
  SELECT r.path AS path, r.metric AS metric, r.bucket AS bucket, r.below AS below, r.n AS n, r.total AS total,
    (SELECT min(b.level) FROM blocks b WHERE b.path = r.path AND b.metric = r.metric) AS level
  FROM ranked r`;

/** A vitals row before its p75 is known. */
export type VitalsSums = Omit<VitalsRow, "p75" | "p75_low" | "p75_high">;

/**
 * The vitals rows of the period. `pick` chooses the rows that will be shown (a page of them)
 * before the histograms are read, so p75 is estimated only for those; by default, all.
 */
export async function vitalsReport(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  filters: { page?: string | undefined; metric?: VitalMetric | undefined } = {},
  pick: (rows: VitalsSums[]) => VitalsSums[] = (rows) => rows,
): Promise<VitalsRow[]> {
  const args = [scope.k, scope.siteId, scope.from, scope.to];
  const sums = await db.query({ sql: scope.noise ? SUMS_SQL.perturbed : SUMS_SQL.exact, args });
  const keepPath = filters.page === undefined ? () => true : pathFilter(filters.page);
  const all: VitalsSums[] = [];
  const hiddenMetrics = new Set<VitalMetric>();
  for (const r of sums.rows) {
    const metric = String(r.metric) as VitalMetric;
    const path = String(r.path);
    if (!(VITAL_METRICS as readonly string[]).includes(metric)) continue;
    if (filters.metric !== undefined && filters.metric !== metric) continue;
    // A path hidden on every day of the period is never listed nor matched by the page filter
    // (hidden-rows.ts): its metric gets one `other` row, whatever the pattern.
    if (Number(r.visible_days) === 0) {
      hiddenMetrics.add(metric);
      continue;
    }
    if (!keepPath(path)) continue;
    const tally = (column: string, days = ""): AtomTally => ({
      sum: Number(r[column]),
      visible: Number(r[`${days}visible_days`]),
      hidden: Number(r[`${days}hidden_days`]),
    });
    const figure = (column: string, group = false) =>
      perturbedFigure(additiveFigure(tally(column, group ? `${column}_` : "")), scope.noise);
    const samples = figure("samples");
    all.push({
      path,
      other: false,
      metric,
      unit: THRESHOLDS[metric].unit,
      good: ratio(figure("good", true), samples),
      needs_improvement: ratio(figure("needs_improvement", true), samples),
      poor: ratio(figure("poor", true), samples),
      samples,
    });
  }
  for (const metric of VITAL_METRICS.filter((m) => hiddenMetrics.has(m))) {
    const none = { path: null, other: true, metric, unit: THRESHOLDS[metric].unit, samples: SUPPRESSED };
    all.push({ ...none, good: SUPPRESSED, needs_improvement: SUPPRESSED, poor: SUPPRESSED });
  }
  const shown = pick(all);
  const paths = [...new Set(shown.flatMap((r) => (r.samples.value && r.path !== null ? [r.path] : [])))];
  const p75 = new Map<string, Pick<VitalsRow, "p75" | "p75_low" | "p75_high">>();
  if (paths.length > 0) {
    const rs = await db.query({ sql: P75_SQL, args: [...args, JSON.stringify(paths)] });
    for (const r of rs.rows) {
      const metric = String(r.metric) as VitalMetric;
      const rank = { bucket: Number(r.bucket), below: Number(r.below), n: Number(r.n), total: Number(r.total) };
      p75.set(`${metric}\u0000${String(r.path)}`, quantileRange(metric, rank, r.level === null ? null : Number(r.level)));
    }
  }
  return shown.map((row) => {
    const quantile = row.samples.value ? p75.get(`${row.metric}\u0000${row.path}`) : undefined;
    return {
      path: row.path,
      other: row.other,
      metric: row.metric,
      unit: row.unit,
      ...(quantile ?? { p75: SUPPRESSED, p75_low: SUPPRESSED, p75_high: SUPPRESSED }),
      good: row.good,
      needs_improvement: row.needs_improvement,
      poor: row.poor,
      samples: row.samples,
    };
  });
}
