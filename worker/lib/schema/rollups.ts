/**
 * Report rollups (worker/reports, docs/reports.md). Raw rows are folded in by id above a
 * watermark, in one write transaction per catch-up, so reports read only these tables.
 * `day` is the local date (YYYY-MM-DD) in the site's time zone; `hour` is the UTC instant
 * (ms) at which the local hour starts. A "unit" is a session id, or, for a row without a
 * session, a key of its own ("e:", "c:" or "v:" and the row id): what k-anonymity counts.
 * The *_units tables record which units each cell has seen, so distinct counts grow
 * incrementally; their `id` rises with every insert, which tells a catch-up which units it
 * added.
 */
import { index, integer, real, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { pageviewDimensionColumns } from "./columns";

/** Per source table, the highest raw row id folded in; `mark:` rows are scratch marks of a catch-up. */
export const rollupWatermarks = sqliteTable("rollup_watermarks", {
  source: text("source").primaryKey(),
  lastId: integer("last_id").notNull().default(0),
});

/**
 * What the publisher (worker/reports/publisher.ts) has made readable: every rollup cell that
 * ends at or before `through_ms` is published; reports read nothing later. One row (id 1).
 * Published cells are final; `version` rises only when a site's rollups are rebuilt (a time
 * zone set before anything of the site was published), so readers can cache by it.
 */
export const rollupPublication = sqliteTable("rollup_publication", {
  id: integer("id").primaryKey(),
  throughMs: integer("through_ms").notNull(),
  publishedAt: integer("published_at").notNull(),
  version: integer("version").notNull().default(0),
  /**
   * Days that had ended by this instant were published under the earlier hour rule (a day's
   * hours decided when it ended) and keep it, so that no published figure changes with the
   * upgrade (reports/privacy/hours.ts legacyHours). 0: every day is decided by closingHours.
   */
  hourRuleFrom: integer("hour_rule_from").notNull().default(0),
});

/**
 * The sum of the cell's units' keys (reports/noise.ts): what its figures' small perturbation
 * is derived from, so the same cell always reads the same and an added unit moves it unpredictably.
 */
const cellKeySum = () => integer("key_sum").notNull().default(0);

/**
 * The secrets that make unit keys and noise positions unpredictable (reports/noise.ts,
 * reports/noise-position.ts): drawn once, when the migrations run, and never shown. One row (id 1).
 */
export const rollupCellKey = sqliteTable("rollup_cell_key", {
  id: integer("id").primaryKey(),
  secret: integer("secret").notNull(),
  /** The second secret of a cell's place in the noise table (migration 0015 draws it, 1…2^31 − 2). */
  positionSecret: integer("position_secret").notNull().default(0),
});

/**
 * Which hour rule decides a day's hours (reports/privacy/hours.ts): 3, every hour of k shown as
 * it closes and the day carrying the protection; 2, the day's first hour of k held back as its
 * cover. Migration 0017 set 2 on the days that existed then, so no published figure changes.
 */
const hourRule = () => integer("hour_rule").notNull().default(3);

/**
 * The units of a day's small hours (1 to k − 1 units each), counted once: what the day minus
 * its shown hours would single out. Read from the hour units while they exist; retention writes
 * it here before deleting them (reports/retention.ts), so the day's decision never changes.
 */
const hourRemainder = () => integer("hour_remainder");

/** Site-day atoms: units with any beacon event that day, and pageviews. */
export const rollupSiteDay = sqliteTable(
  "rollup_site_day",
  {
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    visitors: integer("visitors").notNull().default(0),
    pageviews: integer("pageviews").notNull().default(0),
    keySum: cellKeySum(),
    hourRule: hourRule(),
    hourRemainder: hourRemainder(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.day] })],
);

export const rollupSiteDayUnits = sqliteTable(
  "rollup_site_day_units",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    unit: text("unit").notNull(),
  },
  (t) => [uniqueIndex("rollup_site_day_units_key").on(t.siteId, t.day, t.unit)],
);

/** Site-hour cells inside the site-day atoms. */
export const rollupSiteHour = sqliteTable(
  "rollup_site_hour",
  {
    siteId: text("site_id").notNull(),
    hour: integer("hour").notNull(),
    day: text("day").notNull(),
    visitors: integer("visitors").notNull().default(0),
    pageviews: integer("pageviews").notNull().default(0),
    keySum: cellKeySum(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.hour] }), index("rollup_site_hour_day").on(t.siteId, t.day)],
);

export const rollupSiteHourUnits = sqliteTable(
  "rollup_site_hour_units",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    siteId: text("site_id").notNull(),
    hour: integer("hour").notNull(),
    unit: text("unit").notNull(),
    /** The unit's pageviews in the hour: a filtered report's hourly pageviews (reports/explore). */
    pageviews: integer("pageviews").notNull().default(0),
  },
  (t) => [uniqueIndex("rollup_site_hour_units_key").on(t.siteId, t.hour, t.unit)],
);

