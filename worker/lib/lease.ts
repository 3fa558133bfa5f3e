/**
 * A lease in the database (table `leases`), so that of several boxes on one database one does
 * a piece of work at a time: taken or renewed with one conditional upsert, which changes the
 * holder only when the lease has run out, so a box that dies mid-lease is replaced once it
 * expires. A holder whose writes must not land after it lost the lease fences them with
 * leaseHeld() (alert transitions); work whose transactions are safe to repeat (the publisher's
 * folds) only uses it to run once.
 */
import type { Client } from "@libsql/client/web";

export const EVALUATOR_LEASE = "alert-evaluator";
export const PUBLISHER_LEASE = "publisher";

/** Takes or renews `name` for `holder` until `now + ms`; true when `holder` holds it. */
export async function takeLease(client: Client, name: string, holder: string, now: number, ms: number): Promise<boolean> {
  const rs = await client.execute({
    sql:
      "INSERT INTO leases (name, holder, expires_at) VALUES (?1, ?2, ?3) ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, " +
      "expires_at = excluded.expires_at WHERE leases.holder = excluded.holder OR leases.expires_at <= ?4 RETURNING holder",
    args: [name, holder, now + ms, now],
  });
  return rs.rows.length === 1;
}

/** SQL condition (2 arguments: holder, now) that `name` is still held: fences a holder's writes. */
export function leaseHeld(name: string): string {
  return `EXISTS (SELECT 1 FROM leases WHERE name = '${name}' AND holder = ? AND expires_at > ?)`;
}

