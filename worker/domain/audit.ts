/**
 * The audit log: who signed in, issued or revoked keys, changed people, roles, sites, goals,
 * alerts and shares — with time and actor. Route handlers call `recordAudit` after the change;
 * `detail` carries names and roles, never a secret, token, e-mail body or IP (the entry is
 * readable by every admin of its site). Old entries go with retention
 * (WREN_AUDIT_RETENTION_DAYS, default 400; reports/retention.ts).
 */
import { and, desc, eq, inArray, lt, type SQL } from "drizzle-orm";
import { now } from "../lib/clock";
import type { Database } from "../lib/db";
import { newId } from "../lib/ids";
import { auditLog } from "../lib/schema";
import type { Caller } from "./access";

export interface AuditActor {
  kind: "key" | "account" | "system" | "share";
  id: string;
  name: string;
}

export interface AuditEntry {
  actor: AuditActor;
  action: string;
  siteId?: string | null;
  target?: string | null;
  detail?: Record<string, unknown>;
}

export type AuditRow = typeof auditLog.$inferSelect;

export const SYSTEM_ACTOR: AuditActor = { kind: "system", id: "system", name: "operator (CLI)" };
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

export function auditActor(caller: Caller): AuditActor {
  return { ...caller.principal };
}

/** Keys whose values could be secrets never reach the log, whatever a caller passes. */
const SECRET_KEY = /token|secret|password|key$|cookie|csrf|ip|body/i;

export function recordAuditStatement(db: Database, entry: AuditEntry, at = now()) {
  const detail = entry.detail
    ? Object.fromEntries(Object.entries(entry.detail).filter(([name]) => !SECRET_KEY.test(name)))
    : null;
  return db.insert(auditLog).values({
    id: newId("aud"),
    at,
    actorKind: entry.actor.kind,
    actorId: entry.actor.id,
    actorName: entry.actor.name,
    action: entry.action,
    siteId: entry.siteId ?? null,
    target: entry.target ?? null,
    detail,
  });
}

export async function recordAudit(db: Database, entry: AuditEntry): Promise<void> {
  await recordAuditStatement(db, entry);
}

/**
 * A page of entries, newest first, before `before` (ms). `sites`: null for every entry, else
 * only entries about those sites (a site admin's view).
 */
export async function listAudit(
  db: Database,
  options: { sites: string[] | null; site?: string | undefined; before?: number | undefined; limit: number },
): Promise<AuditRow[]> {
  const where: SQL[] = [];
  if (options.sites !== null) where.push(inArray(auditLog.siteId, options.sites));
  if (options.site) where.push(eq(auditLog.siteId, options.site));
  if (options.before !== undefined) where.push(lt(auditLog.at, options.before));
  return db
    .select()
    .from(auditLog)
    .where(and(...where))
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(options.limit);
}

/** Deletes entries older than `days` (the retention job). */
export async function pruneAudit(db: Database, days: number, at = now()): Promise<number> {
  const rows = await db
    .delete(auditLog)
    .where(lt(auditLog.at, at - days * 86_400_000))
    .returning({ id: auditLog.id });
  return rows.length;
}
