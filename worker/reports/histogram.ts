/**
 * Web Vitals: the standard thresholds, and the fixed log-spaced histogram buckets the rollup
 * keeps per page, metric and day, from which p75 is estimated. The bucket edges are part of
 * the stored data: changing them needs the vitals rollups rebuilt.
 */
import { VITAL_METRICS } from "../lib/schema";
import { SUPPRESSED, type Figure } from "./figures";

export type VitalMetric = (typeof VITAL_METRICS)[number];

/** Good up to `good`, poor above `poor` (inclusive bounds as web.dev defines them). */
export const THRESHOLDS: Record<VitalMetric, { good: number; poor: number; unit: "ms" | "score" }> = {
  LCP: { good: 2500, poor: 4000, unit: "ms" },
  INP: { good: 200, poor: 500, unit: "ms" },
  CLS: { good: 0.1, poor: 0.25, unit: "score" },
  FCP: { good: 1800, poor: 3000, unit: "ms" },
  TTFB: { good: 800, poor: 1800, unit: "ms" },
};

/** Each bucket's upper edge grows by this factor: p75 is within about ±6 % of the truth. */
const GROWTH = 1.12;

function edgesFrom(first: number, last: number): number[] {
  const edges: number[] = [];
  for (let edge = first; edge < last * GROWTH; edge *= GROWTH) edges.push(Number(edge.toPrecision(4)));
  return edges;
}

/**
 * Upper edges per metric: bucket i holds values in (edges[i − 1], edges[i]], bucket 0 values
 * ≤ edges[0], and bucket edges.length everything above the last edge.
 */
export const BUCKET_EDGES: Record<VitalMetric, number[]> = {
  LCP: edgesFrom(1, 120_000),
  INP: edgesFrom(1, 60_000),
  CLS: edgesFrom(0.0001, 20),
  FCP: edgesFrom(1, 120_000),
  TTFB: edgesFrom(1, 120_000),
};

/** SQL: the bucket of `value` for `metric` (literal numbers of our own, no parameters). */
export function bucketSql(metric: string, value: string): string {
  const perMetric = VITAL_METRICS.map((m) => {
    const edges = BUCKET_EDGES[m];
    const whens = edges.map((e, i) => `WHEN ${value} <= ${e} THEN ${i}`).join(" ");
    return `WHEN '${m}' THEN (CASE ${whens} ELSE ${edges.length} END)`;
  }).join(" ");
  return `(CASE ${metric} ${perMetric} ELSE 0 END)`;
}

/** SQL: 1 when `value` is in the band ("good", "ni", "poor") of `metric`'s thresholds. */
export function bandSql(band: "good" | "ni" | "poor", metric: string, value: string): string {
  const perMetric = VITAL_METRICS.map((m) => {
    const { good, poor } = THRESHOLDS[m];
    const test =
      band === "good"
        ? `${value} <= ${good}`
        : band === "poor"
          ? `${value} > ${poor}`
          : `${value} > ${good} AND ${value} <= ${poor}`;
    return `WHEN '${m}' THEN (CASE WHEN ${test} THEN 1 ELSE 0 END)`;
  }).join(" ");
  return `(CASE ${metric} ${perMetric} ELSE 0 END)`;
}

/**
 * The 75th percentile from the bucket that holds rank 0.75·total: `below` samples lie in
 * lower buckets, `inBucket` in this one. Interpolated geometrically inside the bucket
 * (linearly in the first, which starts at 0).
 */
export function percentileFromBucket(
  metric: VitalMetric,
  bucket: number,
  below: number,
  inBucket: number,
  total: number,
  p = 0.75,
): number {
  const edges = BUCKET_EDGES[metric];
  const upper = edges[Math.min(bucket, edges.length - 1)]!;
  if (bucket >= edges.length) return upper;
  const lower = bucket === 0 ? 0 : edges[bucket - 1]!;
  const fraction = inBucket > 0 ? Math.min(1, Math.max(0, (p * total - below) / inBucket)) : 1;
  const value = lower === 0 ? upper * fraction : lower * (upper / lower) ** fraction;
  return THRESHOLDS[metric].unit === "ms" ? Math.round(value) : Number(value.toFixed(3));
}

