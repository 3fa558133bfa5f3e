/** Per-key call counters per UTC day and route, and the key's last-used time. */
import { and, desc, eq, gte, sql } from "drizzle-orm";
import type { Database } from "../lib/db";
import { HttpProblem } from "../lib/problem";
import { apiKeys, keyUsage } from "../lib/schema";

const DAY_MS = 86_400_000;

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Counts one call and stamps the key as used, in one round trip. */
export async function recordCall(db: Database, keyId: string, route: string, nowMs = Date.now()): Promise<void> {
  await db.batch([
    db
      .insert(keyUsage)
      .values({ keyId, day: utcDay(nowMs), route, calls: 1 })
      .onConflictDoUpdate({ target: [keyUsage.keyId, keyUsage.day, keyUsage.route], set: { calls: sql`${keyUsage.calls} + 1` } }),
    db.update(apiKeys).set({ lastUsedAt: nowMs }).where(eq(apiKeys.id, keyId)),
  ]);
}

export interface UsageRow {
  day: string;
  route: string;
  calls: number;
}

/** A key's counters for the last `days` UTC days (today included), newest day first. */
export async function keyUsageSince(db: Database, keyId: string, days: number, nowMs = Date.now()): Promise<UsageRow[]> {
  const exists = await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.id, keyId));
  if (exists.length === 0) throw new HttpProblem(404, `No key ${keyId}.`, { field: "id" });
  return db
    .select({ day: keyUsage.day, route: keyUsage.route, calls: keyUsage.calls })
    .from(keyUsage)
    .where(and(eq(keyUsage.keyId, keyId), gte(keyUsage.day, utcDay(nowMs - (days - 1) * DAY_MS))))
    .orderBy(desc(keyUsage.day), keyUsage.route);
}
