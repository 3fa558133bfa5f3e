/**
 * The database schema, declared once with drizzle-orm. drizzle-kit turns it into the SQL
 * migrations in `migrations/`; the workers and the CLI query through it.
 *
 * Portability: every column type and statement here must run unchanged on the embedded
 * server, sqld and Turso (they are all libSQL), so only plain SQLite features are used.
 * Timestamps are integer milliseconds since the epoch (UTC).
 */
import { sql } from "drizzle-orm";
import {
  index,
  integer,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

const createdAt = () =>
  integer("created_at", { mode: "number" })
    .notNull()
    .default(sql`(cast(unixepoch('subsec') * 1000 as integer))`);

/** A tracked site. `allowlist` holds the hostnames whose pages may send beacons. */
export const sites = sqliteTable(
  "sites",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    domain: text("domain").notNull(),
    allowlist: text("allowlist", { mode: "json" }).$type<string[]>().notNull(),
    /** Bumped to rotate the s2s token: the MAC covers it, so old tokens stop verifying. */
    tokenVersion: integer("token_version").notNull().default(1),
    createdByKey: text("created_by_key"),
    createdAt: createdAt(),
    /**
     * IANA time zone the site's reports are cut into days in. Reports accept only this zone:
     * day atoms are the unit of k-anonymity suppression (docs/reports.md).
     */
    timezone: text("timezone").notNull().default("UTC"),
  },
  (t) => [uniqueIndex("sites_domain_unique").on(t.domain)],
);

export const GOAL_KINDS = ["page", "event", "time", "scroll"] as const;
export type GoalKind = (typeof GOAL_KINDS)[number];

/** A goal: what counts as a conversion on a site. */
export const goals = sqliteTable(
  "goals",
  {
    id: text("id").primaryKey(),
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    kind: text("kind", { enum: GOAL_KINDS }).notNull(),
    /** Path pattern (page, time, scroll) or event name (event). */
    match: text("match").notNull(),
    /** Seconds on page (time) or depth percent (scroll); 0 for page and event goals. */
    threshold: integer("threshold").notNull().default(0),
    /** Free-form marker such as "smoke-test". */
    purpose: text("purpose"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("goals_site_kind_match_threshold").on(t.siteId, t.kind, t.match, t.threshold)],
);

/** An API key. Only the SHA-256 of the secret is stored; `prefix` identifies it in listings. */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    secretHash: text("secret_hash").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    /** Site ids the key may act on; null means every site. */
    sites: text("sites", { mode: "json" }).$type<string[] | null>(),
    /** Per-key request limit; null falls back to the server default. */
    rateRequests: integer("rate_requests"),
    ratePerSeconds: integer("rate_per_seconds"),
    createdAt: createdAt(),
    lastUsedAt: integer("last_used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_secret_hash").on(t.secretHash)],
);

/** Calls per key, UTC day and route: what makes "two calls a night" visible. */
export const keyUsage = sqliteTable(
  "key_usage",
  {
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    day: text("day").notNull(),
    route: text("route").notNull(),
    calls: integer("calls").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.day, t.route] })],
);

/**
 * An anonymised session. `id` is a keyed hash under a salt that is destroyed after the
 * 24-hour window, so nothing here links back to a browser once the window closes.
 */
export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    firstSeen: integer("first_seen").notNull(),
    lastSeen: integer("last_seen").notNull(),
    entryPath: text("entry_path"),
    pageviews: integer("pageviews").notNull().default(0),
  },
  (t) => [index("sessions_site_last_seen").on(t.siteId, t.lastSeen)],
);

export const EVENT_KINDS = ["pageview", "event", "engagement"] as const;

/** Raw events from the tracker: pageviews, custom events and engagement (time, scroll). */
export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    sessionId: text("session_id"),
    kind: text("kind", { enum: EVENT_KINDS }).notNull(),
    name: text("name"),
    path: text("path").notNull(),
    referrer: text("referrer"),
    value: real("value"),
    /** Engagement: seconds visible and deepest scroll percent on the page. */
    seconds: integer("seconds"),
    scrollDepth: integer("scroll_depth"),
    ts: integer("ts").notNull(),
  },
  (t) => [
    index("events_site_ts").on(t.siteId, t.ts),
    index("events_site_path_ts").on(t.siteId, t.path, t.ts),
  ],
);