/** Page-day atoms: units that viewed the path that day, and its pageviews. */
export const rollupPageDay = sqliteTable(
  "rollup_page_day",
  {
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    path: text("path").notNull(),
    visitors: integer("visitors").notNull().default(0),
    pageviews: integer("pageviews").notNull().default(0),
    keySum: cellKeySum(),
  },
  (t) => [
    primaryKey({ columns: [t.siteId, t.day, t.path] }),
    // Covers the pages report: a day's atoms in size order (its smallest, its complements) and its scans.
    index("rollup_page_day_by_size").on(t.siteId, t.day, t.visitors, t.pageviews, t.path),
  ],
);

export const rollupPageDayUnits = sqliteTable(
  "rollup_page_day_units",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    path: text("path").notNull(),
    unit: text("unit").notNull(),
    /** The unit's pageviews of the path that day (≥ 1): a filtered report's pageviews (reports/explore). */
    pageviews: integer("pageviews").notNull().default(1),
  },
  (t) => [
    uniqueIndex("rollup_page_day_units_key").on(t.siteId, t.day, t.path, t.unit),
    // A filtered session-day's pages (reports/explore/cells.ts), from the index alone.
    index("rollup_page_day_units_by_unit").on(t.siteId, t.day, t.unit, t.path, t.pageviews),
  ],
);

/** Goal-day atoms: converting units and conversions. */
export const rollupGoalDay = sqliteTable(
  "rollup_goal_day",
  {
    siteId: text("site_id").notNull(),
    goalId: text("goal_id").notNull(),
    day: text("day").notNull(),
    units: integer("units").notNull().default(0),
    conversions: integer("conversions").notNull().default(0),
    keySum: cellKeySum(),
    hourRule: hourRule(),
    hourRemainder: hourRemainder(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.day, t.goalId] })],
);

export const rollupGoalDayUnits = sqliteTable(
  "rollup_goal_day_units",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    siteId: text("site_id").notNull(),
    goalId: text("goal_id").notNull(),
    day: text("day").notNull(),
    unit: text("unit").notNull(),
    /** The unit's conversions that day: moved with it when its dimensions are set (dimension cells). */
    conversions: integer("conversions").notNull().default(0),
    /** The unit's revenue that day in cents, summed like `conversions`: what revenue figures sum per cell (privacy/revenue.ts). */
    revenue: integer("revenue").notNull().default(0),
    /** The same moved by the unit's own keyed fraction, revenue × (1 + mᵤ) (privacy/revenue.ts): summed and maxed per cell. */
    revenueMoved: real("revenue_moved").notNull().default(0),
  },
  (t) => [
    uniqueIndex("rollup_goal_day_units_key").on(t.siteId, t.goalId, t.day, t.unit),
    // A session-day's goals, found when its dimensions move (dimension-fold.ts).
    index("rollup_goal_day_units_by_unit").on(t.siteId, t.day, t.unit),
  ],
);

/** Goal-hour cells inside the goal-day atoms. */
export const rollupGoalHour = sqliteTable(
  "rollup_goal_hour",
  {
    siteId: text("site_id").notNull(),
    goalId: text("goal_id").notNull(),
    hour: integer("hour").notNull(),
    day: text("day").notNull(),
    units: integer("units").notNull().default(0),
    conversions: integer("conversions").notNull().default(0),
    keySum: cellKeySum(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.goalId, t.hour] }), index("rollup_goal_hour_day").on(t.siteId, t.day)],
);

export const rollupGoalHourUnits = sqliteTable(
  "rollup_goal_hour_units",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    siteId: text("site_id").notNull(),
    goalId: text("goal_id").notNull(),
    hour: integer("hour").notNull(),
    unit: text("unit").notNull(),
  },
  (t) => [uniqueIndex("rollup_goal_hour_units_key").on(t.siteId, t.goalId, t.hour, t.unit)],
);

/** When each session first completed each goal: what funnels order steps by. */
export const rollupSessionGoals = sqliteTable(
  "rollup_session_goals",
  {
    siteId: text("site_id").notNull(),
    sessionId: text("session_id").notNull(),
    goalId: text("goal_id").notNull(),
    firstTs: integer("first_ts").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.siteId, t.sessionId, t.goalId] }),
    // Funnels look up each unit's firsts: answered from the index alone.
    index("rollup_session_goals_firsts").on(t.siteId, t.sessionId, t.goalId, t.firstTs),
  ],
);

