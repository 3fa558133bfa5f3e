/**
 * Keeping each site-day's engagement (rollup_engagement_day, rollup_duration_histogram;
 * reports/engagement.ts) in step with its session-days as the fold changes them. A later pageview
 * moves a session-day's pageviews (a bounce no more) and its span (another duration bucket), so,
 * as with the dimension cells (dimension-fold.ts), the session-days a fold touches leave their
 * site-day's figures as they were (the fold's scratch copy) and join them as they are now. The
 * site's figures are then read from one row and a few dozen buckets per day, never from the
 * session-days, and they are what retention keeps when it deletes those.
 */
import type { InStatement } from "@libsql/client/web";
import { durationBucketSql } from "./histogram";
import { unitKeySql } from "./noise";

/** A statement over the fold's raw rows (rollup/raw-rows.ts rawRows): `WITH raw AS (…)` is prefixed. */
type WithRaw = (sql: string) => InStatement;

/** SQL: a session-day's duration in seconds, from its span columns. */
export const DURATION_SECONDS = "((last_ts - first_ts) / 1000.0)";

/**
 * Adds (sign 1) or removes (sign -1) the contributions of `table`'s session-days selected by
 * `touched` (alias s) to their site-days' engagement rows and duration histograms.
 */
export function moveEngagement(withRaw: WithRaw, table: string, touched: string, sign: 1 | -1): InStatement[] {
  const rows = `e AS (SELECT s.site_id AS site_id, s.day AS day, s.pageviews AS pageviews, s.first_ts AS first_ts, s.last_ts AS last_ts, ${unitKeySql("s.unit")} AS k FROM ${table} s WHERE ${touched})`;
  return [
    withRaw(
      `, ${rows} INSERT INTO rollup_engagement_day (site_id, day, visits, visits_key_sum, pageviews, bounces, bounce_key_sum) ` +
        `SELECT site_id, day, ${sign} * count(*), ${sign} * sum(k), ${sign} * sum(pageviews), ${sign} * sum(pageviews = 1), ${sign} * sum(CASE WHEN pageviews = 1 THEN k ELSE 0 END) ` +
        "FROM e WHERE true GROUP BY site_id, day ON CONFLICT (site_id, day) DO UPDATE SET visits = rollup_engagement_day.visits + excluded.visits, " +
        "visits_key_sum = rollup_engagement_day.visits_key_sum + excluded.visits_key_sum, pageviews = rollup_engagement_day.pageviews + excluded.pageviews, " +
        "bounces = rollup_engagement_day.bounces + excluded.bounces, bounce_key_sum = rollup_engagement_day.bounce_key_sum + excluded.bounce_key_sum",
    ),
    withRaw(
      `, ${rows} INSERT INTO rollup_duration_histogram (site_id, day, bucket, units) ` +
        `SELECT site_id, day, ${durationBucketSql(DURATION_SECONDS)} AS bucket, ${sign} * count(*) FROM e WHERE first_ts IS NOT NULL GROUP BY site_id, day, bucket ` +
        "ON CONFLICT (site_id, day, bucket) DO UPDATE SET units = rollup_duration_histogram.units + excluded.units",
    ),
  ];
}

/** After the moves: buckets every session-day has left go, so a fold split anywhere leaves the same rows. */
export function emptiedBuckets(withRaw: WithRaw): InStatement {
  return withRaw(
    "DELETE FROM rollup_duration_histogram WHERE units = 0 AND (site_id, day) IN (SELECT DISTINCT site_id, day FROM raw WHERE kind = 'pageview')",
  );
}
