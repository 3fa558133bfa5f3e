/** The operator's own records: deployment markers and alert rules. */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { goals, siteIdColumn } from "./core";

export const DEPLOYMENT_SOURCES = ["api", "github", "webhook"] as const;
export type DeploymentSource = (typeof DEPLOYMENT_SOURCES)[number];

/**
 * A deployment marker: the operator's own record of a release, from `POST /api/v1/deployments`
 * or the inbound deployment webhook (worker/domain/deployments.ts). Nothing about the person
 * who deployed is kept.
 */
export const deployments = sqliteTable(
  "deployments",
  {
    id: text("id").primaryKey(),
    siteId: siteIdColumn(),
    /** Commit SHA, tag or build number. */
    version: text("version").notNull(),
    environment: text("environment").notNull().default("production"),
    /** Idempotency key, unique per site: the same one again is the same marker. */
    externalId: text("external_id").notNull(),
    /** The Standard Webhooks `webhook-id` of the delivery that made it, so a replay finds it. */
    webhookId: text("webhook_id"),
    description: text("description"),
    url: text("url"),
    source: text("source", { enum: DEPLOYMENT_SOURCES }).notNull().default("api"),
    /** When it was deployed (deployed_at), ms. */
    ts: integer("ts").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("deployments_site_ts").on(t.siteId, t.ts),
    uniqueIndex("deployments_site_external_id").on(t.siteId, t.externalId),
    uniqueIndex("deployments_site_webhook_id").on(t.siteId, t.webhookId),
  ],
);

/** An alert rule on a goal counter over a window (24 h by default). */
export const alertRules = sqliteTable(
  "alert_rules",
  {
    id: text("id").primaryKey(),
    siteId: siteIdColumn(),
    goalId: text("goal_id")
      .notNull()
      .references(() => goals.id, { onDelete: "cascade" }),
    windowHours: integer("window_hours").notNull().default(24),
    /** Fires when the goal counted fewer than this many conversions in the window. */
    minCount: integer("min_count").notNull().default(1),
    state: text("state", { enum: ["ok", "firing"] })
      .notNull()
      .default("ok"),
    lastEvaluatedAt: integer("last_evaluated_at"),
    createdAt: createdAt(),
  },
  (t) => [index("alert_rules_site").on(t.siteId)],
);
