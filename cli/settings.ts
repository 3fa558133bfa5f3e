/**
 * Where Wren runs and keeps its data, from the environment with loopback-only defaults.
 * Every command reads its settings here; ENVIRONMENT lists every variable the CLI and the
 * service read (`wren --help` prints it, and a test checks it against the code that reads them).
 */
import { resolve } from "node:path";

/** Every environment variable Wren reads: name, default, and what it does, in one line each. */
export const ENVIRONMENT: [name: string, fallback: string, meaning: string][] = [
  ["HOST", "127.0.0.1", "address Wren listens on"],
  ["PORT", "8787", "port Wren listens on"],
  ["WREN_DATA", "./data", "data folder (0700): wren.db, secret.key, libsql.token, Durable Object storage"],
  ["WREN_PUBLIC_URL", "http://HOST:PORT", "the URL browsers reach Wren at: snippets and webhook URLs use it (e.g. behind TLS)"],
  ["WREN_DB_PORT", "a free port", "port of the embedded libSQL server (127.0.0.1 only)"],
  ["LIBSQL_URL", "embedded", "a libSQL server (sqld, Turso) to use instead of the data folder's database"],
  ["LIBSQL_AUTH_TOKEN", "libsql.token", "bearer token for that server (the embedded one always requires one)"],
  ["LIBSQL_READ_URL", "LIBSQL_URL", "a sqld replica reports read from (scale-out); writes and deciding reads go to LIBSQL_URL"],
  ["WREN_SECRET", "secret.key", "the server secret (64 hex characters), to share one across boxes"],
  ["WREN_RATE_LIMIT", "600/60", "default per-key rate limit: requests/seconds"],
  ["WREN_K_ANONYMITY", "5", "k: report figures drawn from fewer sessions are suppressed (at least 2)"],
  ["WREN_PUBLISH_INTERVAL", "10", "seconds between publisher runs, how often reports take in new data (1–60)"],
  ["WREN_CLIENT_IP_HEADER", "none", "header a proxy in front of Wren puts the visitor's address in (e.g. X-Real-IP), for countries"],
  ["WREN_RAW_RETENTION_DAYS", "30", "days raw rows and per-session rollups are kept (2–36500)"],
  ["WREN_IMPORT_MAX_MB", "25", "megabytes an import upload (POST /api/v1/sites/{id}/imports, the dashboard's) may have (1–1024)"],
  ["WREN_AUDIT_RETENTION_DAYS", "400", "days audit log entries are kept (1–36500)"],
  ["WREN_SESSION_IDLE_HOURS", "12", "hours a dashboard session lasts without use"],
  ["WREN_SESSION_MAX_DAYS", "7", "days a dashboard session lasts at most after sign-in"],
  ["WREN_ALERT_INTERVAL", "60", "seconds between alert rule evaluations (1–60)"],
  ["WREN_WEBHOOK_ALLOW", "none", "alert destinations beyond public addresses: hosts, IPs, CIDR blocks or `private`"],
  ["WREN_WEBHOOK_RETRY_SECONDS", "30", "the first retry's wait for an undelivered alert notification (1–3600)"],
  ["WREN_OIDC_ISSUER", "none", "sign-in with your OpenID provider: its issuer URL (https://…; docs/operations.md)"],
  ["WREN_OIDC_CLIENT_ID", "none", "the client id Wren has at the provider (confidential client)"],
  ["WREN_OIDC_CLIENT_SECRET", "none", "that client's secret"],
  ["WREN_OIDC_NAME", "your identity provider", "the sign-in button's label: Sign in with NAME"],
  ["WREN_OIDC_SCOPES", "openid email profile", "scopes asked of the provider (must include openid)"],
  ["WREN_OIDC_LINK_BY_EMAIL", "false", "true: a new subject with a verified email joins the account with that email"],
  ["WREN_OIDC_ALLOW", "none", "provider addresses beyond public ones: hosts, IPs, CIDR blocks or `private`"],
  ["WREN_SMTP_URL", "none", "SMTP server for digests and invitations: smtp://user:pass@host:port (STARTTLS) or smtps://…"],
  ["WREN_MAIL_FROM", "none", "sender address of Wren's mail, required with WREN_SMTP_URL (e.g. \"Wren <wren@example.com>\")"],
  ["WREN_MAIL_RETRY_SECONDS", "30", "the first retry's wait for mail the SMTP server did not take (1–3600), doubling up to an hour"],
  ["WREN_TEST_CLOCK_OFFSET_MS", "0", "tests only: milliseconds added to the service's clock (wren start warns when set)"],
];

/**
 * Variables `wren start` sets for workerd itself, from this start (never from the operator's
 * environment, whose values it ignores): not configuration, so not in ENVIRONMENT.
 */
export const SET_BY_WREN_START = ["WREN_INSTANCE", "WREN_MAIL"];

export interface Settings {
  /** Address workerd listens on (HOST, PORT). */
  host: string;
  port: number;
  /** Data folder: database, server secret, Durable Object storage (WREN_DATA). */
  dataDir: string;
  /** A Hrana endpoint (sqld, Turso) to use instead of the embedded server (LIBSQL_URL). */
  libsqlUrl: string | undefined;
  libsqlAuthToken: string | undefined;
  /** A replica of LIBSQL_URL that reports read (LIBSQL_READ_URL); needs LIBSQL_URL. */
  libsqlReadUrl: string | undefined;
  /** Port of the embedded libSQL server; 0 picks a free one (WREN_DB_PORT). */
  dbPort: number;
  /** The URL browsers reach Wren at, used in snippets (WREN_PUBLIC_URL). */
  publicUrl: string;
  /** Whether WREN_PUBLIC_URL, PORT or HOST was given: else the CLI prints the running service's URL (cli/service-url.ts). */
  publicUrlConfigured: boolean;
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

/** LIBSQL_READ_URL: an http(s) or libsql URL, and only beside LIBSQL_URL (a replica of what?). */
function readUrl(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.LIBSQL_READ_URL;
  if (value === undefined || value === "") return undefined;
  if (!env.LIBSQL_URL) throw new Error("LIBSQL_READ_URL names a replica of LIBSQL_URL: set LIBSQL_URL to the primary too");
  if (!/^(https?|libsql):\/\/[^/?#\s]+\/?$/.test(value)) {
    throw new Error(`LIBSQL_READ_URL must be an http://, https:// or libsql:// URL of a libSQL server, got "${value}"`);
  }
  return value;
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
    libsqlReadUrl: readUrl(env),
    dbPort: port("WREN_DB_PORT", env.WREN_DB_PORT, 0),
    publicUrlConfigured: Boolean(env.WREN_PUBLIC_URL || env.PORT || env.HOST),
    publicUrl: publicUrl(env.WREN_PUBLIC_URL, `http://${urlHost === "0.0.0.0" || urlHost === "[::]" ? "127.0.0.1" : urlHost}:${listenPort}`),
  };
}

export const databaseFile = (settings: Settings) => resolve(settings.dataDir, "wren.db");
export const secretFile = (settings: Settings) => resolve(settings.dataDir, "secret.key");
export const databaseTokenFile = (settings: Settings) => resolve(settings.dataDir, "libsql.token");
export const firstAdminKeyFile = (settings: Settings) => resolve(settings.dataDir, "first-admin-key.txt");
export const firstAdminInvitationFile = (settings: Settings) => resolve(settings.dataDir, "first-admin-invitation.txt");
