/**
 * The outbox's sender side. Any box may send: it claims due rows with one conditional UPDATE
 * (claimed_by, claimed_until), sends them, and records each attempt, releasing the claim. A
 * claim runs out after CLAIM_MS, longer than a delivery may take, so a row whose box died is
 * sent again by another; a box that restarts releases its own claims at once (scheduler.ts).
 * The row's id is the `webhook-id` of every attempt, so a receiver that saw an attempt whose
 * answer was lost can tell the retry is the same message.
 *
 * Retries back off exponentially from WREN_WEBHOOK_RETRY_SECONDS (default 30 s), doubling up to
 * 12 h; after MAX_ATTEMPTS the row is `failed` and stays in the history.
 */
import type { Client } from "@libsql/client/web";
import type { DestinationFormat } from "../lib/schema";

export const CLAIM_MS = 60_000;
export const MAX_DELAY_MS = 12 * 3_600_000;
export const MAX_ATTEMPTS = 13;
export const DEFAULT_RETRY_BASE_MS = 30_000;

export interface Claimed {
  id: string;
  ruleId: string;
  destinationId: string;
  type: string;
  payload: string;
  attempts: number;
  url: string | null;
  format: DestinationFormat | null;
}

export interface AttemptResult {
  /** The HTTP status, when there was an answer. */
  status: number | null;
  /** Why it failed without an answer (timeout, refused address), or null. */
  error: string | null;
  durationMs: number;
}

/** WREN_WEBHOOK_RETRY_SECONDS in ms (1–3600 s, else the default). */
export function retryBaseMs(setting: string | null | undefined): number {
  const seconds = Number(setting);
  return setting && Number.isFinite(seconds) && seconds >= 1 && seconds <= 3600 ? seconds * 1000 : DEFAULT_RETRY_BASE_MS;
}

/** The wait after failed attempt `attempt` (1-based), or null when it was the last. */
export function retryDelay(attempt: number, baseMs: number): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  return Math.min(MAX_DELAY_MS, baseMs * 2 ** (attempt - 1));
}

/** Claims up to `limit` due rows for `holder`. */
export async function claimDue(client: Client, holder: string, now: number, limit: number): Promise<Claimed[]> {
  const claimed = await client.execute({
    sql:
      "UPDATE alert_outbox SET claimed_by = ?1, claimed_until = ?2 WHERE id IN (SELECT id FROM alert_outbox WHERE status = 'pending' " +
      "AND next_attempt_at <= ?3 AND (claimed_until IS NULL OR claimed_until <= ?3) ORDER BY next_attempt_at, id LIMIT ?4) " +
      "RETURNING id, rule_id, destination_id, type, payload, attempts",
    args: [holder, now + CLAIM_MS, now, limit],
  });
  if (claimed.rows.length === 0) return [];
  const ids = claimed.rows.map((r) => String(r.destination_id));
  const destinations = await client.execute({
    sql: "SELECT id, url, format FROM alert_destinations WHERE id IN (SELECT value FROM json_each(?))",
    args: [JSON.stringify(ids)],
  });
  const byId = new Map(destinations.rows.map((d) => [String(d.id), { url: String(d.url), format: String(d.format) as DestinationFormat }]));
  return claimed.rows.map((r) => ({
    id: String(r.id),
    ruleId: String(r.rule_id),
    destinationId: String(r.destination_id),
    type: String(r.type),
    payload: String(r.payload),
    attempts: Number(r.attempts),
    url: byId.get(String(r.destination_id))?.url ?? null,
    format: byId.get(String(r.destination_id))?.format ?? null,
  }));
}

/** Records an attempt and settles the row: delivered, due again later, or failed. */
export async function recordAttempt(client: Client, row: Claimed, holder: string, result: AttemptResult, now: number, baseMs: number): Promise<void> {
  const attempt = row.attempts + 1;
  const delivered = result.status !== null && result.status >= 200 && result.status < 300;
  const delay = delivered ? null : retryDelay(attempt, baseMs);
  const status = delivered ? "delivered" : delay === null ? "failed" : "pending";
  await client.batch(
    [
      {
        sql: "INSERT OR IGNORE INTO alert_delivery_attempts (outbox_id, attempt, at, status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?)",
        args: [row.id, attempt, now, result.status, result.error, result.durationMs],
      },
      {
        sql:
          "UPDATE alert_outbox SET attempts = ?, status = ?, next_attempt_at = ?, delivered_at = ?, claimed_by = NULL, claimed_until = NULL " +
          "WHERE id = ? AND claimed_by = ?",
        args: [attempt, status, delay === null ? now : now + delay, delivered ? now : null, row.id, holder],
      },
    ],
    "write",
  );
}

/** Releases every claim of `holder`: its sends in flight died with the process that made them. */
export async function releaseClaims(client: Client, holder: string): Promise<void> {
  await client.execute({ sql: "UPDATE alert_outbox SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ? AND status = 'pending'", args: [holder] });
}

/** When the next row falls due (ms), or null when none is pending. */
export async function nextDue(client: Client): Promise<number | null> {
  const rs = await client.execute("SELECT min(max(next_attempt_at, coalesce(claimed_until, 0))) AS due FROM alert_outbox WHERE status = 'pending'");
  const due = rs.rows[0]?.due;
  return due === null || due === undefined ? null : Number(due);
}
