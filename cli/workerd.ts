/**
 * Runs config.capnp's two processes — `collectorProcess` (the front door, on HOST:PORT) and
 * `apiProcess` (on a Unix socket in the data folder, cli/api-socket.ts) — with the addresses,
 * paths and secrets of this start. workerd runs a process's isolates on one thread, so two
 * processes let report reads and beacons run side by side. Everything machine-specific is passed as command-line
 * overrides and environment, so the config file itself never changes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { setPriority } from "node:os";
import { lookup } from "node:dns/promises";
import { join, relative } from "node:path";
import workerd from "workerd";
import { parseWebhookAllow, workerdAllowList } from "../worker/lib/webhook-allow";
import { oidcConfig, OidcConfigError, type OidcEnv } from "../worker/domain/people/oidc-config";
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from "../worker/reports/retention";
import { MAX_IMPORT_MAX_MB } from "../worker/lib/import-limit";
import { apiAddress } from "./api-socket";
import { CliError } from "./output";
import { pipeWorkerdLog } from "./workerd-log";
import { ROOT } from "./paths";
import type { Settings } from "./settings";

export interface WorkerdOptions {
  settings: Settings;
  /** The Hrana URL the workers use, and its bearer token. */
  databaseUrl: string;
  databaseToken: string | undefined;
  secret: string;
  /** This start's id, for /healthz (the supervisor probes only its own child). */
  instance: string;
}

/** `host:port` of an http(s) URL, with the scheme's default port filled in. */
export function hostPort(url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname}:${port}`;
}

/**
 * What `--external-addr` cannot say — a TLS database (Turso, sqld behind https) needs an `https`
 * external service, and WREN_WEBHOOK_ALLOW and WREN_OIDC_ALLOW widen the webhook and OIDC
 * networks' `allow` lists — goes in a small config written beside the data, which reuses
 * config.capnp's workers and replaces only those services.
 */
function overlayConfig(settings: Settings, url: URL, readUrl: URL, webhookAllow: string[], oidcAllow: string[]): string {
  const dir = join(settings.dataDir, "run");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "workerd.capnp");
  const base = relative(dir, join(ROOT, "config.capnp"));
  const external = (name: string, at: URL, fallback: string) =>
    at.protocol === "https:"
      ? `(name = "${name}", external = (address = ${JSON.stringify(hostPort(at))}, https = (
      tlsOptions = (trustBrowserCas = true), certificateHost = ${JSON.stringify(at.hostname)})))`
      : fallback;
  const libsql = external("libsql", url, "Base.libsqlService");
  const libsqlRead = external("libsql-read", readUrl, "Base.libsqlReadService");
  const network = (name: string, allow: string[]) =>
    `(name = "${name}", network = (allow = [${allow.map((a) => JSON.stringify(a)).join(", ")}], tlsOptions = (trustBrowserCas = true)))`;
  const webhooks = network("webhook-network", webhookAllow);
  const oidc = network("oidc-network", oidcAllow);
  writeFileSync(
    file,
    `using Workerd = import "/workerd/workerd.capnp";