/** Vitals atoms per page, metric and day: units, samples and the good / NI / poor counts. */
export const rollupVitalDay = sqliteTable(
  "rollup_vital_day",
  {
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    path: text("path").notNull(),
    metric: text("metric").notNull(),
    units: integer("units").notNull().default(0),
    samples: integer("samples").notNull().default(0),
    good: integer("good").notNull().default(0),
    needsImprovement: integer("needs_improvement").notNull().default(0),
    poor: integer("poor").notNull().default(0),
    keySum: cellKeySum(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.day, t.path, t.metric] })],
);

export const rollupVitalDayUnits = sqliteTable(
  "rollup_vital_day_units",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    path: text("path").notNull(),
    metric: text("metric").notNull(),
    unit: text("unit").notNull(),
  },
  (t) => [uniqueIndex("rollup_vital_day_units_key").on(t.siteId, t.day, t.path, t.metric, t.unit)],
);

/** Vitals histograms: samples per fixed log-spaced bucket (worker/reports/histogram.ts). */
export const rollupVitalHistogram = sqliteTable(
  "rollup_vital_histogram",
  {
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    path: text("path").notNull(),
    metric: text("metric").notNull(),
    bucket: integer("bucket").notNull(),
    samples: integer("samples").notNull().default(0),
  },
  // Keyed by page and metric first: p75 is computed for the rows a page of the report shows.
  (t) => [primaryKey({ columns: [t.siteId, t.path, t.metric, t.day, t.bucket] })],
);

/** The dimensions a session-day is broken down by (reports/dimensions.ts), as stored. */
const dimensionColumns = () => ({
  entryPage: text("entry_page"),
  exitPage: text("exit_page"),
  ...pageviewDimensionColumns(),
});

/**
 * Each unit's dimensions on each local day: those of its first pageview that day, the exit page
 * of its last one. Per-session rows, deleted by retention with the raw rows; what the dimension
 * cells are kept in step from as pageviews arrive. The table is WITHOUT ROWID (migration 0021,
 * which drizzle does not model): its rows are kept in key order, so a filtered report's range of
 * a site's days is one sequential read.
 */
export const rollupSessionDay = sqliteTable(
  "rollup_session_day",
  {
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    unit: text("unit").notNull(),
    /** The raw ids of its first and last pageview that day; null until it has one. */
    firstPageviewId: integer("first_pageview_id"),
    lastPageviewId: integer("last_pageview_id"),
    /**
     * The fold instants (ms) of its earliest and latest pageview that day, whatever order they
     * arrived in: the visit's duration is their difference (reports/engagement.ts). Null until it has one.
     */
    firstTs: integer("first_ts"),
    lastTs: integer("last_ts"),
    /** The unit's cell key (noise.ts unitKeySql), stored so a filtered cell's key sum is a sum of a column. */
    unitKey: integer("unit_key").notNull().default(0),
    pageviews: integer("pageviews").notNull().default(0),
    ...dimensionColumns(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.day, t.unit] })],
);

/**
 * Scratch for one fold: the session-days it touches, as they were before it (so their old
 * contributions can leave the dimension cells). Emptied at the start of every events fold.
 */
export const rollupDimensionScratch = sqliteTable(
  "rollup_dimension_scratch",
  {
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    unit: text("unit").notNull(),
    firstPageviewId: integer("first_pageview_id"),
    /** Its span as it was: its old duration bucket leaves the site-day's histogram (reports/engagement-fold.ts). */
    firstTs: integer("first_ts"),
    lastTs: integer("last_ts"),
    pageviews: integer("pageviews").notNull().default(0),
    ...dimensionColumns(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.day, t.unit] })],
);

/**
 * Dimension-day cells: the units whose session-day has this value, their pageviews. Units with
 * no value (no pageview that day, no UTM, rows from before dimensions) are in no cell: a report
 * reads them as the site-day minus the cells (reports/breakdown.ts).
 */
export const rollupDimensionDay = sqliteTable(
  "rollup_dimension_day",
  {
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    dimension: text("dimension").notNull(),
    value: text("value").notNull(),
    visitors: integer("visitors").notNull().default(0),
    pageviews: integer("pageviews").notNull().default(0),
    keySum: cellKeySum(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.dimension, t.day, t.value] })],
);

/** Goal × dimension-day cells: the converting units of a goal with this value, their conversions. */
export const rollupGoalDimensionDay = sqliteTable(
  "rollup_goal_dimension_day",
  {
    siteId: text("site_id").notNull(),
    goalId: text("goal_id").notNull(),
    day: text("day").notNull(),
    dimension: text("dimension").notNull(),
    value: text("value").notNull(),
    units: integer("units").notNull().default(0),
    conversions: integer("conversions").notNull().default(0),
    keySum: cellKeySum(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.dimension, t.day, t.goalId, t.value] })],
);
