/** What the collector stores: anonymised sessions, raw events, conversions, vitals, and the latest beacon per origin. */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { pageviewDimensionColumns } from "./columns";
import { goals, siteIdColumn } from "./core";

/**
 * An anonymised session. `id` is a keyed hash under a salt that is destroyed after the
 * 24-hour window, so nothing here links back to a browser once the window closes.
 */
export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    siteId: siteIdColumn(),
    firstSeen: integer("first_seen").notNull(),
    lastSeen: integer("last_seen").notNull(),
    entryPath: text("entry_path"),
    pageviews: integer("pageviews").notNull().default(0),
  },
  (t) => [
    index("sessions_site_last_seen").on(t.siteId, t.lastSeen),
    // The first day's steps (reports/arrivals.ts): sessions started per hour, with their ids for the key sum, from the index alone.
    index("sessions_site_first_seen").on(t.siteId, t.firstSeen, t.id),
  ],
);

export const EVENT_KINDS = ["pageview", "event", "engagement"] as const;

/** Raw events from the tracker: pageviews, custom events and engagement (time, scroll). */
export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    siteId: siteIdColumn(),
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
    /**
     * Dimensions of a pageview, derived by the collector (collector/dimensions): the source
     * (grouped referrer), the landing page's UTM parameters, browser and system with their major
     * versions, device class and country. Never the User-Agent or the address they came from.
     * Null on other kinds and on rows stored before dimensions existed.
     */
    ...pageviewDimensionColumns(),
    /** Custom properties kept (on the site's allowlist, schema/props.ts): a JSON object of strings; null when none. */
    props: text("props"),
  },
  (t) => [index("events_site_ts").on(t.siteId, t.ts), index("events_site_path_ts").on(t.siteId, t.path, t.ts)],
);

/** A counted conversion on a goal, from a beacon or from the s2s path. */
export const conversions = sqliteTable(
  "conversions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    siteId: siteIdColumn(),
    goalId: text("goal_id")
      .notNull()
      .references(() => goals.id, { onDelete: "cascade" }),
    /** Null when the session was not seen in the window: the conversion still counts. */
    sessionId: text("session_id"),
    value: real("value"),
    /** The conversion's revenue in integer cents (hundredths of `currency`); null without one. */
    revenue: integer("revenue"),
    /** The revenue's ISO 4217 code: always the goal's currency (others are refused or dropped). */
    currency: text("currency"),
    source: text("source", { enum: ["beacon", "s2s"] }).notNull(),
    /**
     * Idempotency key: a keyed hash of the caller's `id` (never the id itself), or a goal and
     * session key for once-per-session goals. Dropped (NULL) once the 24-hour window closes.
     */
    eventKey: text("event_key"),
    ts: integer("ts").notNull(),
    /** Custom properties kept, as on events.props. */
    props: text("props"),
  },
  (t) => [
    index("conversions_site_goal_ts").on(t.siteId, t.goalId, t.ts),
    uniqueIndex("conversions_site_event_key").on(t.siteId, t.eventKey),
    // The keys retention still has to drop, oldest first.
    index("conversions_keyed_ts").on(t.ts).where(sql`event_key IS NOT NULL`),
  ],
);

export const VITAL_METRICS = ["LCP", "INP", "CLS", "FCP", "TTFB"] as const;

/** One Core Web Vitals measurement of one page view. */
export const vitals = sqliteTable(
  "vitals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    siteId: siteIdColumn(),
    sessionId: text("session_id"),
    path: text("path").notNull(),
    metric: text("metric", { enum: VITAL_METRICS }).notNull(),
    value: real("value").notNull(),
    ts: integer("ts").notNull(),
  },
  (t) => [
    index("vitals_site_path_ts").on(t.siteId, t.path, t.ts),
    // A filtered session-day's samples (reports/explore/vitals.ts), read session by session.
    index("vitals_site_session_ts").on(t.siteId, t.sessionId, t.ts),
  ],
);

/**
 * What the site wizard's verification reads: the first beacon per site and origin, and nothing
 * after it (a latest beacon's time and page, polled, would follow visitors one by one).
 */
export const siteBeacons = sqliteTable(
  "site_beacons",
  {
    siteId: siteIdColumn(),
    origin: text("origin").notNull(),
    firstSeen: integer("first_seen").notNull(),
    /** The page of that first beacon (its first event's path), for the wizard's "Verified on /pricing". */
    path: text("path"),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.origin] })],
);

/**
 * Each smoke-test conversion (an s2s conversion of a smoke-test goal) with the caller's `id` in
 * plain text: the operator's own synthetic id (a deployment's id or version), so it can be
 * listed beside its deployment marker. Written in the same transaction as its conversion
 * (collector/rows.ts), and deleted with it (retention, goal and site deletion).
 */
export const smokeConversions = sqliteTable(
  "smoke_conversions",
  {
    conversionId: integer("conversion_id")
      .primaryKey()
      .references(() => conversions.id, { onDelete: "cascade" }),
    siteId: siteIdColumn(),
    goalId: text("goal_id")
      .notNull()
      .references(() => goals.id, { onDelete: "cascade" }),
    /** The caller's `id`, as sent; null when it sent none. */
    externalId: text("external_id"),
    /** Whether it was attached to a session (conversions.session_id not null). */
    attached: integer("attached", { mode: "boolean" }).notNull(),
    ts: integer("ts").notNull(),
  },
  (t) => [index("smoke_conversions_site_ts").on(t.siteId, t.ts), index("smoke_conversions_site_external_id").on(t.siteId, t.externalId)],
);

/**
 * Session salts (collector/salts.ts): each hashes new session ids for 24 hours, then serves
 * lookups for 24 more, then is deleted. In the database so that every instance of a scale-out
 * hashes with the same salt; made with a conditional insert, so two instances cannot each make
 * a current one. The embedded server zeroes deleted rows (`secure_delete`) and checkpoints when
 * idle, so a deleted salt leaves wren.db and its WAL too (docs/collector.md).
 */
export const sessionSalts = sqliteTable(
  "session_salts",
  {
    id: text("id").primaryKey(),
    /** 32 random bytes, hex. */
    secret: text("secret").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("session_salts_created_at").on(t.createdAt)],
);