/** A counted conversion on a goal, from a beacon or from the s2s path. */
export const conversions = sqliteTable(
  "conversions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    goalId: text("goal_id")
      .notNull()
      .references(() => goals.id, { onDelete: "cascade" }),
    /** Null when the session was not seen in the window: the conversion still counts. */
    sessionId: text("session_id"),
    value: real("value"),
    source: text("source", { enum: ["beacon", "s2s"] }).notNull(),
    /** Client-supplied idempotency id: the same id is counted once per site. */
    eventKey: text("event_key"),
    ts: integer("ts").notNull(),
  },
  (t) => [
    index("conversions_site_goal_ts").on(t.siteId, t.goalId, t.ts),
    uniqueIndex("conversions_site_event_key").on(t.siteId, t.eventKey),
  ],
);

export const VITAL_METRICS = ["LCP", "INP", "CLS", "FCP", "TTFB"] as const;

/** One Core Web Vitals measurement of one page view. */
export const vitals = sqliteTable(
  "vitals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    sessionId: text("session_id"),
    path: text("path").notNull(),
    metric: text("metric", { enum: VITAL_METRICS }).notNull(),
    value: real("value").notNull(),
    ts: integer("ts").notNull(),
  },
  (t) => [index("vitals_site_path_ts").on(t.siteId, t.path, t.ts)],
);

/** What the site wizard's verification reads: first and last beacon per site and origin. */
export const siteBeacons = sqliteTable(
  "site_beacons",
  {
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    origin: text("origin").notNull(),
    firstSeen: integer("first_seen").notNull(),
    lastSeen: integer("last_seen").notNull(),
    lastPage: text("last_page").notNull(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.origin] })],
);

/** A deployment marker, created by the inbound deployment webhook. */
export const deployments = sqliteTable(
  "deployments",
  {
    id: text("id").primaryKey(),
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    version: text("version").notNull(),
    description: text("description"),
    url: text("url"),
    ts: integer("ts").notNull(),
  },
  (t) => [index("deployments_site_ts").on(t.siteId, t.ts)],
);

/** An alert rule on a goal counter over a window (24 h by default). */
export const alertRules = sqliteTable(
  "alert_rules",
  {
    id: text("id").primaryKey(),
    siteId: text("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    goalId: text("goal_id")
      .notNull()
      .references(() => goals.id, { onDelete: "cascade" }),
    windowHours: integer("window_hours").notNull().default(24),
    /** Fires when the goal counted fewer than this many conversions in the window. */
    minCount: integer("min_count").notNull().default(1),
    state: text("state", { enum: ["ok", "firing"] }).notNull().default("ok"),
    lastEvaluatedAt: integer("last_evaluated_at"),
    createdAt: createdAt(),
  },
  (t) => [index("alert_rules_site").on(t.siteId)],
);

/*
 * Report rollups (worker/reports, docs/reports.md). Raw rows are folded in by id above a
 * watermark, in one write transaction per catch-up, so reports read only these tables.
 * `day` is the local date (YYYY-MM-DD) in the site's time zone; `hour` is the UTC instant
 * (ms) at which the local hour starts. A "unit" is a session id, or, for a row without a
 * session, a key of its own ("e:", "c:" or "v:" and the row id): what k-anonymity counts.
 * The *_units tables record which units each cell has seen, so distinct counts grow
 * incrementally; their `id` rises with every insert, which tells a catch-up which units it
 * added.
 */

/** Per source table, the highest raw row id folded in; `mark:` rows are scratch marks of a catch-up. */
export const rollupWatermarks = sqliteTable("rollup_watermarks", {
  source: text("source").primaryKey(),
  lastId: integer("last_id").notNull().default(0),
});

/** Site-day atoms: units with any beacon event that day, and pageviews. */
export const rollupSiteDay = sqliteTable(
  "rollup_site_day",
  {
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    visitors: integer("visitors").notNull().default(0),
    pageviews: integer("pageviews").notNull().default(0),
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
  },
  (t) => [uniqueIndex("rollup_page_day_units_key").on(t.siteId, t.day, t.path, t.unit)],
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
  },
  (t) => [uniqueIndex("rollup_goal_day_units_key").on(t.siteId, t.goalId, t.day, t.unit)],
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
