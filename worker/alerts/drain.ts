/**
 * Sends what is due in the outbox: claim a batch, send each row, record each attempt; again
 * until nothing is due. Rows are sent one after another: a slow receiver delays the others by at
 * most its timeout, and the database sees one writer's worth of claims.
 */
import type { Client } from "@libsql/client/web";
import { destinationSecret } from "../domain/alert-rules";
import type { WebhookAllow } from "../lib/webhook-allow";
import { claimDue, recordAttempt } from "./outbox";
import { sendOnce } from "./send";

export interface DrainOptions {
  holder: string;
  now: () => number;
  serverSecret: string;
  allow: WebhookAllow;
  retryBaseMs: number;
  fetch?: typeof fetch;
  /** Stop claiming after this many rows (the next alarm goes on). */
  limit?: number;
}

const BATCH = 10;

/** Sends every due row; returns how many attempts were made and how many delivered. */
export async function drainOutbox(client: Client, options: DrainOptions): Promise<{ attempts: number; delivered: number }> {
  let attempts = 0;
  let delivered = 0;
  const limit = options.limit ?? 200;
  while (attempts < limit) {
    const rows = await claimDue(client, options.holder, options.now(), BATCH);
    if (rows.length === 0) break;
    for (const row of rows) {
      const result = await sendOnce(row, {
        secret: await destinationSecret(options.serverSecret, row.destinationId),
        allow: options.allow,
        now: options.now(),
        fetch: options.fetch,
      });
      await recordAttempt(client, row, options.holder, result, options.now(), options.retryBaseMs);
      attempts++;
      if (result.status !== null && result.status >= 200 && result.status < 300) delivered++;
    }
  }
  return { attempts, delivered };
}
