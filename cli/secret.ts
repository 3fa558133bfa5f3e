/**
 * The server secret: 32 random bytes (hex) made at onboarding, kept in the data folder with
 * mode 0600. It keys the per-site s2s token MACs and session hashes. WREN_SECRET overrides
 * the file, so several workerd boxes can share one secret (see docs/operations.md).
 */
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { secretFile, type Settings } from "./settings";

export function readSecret(settings: Settings): string | undefined {
  if (process.env.WREN_SECRET) return process.env.WREN_SECRET;
  const file = secretFile(settings);
  return existsSync(file) ? readFileSync(file, "utf8").trim() : undefined;
}

/** Returns the secret, making it first when there is none; `created` tells which. */
export function ensureSecret(settings: Settings): { secret: string; created: boolean } {
  const existing = readSecret(settings);
  if (existing) return { secret: existing, created: false };
  const secret = randomBytes(32).toString("hex");
  const file = secretFile(settings);
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
  chmodSync(file, 0o600);
  return { secret, created: true };
}

export function requireSecret(settings: Settings): string {
  const secret = readSecret(settings);
  if (!secret) throw new Error(`no server secret in ${secretFile(settings)}: run \`npx wren start\` once first`);
  return secret;
}
