/**
 * Session ids as stored: HMAC-SHA256(salt, site id + ":" + tracker id), truncated to 128
 * bits. The salts come from the CollectorState Durable Object and are cached in the isolate
 * only until the schedule next changes, so a deleted salt is forgotten here too.
 */
import { toBase64Url } from "../lib/crypto";
import type { CollectorWorkerEnv } from "./env";
import type { StateSnapshot } from "./state";

const encoder = new TextEncoder();

export interface SessionKeys {
  current: CryptoKey;
  previous: CryptoKey | null;
  validUntil: number;
  /** Token versions known when the snapshot was taken (seed for token.ts). */
  tokenVersions: Record<string, number>;
}

let cached: SessionKeys | null = null;

function importSalt(hex: string): Promise<CryptoKey> {
  const raw = new Uint8Array(hex.match(/../g)!.map((h) => parseInt(h, 16)));
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

export function collectorState(env: CollectorWorkerEnv) {
  return env.COLLECTOR_STATE.get(env.COLLECTOR_STATE.idFromName("collector"));
}

/** The salts in force now, from the isolate cache or the Durable Object. */
export async function sessionKeys(env: CollectorWorkerEnv, now = Date.now()): Promise<SessionKeys> {
  if (cached && now < cached.validUntil) return cached;
  const snapshot: StateSnapshot = await collectorState(env).snapshot();
  cached = {
    current: await importSalt(snapshot.current.secret),
    previous: snapshot.previous ? await importSalt(snapshot.previous.secret) : null,
    validUntil: snapshot.validUntil,
    tokenVersions: snapshot.tokenVersions,
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
