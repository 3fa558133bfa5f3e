/**
 * Sends what is due in the outbox: claim a batch, send each row, record each attempt; again
 * until nothing is due. Rows are sent one after another: a slow receiver delays the others by at
 * most its timeout, and the database sees one writer's worth of claims.
 *
 * Each failed attempt is one line on stderr (failureLine): the rule, the destination's host (a
 * webhook URL's path is often its secret, so never the URL), the attempt and the reason. workerd
 * hands a network failure to the worker as "internal error; reference = …"; `wren start` puts
 * workerd's own reason in its place (cli/workerd-log.ts).
 */
import type { Client } from "@libsql/client/web";
import { destinationSecret } from "../domain/alert-rules";
import type { WebhookAllow } from "../lib/webhook-allow";
import { claimDue, MAX_ATTEMPTS, recordAttempt, retryDelay, type AttemptResult, type Claimed } from "./outbox";
import { sendOnce } from "./send";

export interface DrainOptions {
  holder: string;
  /** The service's clock: which rows are due, when attempts are recorded. */
  now: () => number;
  /** The signatures' timestamp (default `now`): the worker passes the real clock, which the receiver checks against its own (lib/clock.ts). */
  signedAt?: () => number;
  serverSecret: string;
  allow: WebhookAllow;
  retryBaseMs: number;
  fetch?: typeof fetch;
  /** Stop claiming after this many rows (the next alarm goes on). */
  limit?: number;
  /** Where a failed attempt's line goes (default console.error). */
  log?: (line: string) => void;
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
        now: (options.signedAt ?? options.now)(),
        fetch: options.fetch,
      });
      await recordAttempt(client, row, options.holder, result, options.now(), options.retryBaseMs);
      attempts++;
      if (result.status !== null && result.status >= 200 && result.status < 300) delivered++;
      else (options.log ?? console.error)(failureLine(row, result, options.retryBaseMs));
    }
  }
  return { attempts, delivered };
}

/** The destination as a log may name it: its host (and port), never its path or query. */
function destinationHost(row: Claimed): string {
  if (row.url === null) return `${row.destinationId} (deleted)`;
  try {
    return new URL(row.url).host;
  } catch {
    return row.destinationId;
  }
}

/**
 * A failed attempt in one line: "alert delivery failed: rule alr_… to hooks.example.com, attempt
 * 2 of 13: HTTP 500; next attempt in 60 s" (or "; no more attempts"). The reason is the answer's
 * status or the error's first line, without the URL should an error quote it.
 */
export function failureLine(row: Claimed, result: AttemptResult, retryBaseMs: number): string {
  const attempt = row.attempts + 1;
  const host = destinationHost(row);
  let reason = result.status !== null ? `HTTP ${result.status}` : (result.error ?? "no answer");
  reason = reason.split("\n")[0]!.replace(/^(?:Type)?Error: /, "");
  if (row.url) reason = reason.split(row.url).join(host);
  const delay = retryDelay(attempt, retryBaseMs);
  const next = delay === null ? "no more attempts" : `next attempt in ${Math.round(delay / 1000)} s`;
  return `alert delivery failed: rule ${row.ruleId} to ${host}, attempt ${attempt} of ${MAX_ATTEMPTS}: ${reason}; ${next}`;
}
