/** The operator's own records: deployment markers and alert rules. */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { goals, siteIdColumn } from "./core";

/** A deployment marker, created by the inbound deployment webhook. */
export const deployments = sqliteTable(
  "deployments",
  {
    id: text("id").primaryKey(),
    siteId: siteIdColumn(),
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
