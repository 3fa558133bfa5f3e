/**
 * The registry: sites, their goals, API keys and the keys' call counters. Timestamps here
 * and in every schema file are integer milliseconds since the epoch (UTC).
 */
import { integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";

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
    /**
     * Version of the deployment webhook's secret, derived from the server secret and this
     * (domain/deployment-hook.ts); 0 while the site has no hook. Bumped to rotate.
     */
    deploymentHookVersion: integer("deployment_hook_version").notNull().default(0),
  },
  (t) => [uniqueIndex("sites_domain_unique").on(t.domain)],
);

/** The `site_id` column of a table whose rows belong to a site (and go when it is deleted). */
export const siteIdColumn = () =>
  text("site_id")
    .notNull()
    .references(() => sites.id, { onDelete: "cascade" });

/** outbound, download and not-found count the tracker's own events (lib/reserved-events.ts). */
export const GOAL_KINDS = ["page", "event", "time", "scroll", "outbound", "download", "not-found"] as const;
export type GoalKind = (typeof GOAL_KINDS)[number];

/** The `purpose` that makes an event goal a smoke test: the operator's own synthetic conversions. */
export const SMOKE_TEST_PURPOSE = "smoke-test";

/**
 * A smoke-test goal: an event goal with `purpose: "smoke-test"`. It counts only conversions
 * posted through `/s2s` or `POST /api/v1/events`, never beacons, and each one is listed beside
 * its deployment marker (smoke_conversions).
 */
export function isSmokeTestGoal(goal: { kind: string; purpose: string | null }): boolean {
  return goal.kind === "event" && goal.purpose === SMOKE_TEST_PURPOSE;
}

/** A goal: what counts as a conversion on a site. */
export const goals = sqliteTable(
  "goals",
  {
    id: text("id").primaryKey(),
    siteId: siteIdColumn(),
    name: text("name").notNull(),
    kind: text("kind", { enum: GOAL_KINDS }).notNull(),
    /** Path pattern (page, time, scroll, not-found), event name (event), extensions or * (download), * (outbound). */
    match: text("match").notNull(),
    /** Seconds on page (time) or depth percent (scroll); 0 for page and event goals. */
    threshold: integer("threshold").notNull().default(0),
    /** Free-form marker such as "smoke-test". */
    purpose: text("purpose"),
    /** A revenue goal's ISO 4217 code (`EUR`); null for a plain goal. Conversions in another currency are refused. */
    currency: text("currency"),
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
