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
