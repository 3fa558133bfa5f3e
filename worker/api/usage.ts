/** Per-key call counters per UTC day and route, and the key's last-used time, in one round trip. */
import { eq, sql } from "drizzle-orm";
import type { Database } from "../lib/db";
import { apiKeys, keyUsage } from "../lib/schema";

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export async function recordCall(db: Database, keyId: string, route: string, nowMs = Date.now()): Promise<void> {
  await db.batch([
    db
      .insert(keyUsage)
      .values({ keyId, day: utcDay(nowMs), route, calls: 1 })
      .onConflictDoUpdate({ target: [keyUsage.keyId, keyUsage.day, keyUsage.route], set: { calls: sql`${keyUsage.calls} + 1` } }),
    db.update(apiKeys).set({ lastUsedAt: nowMs }).where(eq(apiKeys.id, keyId)),
  ]);
}
