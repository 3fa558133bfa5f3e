/** The operator's own records: deployment markers and alert rules. */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
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

/**
 * What the deployment hook has recorded (worker/domain/deployment-hook.ts), kept after its marker
 * is deleted so the same signed delivery cannot make it again: `github:<deployment id>` or
 * `webhook-id:<webhook-id>`. Deleted 48 h on (reports/retention.ts), once a delivery that old is
 * refused by its age anyway (created_at or webhook-timestamp).
 */
export const deploymentHookReceipts = sqliteTable(
  "deployment_hook_receipts",
  {
    siteId: siteIdColumn(),
    key: text("key").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.key] }), index("deployment_hook_receipts_created_at").on(t.createdAt)],
);

export const ALERT_KINDS = ["threshold", "deployment_without_smoke"] as const;
export const ALERT_METRICS = ["goal", "pageviews", "visitors"] as const;
export const ALERT_CONDITIONS = ["below", "above"] as const;
export const ALERT_STATES = ["ok", "firing"] as const;
export const DESTINATION_FORMATS = ["standard", "slack"] as const;
export const OUTBOX_STATUSES = ["pending", "delivered", "failed"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
export type AlertMetric = (typeof ALERT_METRICS)[number];
export type AlertCondition = (typeof ALERT_CONDITIONS)[number];
export type AlertState = (typeof ALERT_STATES)[number];
export type DestinationFormat = (typeof DESTINATION_FORMATS)[number];

/**
 * An alert rule (worker/alerts/): a threshold on a counter over trailing closed hours, or
 * `deployment_without_smoke`. Its state lives beside it; `seq` counts its transitions, and a
 * transition is written only where `seq` still holds the value read, so two evaluators (two
 * boxes) can never both record one.
 */
export const alertRules = sqliteTable(
  "alert_rules",
  {
    id: text("id").primaryKey(),
    siteId: siteIdColumn(),
    kind: text("kind", { enum: ALERT_KINDS }).notNull(),
    metric: text("metric", { enum: ALERT_METRICS }),
    goalId: text("goal_id").references(() => goals.id, { onDelete: "cascade" }),
    condition: text("condition", { enum: ALERT_CONDITIONS }),
    threshold: integer("threshold"),
    windowHours: integer("window_hours"),
    forMinutes: integer("for_minutes").notNull().default(0),
    withinMinutes: integer("within_minutes"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    state: text("state", { enum: ALERT_STATES }).notNull().default("ok"),
    seq: integer("seq").notNull().default(0),
    /** When the state was entered (ms). */
    stateSince: integer("state_since").notNull(),
    /** Since when the firing (or resolving) condition has held, waiting out for_minutes. */
    pendingSince: integer("pending_since"),
    /** The last figure evaluated (null value: suppressed or not yet known). */
    lastValue: integer("last_value"),
    lastQualifier: text("last_qualifier"),
    evaluatedAt: integer("evaluated_at"),
    /** deployment_without_smoke: the marker the state is about. */
    deploymentId: text("deployment_id"),
    createdAt: createdAt(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("alert_rules_site").on(t.siteId)],
);

/** Where a rule's notifications go. The signing secret is derived, never stored (domain/alert-rules/secrets.ts). */
export const alertDestinations = sqliteTable(
  "alert_destinations",
  {
    id: text("id").primaryKey(),
    ruleId: text("rule_id").notNull(),
    position: integer("position").notNull(),
    url: text("url").notNull(),
    format: text("format", { enum: DESTINATION_FORMATS }).notNull(),
  },
  (t) => [index("alert_destinations_rule").on(t.ruleId, t.position)],
);

/** Every state change of a rule, kept for its history. The id is `rule:seq`: one per transition. */
export const alertTransitions = sqliteTable(
  "alert_transitions",
  {
    id: text("id").primaryKey(),
    ruleId: text("rule_id").notNull(),
    seq: integer("seq").notNull(),
    at: integer("at").notNull(),
    fromState: text("from_state", { enum: ALERT_STATES }).notNull(),
    toState: text("to_state", { enum: ALERT_STATES }).notNull(),
    value: integer("value"),
    qualifier: text("qualifier").notNull(),
    windowStart: integer("window_start").notNull(),
    windowEnd: integer("window_end").notNull(),
    deploymentId: text("deployment_id"),
  },
  (t) => [index("alert_transitions_rule").on(t.ruleId, t.seq)],
);

/**
 * The durable outbox: one row per notification and destination, written in the transaction that
 * makes it. Its id is the Standard Webhooks `webhook-id`, the same on every attempt. A sender
 * claims a row (claimed_by, claimed_until) before it sends, so one box sends it at a time.
 */
export const alertOutbox = sqliteTable(
  "alert_outbox",
  {
    id: text("id").primaryKey(),
    ruleId: text("rule_id").notNull(),
    transitionId: text("transition_id"),
    destinationId: text("destination_id").notNull(),
    type: text("type").notNull(),
    payload: text("payload").notNull(),
    status: text("status", { enum: OUTBOX_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at").notNull(),
    claimedBy: text("claimed_by"),
    claimedUntil: integer("claimed_until"),
    deliveredAt: integer("delivered_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("alert_outbox_due").on(t.status, t.nextAttemptAt), index("alert_outbox_rule").on(t.ruleId), index("alert_outbox_claim").on(t.claimedBy)],
);

/** Each delivery attempt of an outbox row: when, the HTTP status or the error, how long it took. */
export const alertDeliveryAttempts = sqliteTable(
  "alert_delivery_attempts",
  {
    outboxId: text("outbox_id").notNull(),
    attempt: integer("attempt").notNull(),
    at: integer("at").notNull(),
    status: integer("status"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
  },
  (t) => [primaryKey({ columns: [t.outboxId, t.attempt] })],
);

/**
 * Leases over work that one box of several must do alone (alert evaluation): taken and renewed
 * with one conditional upsert, so the holder changes only when its lease has run out.
 */
export const leases = sqliteTable("leases", {
  name: text("name").primaryKey(),
  holder: text("holder").notNull(),
  expiresAt: integer("expires_at").notNull(),
});

/**
 * One row that `/healthz` rewrites (at most every few seconds) to prove the database can still
 * write: a full disk or a read-only file fails this before it fails an acknowledged event.
 */
export const healthProbe = sqliteTable("health_probe", {
  id: integer("id").primaryKey(),
  /** When the probe last wrote, ms. */
  checkedAt: integer("checked_at").notNull(),
});

/**
 * The live instances (workerd boxes) on this database: each writes its row from its publisher's
 * alarm, so any instance can tell how many share the work — the per-instance rate-limit budget
 * divides by it (api/instances.ts). Rows not renewed for a day are removed by the same write.
 */
export const instances = sqliteTable("instances", {
  id: text("id").primaryKey(),
  seenAt: integer("seen_at").notNull(),
});
