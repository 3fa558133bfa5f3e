/**
 * Per-site s2s tokens: `SITE_ID.MAC` with MAC = HMAC-SHA256(server secret, site id + ":" +
 * token version), base64url. A token is checked by recomputing the MAC and comparing in
 * constant time, so a forged token is refused without reading the database; rotating bumps
 * the version, so the old MAC stops matching at once.
 */
import { constantTimeEqual, hmacSha256, toBase64Url } from "./crypto";
import { isSiteId } from "./ids";

/** The header a site's token travels in, to `/s2s` (from backends, and from the api worker). */
export const SERVICE_TOKEN_HEADER = "x-service-token";

export async function siteToken(key: CryptoKey, siteId: string, version: number): Promise<string> {
  const mac = await hmacSha256(key, `${siteId}:${version}`);
  return `${siteId}.${toBase64Url(mac)}`;
}

/** Splits a presented token; null when it has not the `SITE_ID.MAC` shape. */
export function parseSiteToken(token: string): { siteId: string; mac: string } | null {
  const dot = token.lastIndexOf(".");
  if (dot <= 0 || dot === token.length - 1 || token.length > 200) return null;
  const siteId = token.slice(0, dot);
  if (!isSiteId(siteId)) return null;
  return { siteId, mac: token.slice(dot + 1) };
}

export async function verifySiteToken(key: CryptoKey, token: string, version: number): Promise<string | null> {
  const parsed = parseSiteToken(token);
  if (!parsed) return null;
  const expected = await siteToken(key, parsed.siteId, version);
  return constantTimeEqual(expected, token) ? parsed.siteId : null;
}