/** A bucket's bounds: (lower, upper]; the first starts at 0, the last (above every edge) is read at the last edge. */
export function bucketBounds(metric: VitalMetric, bucket: number): { lower: number; upper: number } {
  const edges = BUCKET_EDGES[metric];
  const upper = edges[Math.min(bucket, edges.length - 1)]!;
  const lower = bucket === 0 ? 0 : bucket >= edges.length ? upper : edges[bucket - 1]!;
  return { lower, upper };
}

/**
 * The levels of the fixed block grid p75 is widened on: a block of level j is 2^j buckets,
 * aligned (bucket >> j), so its edges never depend on the data. Level 6 (64 buckets, a factor
 * of about 1,400) is the widest shown; wider would say nothing.
 */
export const BLOCK_LEVELS = [0, 1, 2, 3, 4, 5, 6] as const;

/** The bucket holding a quantile's rank, the samples (or units) below and in it, and all of them. */
export interface QuantileRank {
  bucket: number;
  below: number;
  n: number;
  total: number;
}

/**
 * SQL: two CTEs, `c` and then `r`, over the histogram CTE `histogram` (columns `partition`…,
 * `bucket`, `n`): `r` holds per partition the one bucket where the cumulative count first
 * reaches the quantile `numerator / denominator` of the total — the rank quantileRange and
 * durationMedianAt read — with `bucket`, `n`, `below` and `total`. Integer comparisons, so a
 * rank on a bucket edge falls as the TypeScript loops put it.
 */
export function quantileRankSql(histogram: string, partition: readonly string[], numerator: number, denominator: number): string {
  const over = partition.length > 0 ? `PARTITION BY ${partition.join(", ")} ` : "";
  const columns = [...partition, "bucket", "n"].join(", ");
  return (
    `c AS (SELECT ${columns}, sum(n) OVER (${over}ORDER BY bucket) AS upto, sum(n) OVER (${over}) AS total FROM ${histogram}), ` +
    `r AS (SELECT ${columns}, upto - n AS below, total FROM c ` +
    `WHERE upto * ${denominator} >= total * ${numerator} AND (upto - n) * ${denominator} < total * ${numerator})`
  );
}

/**
 * p75 as the report shows it (docs/reports.md, rule 8, "p75"). The rank's bucket alone can be a group
 * of one: five sybils at 10 ms and one at 60 s put rank 6 of 7 on a victim's sample. So p75 is
 * shown as the range of the smallest block of the fixed grid (BLOCK_LEVELS) around the rank's
 * bucket that provably holds samples of k sessions (`level`, from the report's SQL; null when
 * none does), and as a value only when that block is the bucket itself (level 0). The range's
 * ends are fixed grid points, never the edge of a bucket because it has data: an interval grown
 * from the rank's bucket to the nearest buckets with data ("10 ms – 3.5 s") would end at the
 * victim's bucket and name it.
 */
export function quantileRange(
  metric: VitalMetric,
  rank: QuantileRank,
  level: number | null,
): { p75: Figure; p75_low: Figure; p75_high: Figure } {
  if (level === null) return { p75: SUPPRESSED, p75_low: SUPPRESSED, p75_high: SUPPRESSED };
  const shown = (value: number): Figure => ({ value: rounded(metric, value), qualifier: "estimated" });
  const first = (rank.bucket >> level) << level;
  const last = first + (1 << level) - 1;
  return {
    // A percentile from bucket counts is computed, not counted: always estimated.
    p75: level === 0 ? shown(percentileFromBucket(metric, rank.bucket, rank.below, rank.n, rank.total)) : SUPPRESSED,
    p75_low: shown(bucketBounds(metric, first).lower),
    p75_high: shown(bucketBounds(metric, last).upper),
  };
}

function rounded(metric: VitalMetric, value: number): number {
  return THRESHOLDS[metric].unit === "ms" ? Math.round(value) : Number(value.toPrecision(4));
}

/**
 * Visit durations (s, reports/engagement.ts): 0 s has its own bucket (0: a visit of one
 * pageview, or several within one instant); bucket i ≥ 1 holds (edges[i − 1], edges[i]] on the
 * same 12 % grid as the vitals, up to a day (a session-day's span is shorter). Part of the
 * stored data (rollup_duration_histogram): changing them needs the archived days rebuilt.
 */
