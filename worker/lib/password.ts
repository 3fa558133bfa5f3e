/**
 * Passwords of shared dashboard links: PBKDF2-HMAC-SHA256 through WebCrypto (workerd and Node
 * alike), 600,000 iterations (OWASP's figure for PBKDF2-SHA256) over a random 16-byte salt,
 * stored as `pbkdf2-sha256$ITERATIONS$SALT$HASH` (base64url). The iteration count travels with
 * the hash, so raising it later leaves older hashes verifiable. A check recomputes and compares
 * in constant time; a stored value this module cannot read verifies nothing.
 */
import { constantTimeEqual, toBase64Url } from "./crypto";

export const PASSWORD_ITERATIONS = 600_000;
export const PASSWORD_MIN_LENGTH = 8;
/** Long enough for any passphrase; bounds the work one guess costs the server. */
export const PASSWORD_MAX_LENGTH = 200;
const SALT_BYTES = 16;
const HASH_BITS = 256;
const SCHEME = "pbkdf2-sha256";

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<string> {
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, material, HASH_BITS);
  return toBase64Url(new Uint8Array(bits));
}

function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return null;
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4);
  try {
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

export async function hashPassword(password: string, iterations = PASSWORD_ITERATIONS): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  return `${SCHEME}$${iterations}$${toBase64Url(salt)}$${await derive(password, salt, iterations)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, count, saltText, expected] = stored.split("$");
  const iterations = Number(count);
  const salt = saltText ? fromBase64Url(saltText) : null;
  if (scheme !== SCHEME || !Number.isSafeInteger(iterations) || iterations < 1 || !salt || !expected) return false;
  return constantTimeEqual(await derive(password, salt, iterations), expected);
}
