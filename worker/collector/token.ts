/**
 * `X-Service-Token` verification, done entirely in the isolate: a forged, truncated or
 * stale token is refused without a single database statement.
 *
 * The token is `SITE_ID.MAC` with MAC = HMAC(server secret, site id + ":" + version), and the
 * version lives in the database (sites.token_version). Rather than read it, the collector
 * recomputes the MAC for the versions a genuine token can have: the highest version already
 * verified for the site (kept in the isolate and in this instance's CollectorState Durable
 * Object, which survives restarts), and the next LOOKAHEAD versions, for rotations it has not seen yet.
 * A MAC below the known version is a rotated token: refused with no read. Once the MAC
 * matches, the presenter holds a token this server issued; whether that version is still the
 * current one is checked inside the write transaction itself (writer.ts), so rotation takes
 * effect at once and atomically.
 */
import { constantTimeEqual, serverHmacKey } from "../lib/crypto";
import { parseSiteToken, siteToken } from "../lib/tokens";
import type { CollectorWorkerEnv } from "./env";

function collectorState(env: CollectorWorkerEnv) {
  return env.COLLECTOR_STATE.get(env.COLLECTOR_STATE.idFromName("collector"));
}

/** Versions beyond the known one that are tried: rotations since this server last saw the site. */
export const TOKEN_VERSION_LOOKAHEAD = 32;

/** How long an isolate keeps the durable versions it read: a forged token must not cost a call each. */
const DURABLE_VERSIONS_TTL_MS = 10 * 60_000;
let durableVersions: { versions: Record<string, number>; until: number } | undefined;

const knownVersions = new Map<string, number>();
async function knownVersion(env: CollectorWorkerEnv, siteId: string): Promise<number> {
  const local = knownVersions.get(siteId);
  if (local !== undefined) return local;
  const now = Date.now();
  if (!durableVersions || now >= durableVersions.until) {
    durableVersions = { versions: await collectorState(env).tokenVersions(), until: now + DURABLE_VERSIONS_TTL_MS };
  }
  const durable = durableVersions.versions[siteId];
  // Only versions the durable state knows are cached: a token for a made-up site id must not
  // grow this map (it is refused after the lookahead, with no database read either way).
  if (durable !== undefined) knownVersions.set(siteId, durable);
  return durable ?? 1;
}

async function matches(key: CryptoKey, siteId: string, version: number, presented: string): Promise<boolean> {
  return constantTimeEqual(await siteToken(key, siteId, version), presented);
}

export interface VerifiedToken {
  siteId: string;
  version: number;
}

/** The site and version whose MAC the token carries, or null: no database is touched. */
export async function verifyServiceToken(env: CollectorWorkerEnv, presented: string | null): Promise<VerifiedToken | null> {
  if (!presented) return null;
  const parsed = parseSiteToken(presented.trim());
  if (!parsed) return null;
  const { siteId } = parsed;
  const key = await serverHmacKey(env.WREN_SECRET);
  const known = await knownVersion(env, siteId);
  if (await matches(key, siteId, known, presented.trim())) return { siteId, version: known };
  const later = Array.from({ length: TOKEN_VERSION_LOOKAHEAD }, (_, i) => known + 1 + i);
  const results = await Promise.all(later.map((v) => matches(key, siteId, v, presented.trim())));
  const index = results.indexOf(true);
  return index >= 0 ? { siteId, version: later[index]! } : null;
}

/**
 * Records a version the database says is current, here and durably for later isolates. Fed by
 * every site read (beacons included), so a site's token window follows its rotations even
 * when its tokens are not used for a while.
 */
export function noteCurrentVersion(env: CollectorWorkerEnv, ctx: ExecutionContext, token: VerifiedToken): void {
  if ((knownVersions.get(token.siteId) ?? 0) >= token.version) return;
  knownVersions.set(token.siteId, token.version);
  ctx.waitUntil(collectorState(env).noteTokenVersion(token.siteId, token.version).catch(() => undefined));
}
