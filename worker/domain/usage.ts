/**
 * Per-key call counters per UTC day and route, and the key's last-used time. Requests do not
 * write them: each key's RateLimiter counts its calls and adds them here in one batch at most
 * every 10 s (api/ratelimit.ts), so a read on the API takes no write lock from the collector.
 */
import { and, desc, eq, gte, sql } from "drizzle-orm";
import type { Database } from "../lib/db";
import { HttpProblem } from "../lib/problem";
import { apiKeys, keyUsage } from "../lib/schema";

const DAY_MS = 86_400_000;

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export interface UsageRow {
  day: string;
  route: string;
  calls: number;
}

/**
 * Adds counted calls to a key's counters and moves its last use up to `lastUsedMs` (never
 * back), in one batch. Rows for a key that no longer exists are dropped rather than failing:
 * the flush that sends them would otherwise retry them forever.
 */
export async function addCalls(db: Database, keyId: string, rows: UsageRow[], lastUsedMs: number): Promise<void> {
  if (rows.length === 0) return;
  await db.batch([
    db
      .update(apiKeys)
      .set({ lastUsedAt: sql`max(coalesce(${apiKeys.lastUsedAt}, 0), ${lastUsedMs})` })
      .where(eq(apiKeys.id, keyId)),
    ...rows.map((row) =>
      db
        .insert(keyUsage)
        .select(sql`SELECT ${apiKeys.id}, ${row.day}, ${row.route}, ${row.calls} FROM ${apiKeys} WHERE ${apiKeys.id} = ${keyId}`)
        .onConflictDoUpdate({
          target: [keyUsage.keyId, keyUsage.day, keyUsage.route],
          set: { calls: sql`${keyUsage.calls} + excluded.calls` },
        }),
    ),
  ]);
}

/** Refuses an id no key (active or revoked) has, with the 404 the key routes answer. */
export async function requireKey(db: Database, keyId: string): Promise<void> {
  const exists = await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.id, keyId));
  if (exists.length === 0) throw new HttpProblem(404, `No key ${keyId}.`, { field: "id" });
}

/** A key's counters for the last `days` UTC days (today included), newest day first. */
export async function keyUsageSince(db: Database, keyId: string, days: number, nowMs = Date.now()): Promise<UsageRow[]> {
  await requireKey(db, keyId);
  return db
    .select({ day: keyUsage.day, route: keyUsage.route, calls: keyUsage.calls })
    .from(keyUsage)
    .where(and(eq(keyUsage.keyId, keyId), gte(keyUsage.day, utcDay(nowMs - (days - 1) * DAY_MS))))
    .orderBy(desc(keyUsage.day), keyUsage.route);
}
