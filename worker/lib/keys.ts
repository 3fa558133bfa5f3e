/**
 * API keys: `wren_<32 random bytes, base64url>`. Shown once at creation; only the SHA-256 of
 * the whole key is stored, and the first characters after `wren_` are kept as a visible prefix.
 */
import { randomToken, sha256Hex } from "./crypto";
import { newId } from "./ids";

export const SCOPES = [
  "write:sites",
  "write:events",
  "read:reports",
  "read:sites",
  "read:sessions",
  "write:goals",
  "write:deployments",
  "write:alerts",
  "admin",
] as const;
export type Scope = (typeof SCOPES)[number];

export const KEY_PREFIX = "wren_";

/** A key's site allowlist entry meaning every site; only an admin grants it, and only alone. */
export const EVERY_SITE = "*";

export interface NewKeyMaterial {
  id: string;
  key: string;
  prefix: string;
  secretHash: string;
}

export async function generateKey(): Promise<NewKeyMaterial> {
  const key = KEY_PREFIX + randomToken(32);
  return {
    id: newId("key"),
    key,
    prefix: key.slice(0, KEY_PREFIX.length + 6),
    secretHash: await hashKey(key),
  };
}

export function hashKey(key: string): Promise<string> {
  return sha256Hex(key);
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
