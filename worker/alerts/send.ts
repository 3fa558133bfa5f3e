/**
 * One delivery attempt over HTTP. Standard Webhooks: headers `webhook-id` (the outbox row's id,
 * the same on every attempt), `webhook-timestamp` and `webhook-signature`, signed with the
 * `standardwebhooks` package (the sender signs; nothing here guards a write). Slack: the
 * message alone, unsigned (Slack's incoming webhooks take no signature).
 *
 * Bounded: 10 s per attempt, redirects not followed (a 3xx is a failed attempt), at most 4 KiB
 * of the answer read. The destination is checked against WREN_WEBHOOK_ALLOW again before each
 * attempt; workerd's network service refuses anything else at the socket anyway.
 */
import { Webhook } from "standardwebhooks";
import { destinationProblem, type WebhookAllow } from "../lib/webhook-allow";
import type { AttemptResult, Claimed } from "./outbox";
import { maskedUrl, type Notification } from "../domain/alert-rules";
import { slackMessage } from "./payload";

export const DELIVERY_TIMEOUT_MS = 10_000;
const ANSWER_LIMIT = 4096;

export interface SendOptions {
  secret: string;
  allow: WebhookAllow;
  now: number;
  fetch?: typeof fetch;
}

export async function sendOnce(row: Claimed, options: SendOptions): Promise<AttemptResult> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  if (row.url === null || row.format === null) return { status: null, error: "the destination no longer exists", durationMs: 0 };
  const refused = destinationProblem(row.url, options.allow);
  if (refused) return { status: null, error: `url ${refused}`, durationMs: 0 };
  const headers = new Headers({ "content-type": "application/json", "user-agent": "Wren-Alerts" });
  let body = row.payload;
  // A digest's row holds its Slack message already (alerts/digests.ts); a notification's is made here.
  if (row.format === "slack")
    body = row.type.startsWith("digest.") ? row.payload : JSON.stringify(slackMessage(JSON.parse(row.payload) as Notification));
  else {
    const timestamp = new Date(Math.floor(options.now / 1000) * 1000);
    headers.set("webhook-id", row.id);
    headers.set("webhook-timestamp", String(timestamp.getTime() / 1000));
    headers.set("webhook-signature", new Webhook(options.secret).sign(row.id, timestamp, body));
  }
  try {
    const response = await (options.fetch ?? fetch)(row.url, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    await readSome(response);
    return { status: response.status, error: null, durationMs: elapsed() };
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    // The history is read with read:reports: an error that quotes the URL quotes it masked.
    return { status: null, error: message.split(row.url).join(maskedUrl(row.url)).slice(0, 200), durationMs: elapsed() };
  }
}

/** Reads at most ANSWER_LIMIT bytes of the answer, then lets the rest go. */
async function readSome(response: Response): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  let read = 0;
  try {
    while (read < ANSWER_LIMIT) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
