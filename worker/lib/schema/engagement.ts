/**
 * The site-days' engagement rollups (reports/engagement.ts, docs/reports.md "Engagement"):
 * aggregates without unit ids, kept after raw retention like the other day cells.
 */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * A site-day's engagement (reports/engagement.ts): its visits (session-days), their pageviews,
 * its bounces (session-days of one pageview), and the key sums of both. Kept in step by the fold
 * as its session-days change (reports/engagement-fold.ts), so the site's figures are read from
 * these rows alone, and kept when retention deletes the session-days (reports/retention.ts
 * writes any day missing first), so old periods read as they did.
 */
export const rollupEngagementDay = sqliteTable(
  "rollup_engagement_day",
  {
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    visits: integer("visits").notNull().default(0),
    visitsKeySum: integer("visits_key_sum").notNull().default(0),
    pageviews: integer("pageviews").notNull().default(0),
    bounces: integer("bounces").notNull().default(0),
    bounceKeySum: integer("bounce_key_sum").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.day] })],
);

/** The same days' visit durations: session-days per fixed log-spaced bucket (reports/histogram.ts DURATION_EDGES), kept alike. */
export const rollupDurationHistogram = sqliteTable(
  "rollup_duration_histogram",
  {
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    bucket: integer("bucket").notNull(),
    units: integer("units").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.day, t.bucket] })],
);