export const DURATION_EDGES: number[] = [0, ...edgesFrom(1, 86_400)];

/**
 * SQL: the duration bucket of `seconds` (literal numbers of our own, no parameters): a binary
 * search of nested CASEs, 7 comparisons a row rather than a scan of the 100 edges (the aggregate
 * reads every session-day of a month).
 */
export function durationBucketSql(seconds: string): string {
  const search = (lo: number, hi: number): string => {
    // Buckets lo…hi: bucket i holds values ≤ DURATION_EDGES[i] (and above the previous edge); hi = edges.length is above all.
    if (lo === hi) return String(lo);
    const mid = (lo + hi) >> 1;
    return `(CASE WHEN ${seconds} <= ${DURATION_EDGES[mid]} THEN ${search(lo, mid)} ELSE ${search(mid + 1, hi)} END)`;
  };
  return search(0, DURATION_EDGES.length);
}

/**
 * The median visit duration as the report shows it: the same rule as vitals' p75 (quantileRange
 * above, docs/reports.md rule 8 "p75"), on the duration grid. `histogram`: units (session-days,
 * one sample each) per bucket. The range is the smallest aligned block (BLOCK_LEVELS) around
 * the rank's bucket holding at least k units' samples, its ends fixed grid points; the value
 * only when that block is the bucket itself; nothing when no block up to the widest is.
 */
export function durationMedian(histogram: Map<number, number>, k: number): { value: Figure; low: Figure; high: Figure } {
  const buckets = [...histogram.entries()].filter(([, n]) => n > 0).sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((sum, [, n]) => sum + n, 0);
  if (total === 0) return { value: SUPPRESSED, low: SUPPRESSED, high: SUPPRESSED };
  let below = 0;
  let rank = buckets[0]!;
  for (const entry of buckets) {
    rank = entry;
    if ((below + entry[1]) * 2 >= total) break;
    below += entry[1];
  }
  const [bucket, n] = rank;
  const blocks = BLOCK_LEVELS.map((j) => buckets.reduce((sum, [b, m]) => sum + (b >> j === bucket >> j ? m : 0), 0));
  return durationMedianAt({ bucket, below, n, total }, blocks, k);
}

/**
 * The median as durationMedian shows it, from its rank and the units in the rank bucket's block
 * at each level (`blocks`, by BLOCK_LEVELS), however they were counted (explore/medians.ts in SQL).
 */
export function durationMedianAt(
  rank: QuantileRank,
  blocks: readonly number[],
  k: number,
): { value: Figure; low: Figure; high: Figure } {
  const { bucket, below, n, total } = rank;
  const level = BLOCK_LEVELS.find((_, i) => (blocks[i] ?? 0) >= k);
  if (level === undefined || total === 0) return { value: SUPPRESSED, low: SUPPRESSED, high: SUPPRESSED };
  const first = (bucket >> level) << level;
  const last = first + (1 << level) - 1;
  // Whole seconds for the estimate; the range's ends are the grid's own points.
  const shown = (value: number, exactly = false): Figure => ({
    value: exactly ? value : Math.round(value),
    qualifier: "estimated",
  });
  const { lower, upper } = durationBounds(bucket);
  const fraction = Math.min(1, Math.max(0, (0.5 * total - below) / n));
  // Inside a bucket: geometric like the vitals, linear in the first (0 … 1 s); 0 s is 0.
  const value = lower === 0 ? upper * fraction : lower * (upper / lower) ** fraction;
  return {
    value: level === 0 ? shown(value) : SUPPRESSED,
    low: shown(durationBounds(first).lower, true),
    high: shown(durationBounds(last).upper, true),
  };
}

/** A duration bucket's bounds: (lower, upper]; bucket 0 is 0 s itself, the last (above every edge) is read at the last edge. */
function durationBounds(bucket: number): { lower: number; upper: number } {
  const edges = DURATION_EDGES;
  const upper = edges[Math.min(bucket, edges.length - 1)]!;
  const lower = bucket === 0 ? 0 : bucket >= edges.length ? upper : edges[bucket - 1]!;
  return { lower, upper };
}
