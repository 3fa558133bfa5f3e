/**
 * Where Wren runs and keeps its data, from the environment with loopback-only defaults.
 * Every command reads its settings here, so the names below are the whole configuration.
 */
import { resolve } from "node:path";

export interface Settings {
  /** Address workerd listens on (HOST, PORT). */
  host: string;
  port: number;
  /** Data folder: database, server secret, Durable Object storage (WREN_DATA). */
  dataDir: string;
  /** A Hrana endpoint (sqld, Turso) to use instead of the embedded server (LIBSQL_URL). */
  libsqlUrl: string | undefined;
  libsqlAuthToken: string | undefined;
  /** Port of the embedded libSQL server; 0 picks a free one (WREN_DB_PORT). */
  dbPort: number;
  /** The URL browsers reach Wren at, used in snippets (WREN_PUBLIC_URL). */
  publicUrl: string;
}

function port(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number, got "${value}"`);
  return n;
}

/** WREN_PUBLIC_URL (an http or https URL), else the listening address; no trailing slash. */
function publicUrl(value: string | undefined, fallback: string): string {
  if (value === undefined || value === "") return fallback;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash || url.username) {
    throw new Error(`WREN_PUBLIC_URL must be an http:// or https:// URL without query or credentials, got "${value}"`);
  }
  return url.href.replace(/\/+$/, "");
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const host = env.HOST || "127.0.0.1";
  const listenPort = port("PORT", env.PORT, 8787);
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    host,
    port: listenPort,
    dataDir: resolve(env.WREN_DATA || "data"),
    libsqlUrl: env.LIBSQL_URL || undefined,
    libsqlAuthToken: env.LIBSQL_AUTH_TOKEN || undefined,
    dbPort: port("WREN_DB_PORT", env.WREN_DB_PORT, 0),
    publicUrl: publicUrl(env.WREN_PUBLIC_URL, `http://${urlHost === "0.0.0.0" || urlHost === "[::]" ? "127.0.0.1" : urlHost}:${listenPort}`),
  };
}

export const databaseFile = (settings: Settings) => resolve(settings.dataDir, "wren.db");
export const secretFile = (settings: Settings) => resolve(settings.dataDir, "secret.key");
export const databaseTokenFile = (settings: Settings) => resolve(settings.dataDir, "libsql.token");
export const firstAdminKeyFile = (settings: Settings) => resolve(settings.dataDir, "first-admin-key.txt");
