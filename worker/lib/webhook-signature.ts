/**
 * Signatures of inbound webhook deliveries, checked with WebCrypto over the raw body bytes
 * before anything is parsed or written. `crypto.subtle.verify` compares the MACs in constant
 * time, so a forged signature learns nothing from how long it took to be refused.
 *
 * - **GitHub** (`X-Hub-Signature-256: sha256=<hex>`): HMAC-SHA256 keyed with the secret as
 *   the operator typed it into GitHub — the whole `whsec_…` string, as UTF-8 — over the body.
 * - **Standard Webhooks** (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>
 *   …`): HMAC-SHA256 keyed with the base64-decoded bytes after `whsec_`, over
 *   `id.timestamp.body`; the timestamp within five minutes of now.
 *
 * Why not the `standardwebhooks` package here: it computes the HMAC in plain JavaScript
 * (fast-sha256), while every check that guards a write runs on WebCrypto (docs/architecture.md);
 * it also needs the body as a string. The tests sign with the package, so the two agree.
 */
import { fromBase64 } from "./crypto";

export const STANDARD_WEBHOOK_TOLERANCE_MS = 5 * 60 * 1000;
export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** Signatures a `webhook-signature` header may list (a sender rotating its key sends two). */
const MAX_SIGNATURES = 8;

const encoder = new TextEncoder();

function hmacKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
}

function fromHex(hex: string): Uint8Array | null {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return null;
  return new Uint8Array(hex.match(/../g)!.map((h) => parseInt(h, 16)));
}

/** True when `header` is `sha256=<hex HMAC-SHA256(secret string, body)>`. */
export async function verifyGitHubSignature(secret: string, body: Uint8Array, header: string | null): Promise<boolean> {
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header?.trim() ?? "");
  const mac = match ? fromHex(match[1]!) : null;
  if (!mac) return false;
  return crypto.subtle.verify("HMAC", await hmacKey(encoder.encode(secret)), mac, body);
}

export interface StandardWebhookHeaders {
  id: string | null;
  timestamp: string | null;
  signature: string | null;
}

export type StandardWebhookCheck =
  { ok: true; id: string; timestampMs: number } | { ok: false; reason: "malformed" | "signature" | "stale" };

/** The key bytes of a `whsec_…` secret; null when it is not one. */
export function standardWebhookKey(secret: string): Uint8Array | null {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return null;
  const key = fromBase64(secret.slice(WEBHOOK_SECRET_PREFIX.length));
  return key && key.length > 0 ? key : null;
}

/**
 * Verifies a Standard Webhooks delivery: the signature first (so "stale" is said only to a
 * holder of the secret), then the timestamp against `nowMs`.
 */
export async function verifyStandardWebhook(
  secret: string,
  body: Uint8Array,
  headers: StandardWebhookHeaders,
  nowMs: number,
): Promise<StandardWebhookCheck> {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature || id.length > 256 || !/^\d{1,12}$/.test(timestamp))
    return { ok: false, reason: "malformed" };
  const keyBytes = standardWebhookKey(secret);
  if (!keyBytes) return { ok: false, reason: "signature" };
  const key = await hmacKey(keyBytes);
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  let verified = false;
  for (const entry of signature.trim().split(/\s+/).slice(0, MAX_SIGNATURES)) {
    const comma = entry.indexOf(",");
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue;
    const mac = fromBase64(entry.slice(comma + 1));
    if (mac && mac.length === 32 && (await crypto.subtle.verify("HMAC", key, mac, signed))) verified = true;
  }
  if (!verified) return { ok: false, reason: "signature" };
  const timestampMs = Number(timestamp) * 1000;
  if (Math.abs(nowMs - timestampMs) > STANDARD_WEBHOOK_TOLERANCE_MS) return { ok: false, reason: "stale" };
  return { ok: true, id, timestampMs };
}
