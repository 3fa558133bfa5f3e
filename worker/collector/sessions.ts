/**
 * Session ids as stored: HMAC-SHA256(salt, site id + ":" + tracker id), truncated to 128
 * bits. The salts come from the database (salt-store.ts), shared by every instance, and are
 * cached in the isolate only until the schedule next changes, so a deleted salt is forgotten
 * here too.
 */
import { toBase64Url } from "../lib/crypto";
import { libsqlClient } from "../lib/libsql";
import type { CollectorWorkerEnv } from "./env";
import { saltsInForce } from "./salt-store";
import { nextChange } from "./salts";
import { now as serviceNow } from "../lib/clock";

const encoder = new TextEncoder();

export interface SessionKeys {
  current: CryptoKey;
  previous: CryptoKey | null;
  validUntil: number;
}

let cached: SessionKeys | null = null;

function importSalt(hex: string): Promise<CryptoKey> {
  const raw = new Uint8Array(hex.match(/../g)!.map((h) => parseInt(h, 16)));
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** The salts in force now, from the isolate cache or the database. */
export async function sessionKeys(env: CollectorWorkerEnv, now = serviceNow()): Promise<SessionKeys> {
  if (cached && now < cached.validUntil) return cached;
  const { current, previous } = await saltsInForce(libsqlClient(env), now);
  cached = {
    current: await importSalt(current.secret),
    previous: previous ? await importSalt(previous.secret) : null,
    validUntil: nextChange(current, previous),
  };
  return cached;
}

export async function hashSession(salt: CryptoKey, siteId: string, trackerId: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", salt, encoder.encode(`${siteId}:${trackerId}`));
  return toBase64Url(new Uint8Array(mac).subarray(0, 16));
}

/** The stored id under the current salt and, while it exists, under the previous one. */
export async function sessionCandidates(keys: SessionKeys, siteId: string, trackerId: string): Promise<[string, string | null]> {
  const [current, previous] = await Promise.all([
    hashSession(keys.current, siteId, trackerId),
    keys.previous ? hashSession(keys.previous, siteId, trackerId) : Promise.resolve(null),
  ]);
  return [current, previous];
}
