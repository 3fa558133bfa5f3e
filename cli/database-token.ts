/**
 * The embedded libSQL server's bearer token: 32 random bytes (base64url) made on first start
 * and kept in the data folder (mode 0600). Without it, any local user or process could write
 * to the database through the server's loopback port; with it, only the workers (which get it
 * through their environment) and whoever can read the data folder can. LIBSQL_AUTH_TOKEN
 * overrides the file.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { databaseTokenFile, type Settings } from "./settings";

export function ensureDatabaseToken(settings: Settings): string {
  if (settings.libsqlAuthToken) return settings.libsqlAuthToken;
  const file = databaseTokenFile(settings);
  if (existsSync(file)) {
    const token = readFileSync(file, "utf8").trim();
    if (token.length >= 32) return token;
  }
  const token = randomBytes(32).toString("base64url");
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
}