using Base = import ${JSON.stringify(base)};
const collectorProcess :Workerd.Config = (
  services = [
    (name = "collector", worker = Base.collectorWorker),
    (name = "api", external = (address = "127.0.0.1:8786", http = ())),
    ${libsql},
    Base.doStorageService, Base.noNetworkService,
  ],
  sockets = [Base.publicSocket],
);
const apiProcess :Workerd.Config = (
  services = [
    (name = "api", worker = Base.apiWorker),
    (name = "alerts", worker = Base.alertsWorker),
    (name = "collector", external = (address = "127.0.0.1:8787", http = ())),
    ${libsql},
    ${libsqlRead},
    Base.doStorageService, Base.dashboardService, Base.noNetworkService,
    ${webhooks},
    ${oidc},
  ],
  sockets = [(name = "api", address = "127.0.0.1:8786", http = (), service = "api")],
);
`,
  );
  return file;
}

/**
 * WREN_WEBHOOK_ALLOW as workerd's allow list (host names resolved now, every address they have),
 * or null when unset: config.capnp's `public` alone.
 */
export function webhookAllowList(value: string | undefined): Promise<string[] | null> {
  return resolvedAllowList("WREN_WEBHOOK_ALLOW", value);
}

/** An allow list in WREN_WEBHOOK_ALLOW's form (`name`, for messages) as workerd's. */
async function resolvedAllowList(name: string, value: string | undefined): Promise<string[] | null> {
  if (value === undefined || value.trim() === "") return null;
  let allow;
  try {
    allow = parseWebhookAllow(value);
  } catch (error) {
    throw new CliError(`${name}: ${(error as Error).message}`);
  }
  const resolved: string[] = [];
  for (const host of allow.hosts) {
    try {
      resolved.push(...(await lookup(host, { all: true })).map((a) => a.address));
    } catch {
      throw new CliError(`${name}: the host name ${host} does not resolve`);
    }
  }
  return workerdAllowList(allow, resolved);
}

/**
 * The OIDC settings (WREN_OIDC_ISSUER and the rest) checked as the api worker will read them, and WREN_OIDC_ALLOW
 * as workerd's allow list for the `oidc-network` (null: config.capnp's `public` alone).
 */
export async function oidcSettings(env: NodeJS.ProcessEnv): Promise<{ vars: Record<string, string>; allow: string[] | null }> {
  let config;
  try {
    config = oidcConfig(env as OidcEnv);
  } catch (error) {
    if (error instanceof OidcConfigError) throw new CliError(error.message);
    throw error;
  }
  if (!config) return { vars: {}, allow: null };
  const vars: Record<string, string> = {};
  for (const name of [
    "WREN_OIDC_ISSUER",
    "WREN_OIDC_CLIENT_ID",
    "WREN_OIDC_CLIENT_SECRET",
    "WREN_OIDC_NAME",
    "WREN_OIDC_LINK_BY_EMAIL",
    "WREN_OIDC_SCOPES",
    "WREN_OIDC_ALLOW",
  ]) {
    const value = env[name]?.trim();
    if (value) vars[name] = value;
  }
  const allow = await resolvedAllowList("WREN_OIDC_ALLOW", env.WREN_OIDC_ALLOW);
  return { vars, allow };
}

/** WREN_ALERT_INTERVAL as given, refused unless 1–60 seconds (how often alert rules are evaluated). */
export function alertIntervalSetting(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(value) || seconds < 1 || seconds > 60) {
    throw new CliError(`WREN_ALERT_INTERVAL must be a number of seconds from 1 to 60, got "${value}"`);
  }
  return value.trim();
}

/** WREN_WEBHOOK_RETRY_SECONDS as given, refused unless 1–3600 (the first retry's wait). */
export function retrySecondsSetting(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || seconds < 1 || seconds > 3600) {
    throw new CliError(`WREN_WEBHOOK_RETRY_SECONDS must be a whole number of seconds from 1 to 3600, got "${value}"`);
  }
  return value.trim();
}

/** WREN_K_ANONYMITY as given, refused unless an integer of at least 2 (reports never show smaller groups). */
export function kAnonymitySetting(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (!/^\s*\d+\s*$/.test(value) || Number(value) < 2) {
    throw new CliError(`WREN_K_ANONYMITY must be a whole number of at least 2, got "${value}"`);
  }
  return value.trim();
}

/**
 * WREN_CLIENT_IP_HEADER as given: a header name, or nothing. Without it the collector looks
 * countries up by the connecting address alone, and never believes a header a client can set.
 */
export function clientIpHeaderSetting(value: string | undefined): string | null {
  const name = value?.trim();
  if (!name) return null;
  if (!/^[A-Za-z0-9-]{1,64}$/.test(name)) {
    throw new CliError(`WREN_CLIENT_IP_HEADER must be an HTTP header name (letters, digits, -), got "${value}"`);
  }
  return name;
}

/** WREN_PUBLISH_INTERVAL as given, refused unless 1–60 seconds (how often reports are refreshed). */
export function publishIntervalSetting(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(value) || seconds < 1 || seconds > 60) {
    throw new CliError(`WREN_PUBLISH_INTERVAL must be a number of seconds from 1 to 60, got "${value}"`);
  }
  return value.trim();
}

/**
 * WREN_TEST_CLOCK_OFFSET_MS as given: a whole number of milliseconds (negative too) added to the
 * service's clock (worker/lib/clock.ts), for tests; unset or empty: none.
 */
export function clockOffsetSetting(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (!/^\s*-?\d+\s*$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new CliError(`WREN_TEST_CLOCK_OFFSET_MS must be a whole number of milliseconds, got "${value}"`);
  }
  return String(Number(value));
}

/** WREN_RAW_RETENTION_DAYS as given, refused unless a whole number of days from 2 to 36500. */
export function retentionSetting(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const days = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || days < MIN_RETENTION_DAYS || days > MAX_RETENTION_DAYS) {
    throw new CliError(
      `WREN_RAW_RETENTION_DAYS must be a whole number of days from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}, got "${value}"`,
    );
  }
  return String(days);
}

/** WREN_IMPORT_MAX_MB as given, refused unless a whole number of megabytes from 1 to MAX_IMPORT_MAX_MB. */
export function importMaxSetting(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const mb = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || mb < 1 || mb > MAX_IMPORT_MAX_MB) {
    throw new CliError(`WREN_IMPORT_MAX_MB must be a whole number of megabytes from 1 to ${MAX_IMPORT_MAX_MB}, got "${value}"`);
  }
  return String(mb);
}

/** A host as it goes before `:port` (IPv6 in brackets). */
function bracketed(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/** An address to connect to for a listening host (a wildcard means this machine's loopback). */
export function connectHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  return bracketed(host === "::" ? "::1" : host);
}

/** Ingest goes first: under contention for the cores, beacons win and a report waits. */
const API_NICENESS = 19;

export interface WorkerdProcesses {
  collector: ChildProcess;
  api: ChildProcess;
}

export async function spawnWorkerd({ settings, databaseUrl, databaseToken, secret, instance }: WorkerdOptions): Promise<WorkerdProcesses> {
  const k = kAnonymitySetting(process.env.WREN_K_ANONYMITY);
  const publishInterval = publishIntervalSetting(process.env.WREN_PUBLISH_INTERVAL);
  const retention = retentionSetting(process.env.WREN_RAW_RETENTION_DAYS);
  const importMax = importMaxSetting(process.env.WREN_IMPORT_MAX_MB);
  const clientIpHeader = clientIpHeaderSetting(process.env.WREN_CLIENT_IP_HEADER);
  const clockOffset = clockOffsetSetting(process.env.WREN_TEST_CLOCK_OFFSET_MS);
  if (clockOffset) {
    console.warn(
      `wren: warning: WREN_TEST_CLOCK_OFFSET_MS=${clockOffset} moves the service's clock by ${Number(clockOffset) / 1000} s; it is for tests only, unset it in production`,
    );
  }
  // Turso hands out libsql:// URLs; over HTTP they mean https://.
  const url = new URL(databaseUrl.replace(/^libsql:/, "https:"));
  const readUrl = settings.libsqlReadUrl ? new URL(settings.libsqlReadUrl.replace(/^libsql:/, "https:")) : url;
  const alertInterval = alertIntervalSetting(process.env.WREN_ALERT_INTERVAL);
  const retrySeconds = retrySecondsSetting(process.env.WREN_WEBHOOK_RETRY_SECONDS);
  const webhookAllow = await webhookAllowList(process.env.WREN_WEBHOOK_ALLOW);
  const oidc = await oidcSettings(process.env);
  const configFile =
    url.protocol === "https:" || readUrl.protocol === "https:" || webhookAllow || oidc.allow
      ? overlayConfig(settings, url, readUrl, webhookAllow ?? ["public"], oidc.allow ?? ["public"])
      : join(ROOT, "config.capnp");
  const doStorage = join(settings.dataDir, "do");
  mkdirSync(doStorage, { recursive: true, mode: 0o700 });
  const apiSocket = await apiAddress(settings.dataDir);
  const common = [`--directory-path=do-storage=${doStorage}`];
  if (url.protocol === "http:") common.push(`--external-addr=libsql=${hostPort(url)}`);
  const options = {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"] as ["ignore", "inherit", "inherit"],
    // A process group of their own: Ctrl-C on a terminal signals the whole foreground group, and
    // workerd dying on it before `wren start` heard the signal read as a crash. The supervisor
    // stops them in order instead, and the reaper if the supervisor itself is killed.
    detached: true,
    env: {
      PATH: process.env.PATH,
      LIBSQL_URL: url.toString(),
      LIBSQL_AUTH_TOKEN: databaseToken ?? "",
      ...(settings.libsqlReadUrl ? { LIBSQL_READ_URL: readUrl.toString() } : {}),
      WREN_SECRET: secret,
      WREN_INSTANCE: instance,
      ...(process.env.WREN_RATE_LIMIT ? { WREN_RATE_LIMIT: process.env.WREN_RATE_LIMIT } : {}),
      // Always set: snippets take the public URL from here, never from a request's Host.
      WREN_PUBLIC_URL: settings.publicUrl,
      ...(k ? { WREN_K_ANONYMITY: k } : {}),
      ...(publishInterval ? { WREN_PUBLISH_INTERVAL: publishInterval } : {}),
      ...(retention ? { WREN_RAW_RETENTION_DAYS: retention } : {}),
      ...(importMax ? { WREN_IMPORT_MAX_MB: importMax } : {}),
      ...(clientIpHeader ? { WREN_CLIENT_IP_HEADER: clientIpHeader } : {}),
      ...(clockOffset ? { WREN_TEST_CLOCK_OFFSET_MS: clockOffset } : {}),
      ...(alertInterval ? { WREN_ALERT_INTERVAL: alertInterval } : {}),
      ...(retrySeconds ? { WREN_WEBHOOK_RETRY_SECONDS: retrySeconds } : {}),
      ...(webhookAllow ? { WREN_WEBHOOK_ALLOW: process.env.WREN_WEBHOOK_ALLOW!.trim() } : {}),
      ...oidc.vars,
      // Only that mail is configured: the SMTP URL and its password stay in this process (mail-sender.ts).
      ...(process.env.WREN_SMTP_URL?.trim() ? { WREN_MAIL: "smtp" } : {}),
      // People (issue 40); the workers read them with their defaults when unset.
      ...Object.fromEntries(
        ["WREN_AUDIT_RETENTION_DAYS", "WREN_SESSION_IDLE_HOURS", "WREN_SESSION_MAX_DAYS"].flatMap((name) =>
          process.env[name]?.trim() ? [[name, process.env[name]!.trim()]] : [],
        ),
      ),
    },
  };
  const api = spawn(
    workerd.default,
    [
      "serve",
      configFile,
      "apiProcess",
      `--socket-addr=api=${apiSocket}`,
      `--external-addr=collector=${connectHost(settings.host)}:${settings.port}`,
      `--directory-path=dashboard=${join(ROOT, "dashboard/dist")}`,
      ...(readUrl.protocol === "http:" ? [`--external-addr=libsql-read=${hostPort(readUrl)}`] : []),
      ...common,
    ],
    // Its stderr through the log filter: workerd's internal-error records of failed webhook
    // deliveries folded into the sender's one line each (workerd-log.ts).
    { ...options, stdio: ["ignore", "inherit", "pipe"] },
  );
  if (api.stderr) pipeWorkerdLog(api.stderr, process.stderr);
  const collector = spawn(
    workerd.default,
    ["serve", configFile, "collectorProcess", `--socket-addr=http=${bracketed(settings.host)}:${settings.port}`, `--external-addr=api=${apiSocket}`, ...common],
    options,
  );
  if (api.pid) setPriority(api.pid, API_NICENESS);
  return { collector, api };
}
