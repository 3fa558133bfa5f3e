/**
 * The session salts in the database (`session_salts`), so that every instance on one database
 * hashes a visitor to the same session. Read from the primary (the collector's client), since
 * which salt is current decides what a beacon's session is.
 *
 * A read is enough while the schedule (salts.ts) holds. When it says a salt expired or a new one
 * is due, one write transaction deletes the expired ones and inserts a new salt only if no salt
 * of the current period exists — so two instances rotating at once make one — and reads back
 * what is in force. Retention (reports/retention.ts) deletes expired salts when no beacon comes.
 */
import type { Client, InStatement, ResultSet } from "@libsql/client/web";
import { toHex } from "../lib/crypto";
import { planSalts, SALT_PERIOD_MS, type Salt } from "./salts";

export interface SaltsInForce {
  /** Hashes new activity. */
  current: Salt;
  /** The one before it, for lookups only; null once it expired. */
  previous: Salt | null;
}

const SELECT_SALTS: InStatement = "SELECT id, secret, created_at FROM session_salts ORDER BY created_at DESC";

function saltsOf(rs: ResultSet): Salt[] {
  return rs.rows.map((row) => ({ id: String(row.id), secret: String(row.secret), createdAt: Number(row.created_at) }));
}

/** The salts in force at `now`, rotating (deleting and making salts) first if the schedule says so. */
export async function saltsInForce(client: Client, now: number): Promise<SaltsInForce> {
  const plan = planSalts(saltsOf(await client.execute(SELECT_SALTS)), now);
  if (plan.current && plan.expired.length === 0) return { current: plan.current, previous: plan.previous };
  const made: Salt = {
    id: toHex(crypto.getRandomValues(new Uint8Array(6))),
    secret: toHex(crypto.getRandomValues(new Uint8Array(32))),
    createdAt: now,
  };
  const results = await client.batch(
    [
      ...plan.expired.map((salt) => ({ sql: "DELETE FROM session_salts WHERE id = ?", args: [salt.id] })),
      {
        sql: "INSERT INTO session_salts (id, secret, created_at) SELECT ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM session_salts WHERE created_at > ?)",
        args: [made.id, made.secret, made.createdAt, now - SALT_PERIOD_MS],
      },
      SELECT_SALTS,
    ],
    "write",
  );
  const after = planSalts(saltsOf(results.at(-1)!), now);
  // A salt of this period exists now, made here or by another instance a moment ago.
  if (!after.current) throw new Error("no session salt is current after making one");
  return { current: after.current, previous: after.previous };
}
