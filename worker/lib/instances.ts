/**
 * How many Wren instances (workerd boxes) share the database. Each instance's publisher writes a
 * heartbeat row on every alarm (at most every 60 s); an instance counts as live while its row is
 * younger than INSTANCE_LIVE_MS. The api divides each key's rate limit by the live count, so the
 * instances together admit at most the key's limit (docs/operations.md, "Scale-out").
 */
import type { Client, InStatement } from "@libsql/client/web";

/** Longer than the slowest heartbeat (WREN_PUBLISH_INTERVAL is at most 60 s), with room for one missed beat. */
export const INSTANCE_LIVE_MS = 150_000;
/** A row not renewed for this long is an instance that is gone: the heartbeat deletes it. */
const INSTANCE_FORGET_MS = 24 * 3_600_000;
/** How long an isolate trusts the count it read: an instance that joins is counted within this. */
export const INSTANCE_COUNT_TTL_MS = 10_000;

/** Renews `id`'s row and forgets instances gone for a day. */
export function heartbeatStatements(id: string, now: number): InStatement[] {
  return [
    {
      sql: "INSERT INTO instances (id, seen_at) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at",
      args: [id, now],
    },
    { sql: "DELETE FROM instances WHERE seen_at < ?", args: [now - INSTANCE_FORGET_MS] },
  ];
}

/** The instances seen within INSTANCE_LIVE_MS of `now`; at least 1 (this one, before its first beat). */
export async function liveInstances(client: Client, now: number): Promise<number> {
  const rs = await client.execute({
    sql: "SELECT count(*) AS n FROM instances WHERE seen_at > ?",
    args: [now - INSTANCE_LIVE_MS],
  });
  return Math.max(1, Number(rs.rows[0]?.n ?? 1));
}

let cached: { count: number; until: number } | undefined;

/**
 * liveInstances, read at most every INSTANCE_COUNT_TTL_MS per isolate. When the read fails the
 * last count stands (1 before any): the request's own database calls report the fault.
 */
export async function instanceCount(client: Client, now = Date.now()): Promise<number> {
  if (cached && now < cached.until) return cached.count;
  try {
    cached = { count: await liveInstances(client, now), until: now + INSTANCE_COUNT_TTL_MS };
  } catch {
    cached = { count: cached?.count ?? 1, until: now + 1_000 };
  }
  return cached.count;
}

/** Forgets the cached count (tests). */
export function forgetInstanceCount(): void {
  cached = undefined;
}
