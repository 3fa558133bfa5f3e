/**
 * The audit log: who did what, when, to which site. `detail` never holds a secret, token,
 * e-mail body or IP (domain/audit.ts). Kept WREN_AUDIT_RETENTION_DAYS (default 400).
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const AUDIT_ACTOR_KINDS = ["key", "account", "system", "share"] as const;

export const auditLog = sqliteTable(
  "audit_log",
  {
    id: text("id").primaryKey(),
    at: integer("at").notNull(),
    actorKind: text("actor_kind", { enum: AUDIT_ACTOR_KINDS }).notNull(),
    actorId: text("actor_id").notNull(),
    actorName: text("actor_name").notNull(),
    action: text("action").notNull(),
    siteId: text("site_id"),
    target: text("target"),
    detail: text("detail", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [index("audit_log_at").on(t.at), index("audit_log_site_at").on(t.siteId, t.at)],
);
