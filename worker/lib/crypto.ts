/**
 * WebCrypto helpers shared by the workers and the CLI (Node ≥ 20 has the same `crypto.subtle`).
 * Nothing here touches the database: checks that guard a write run before any I/O.
 */
const encoder = new TextEncoder();

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = "";
  for (const b of view) out += b.toString(16).padStart(2, "0");
  return out;
}

export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Standard base64 with padding (RFC 4648 §4), as Standard Webhooks spells secrets and signatures. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Decodes standard base64 (padding optional); null when the text is not base64. */
export function fromBase64(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.replace(/=+$/, "").length % 4 === 1) return null;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

export function randomToken(byteLength: number): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(byteLength)));
}

export async function sha256Hex(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

export async function importHmacKey(secretHex: string): Promise<CryptoKey> {
  if (!/^[0-9a-f]{64,}$/i.test(secretHex)) throw new Error("server secret must be ≥ 32 bytes of hex");
  const raw = new Uint8Array(secretHex.match(/../g)!.map((h) => parseInt(h, 16)));
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

let cachedHmacKey: { secret: string; key: Promise<CryptoKey> } | undefined;

/** The server secret's HMAC key, imported once per isolate (and again only if the secret changes). */
export function serverHmacKey(secretHex: string): Promise<CryptoKey> {
  if (cachedHmacKey?.secret !== secretHex) cachedHmacKey = { secret: secretHex, key: importHmacKey(secretHex) };
  return cachedHmacKey.key;
}

export async function hmacSha256(key: CryptoKey, message: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
}

/**
 * Compares two strings in time that depends only on their lengths. Hand-written because
 * workerd's `crypto.subtle.timingSafeEqual` is not in Node, and the CLI shares this module.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  let diff = left.length ^ right.length;
  const length = Math.max(left.length, right.length);
  for (let i = 0; i < length; i++) diff |= (left[i] ?? 0) ^ (right[i] ?? 0);
  return diff === 0;
}
