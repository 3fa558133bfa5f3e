/**
 * Idempotency keys of conversions as stored: a keyed hash of the caller's `id`, never the id.
 * The raw id (`user-42:order-9`) would sit next to the session hash that joins to the visited
 * paths and link a backend user to their browsing. HMAC-SHA256 under the server secret
 * (WREN_SECRET), not a session salt: a salt rotates daily and each box of a scale-out has its
 * own, while the same id must match across the whole 24-hour window, on any box. Retention drops
 * the key when the window closes (reports/retention.ts), so after that nothing can be matched
 * against a known id either.
 */
import { hmacSha256, serverHmacKey, toBase64Url } from "../lib/crypto";

/** The stored key for the caller's event `id` on a site. */
export async function eventKeyOf(secret: string, siteId: string, id: string): Promise<string> {
  const mac = await hmacSha256(await serverHmacKey(secret), `event-id:${siteId}:${id}`);
  return `id:${toBase64Url(mac.subarray(0, 16))}`;
}
