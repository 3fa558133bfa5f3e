/**
 * Runs `workerd serve config.capnp` with the addresses, paths and secrets of this start.
 * The config file is the production config; everything machine-specific is passed as
 * command-line overrides and environment, so the file itself never changes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import workerd from "workerd";
import { CliError } from "./output";
import { ROOT } from "./paths";
import type { Settings } from "./settings";

export interface WorkerdOptions {
  settings: Settings;
  /** The Hrana URL the workers use, and its bearer token. */
  databaseUrl: string;
  databaseToken: string | undefined;
  secret: string;
}

/** `host:port` of an http(s) URL, with the scheme's default port filled in. */
export function hostPort(url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname}:${port}`;
}

/**
 * A TLS database (Turso, sqld behind https) needs an `https` external service, which
 * `--external-addr` cannot switch to: write a small config that reuses config.capnp's
 * workers and replaces only the database service.
 */
function tlsOverlayConfig(settings: Settings, url: URL): string {
  const dir = join(settings.dataDir, "run");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "workerd-tls.capnp");
  const base = relative(dir, join(ROOT, "config.capnp"));
  writeFileSync(
    file,
    `using Workerd = import "/workerd/workerd.capnp";
using Base = import ${JSON.stringify(base)};
const config :Workerd.Config = (
  services = [
    (name = "api", worker = Base.apiWorker),
    (name = "collector", worker = Base.collectorWorker),
    (name = "libsql", external = (address = ${JSON.stringify(hostPort(url))}, https = (
      tlsOptions = (trustBrowserCas = true), certificateHost = ${JSON.stringify(url.hostname)}))),
    (name = "do-storage", disk = (path = "data/do", writable = true)),
    (name = "dashboard", disk = (path = "dashboard/dist")),
    (name = "no-network", network = (allow = [])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = (name = "collector", entrypoint = "http"))],
);
`,
  );
  return file;
}

/** WREN_K_ANONYMITY as given, refused unless an integer of at least 2 (reports never show smaller groups). */
export function kAnonymitySetting(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  if (!/^\s*\d+\s*$/.test(value) || Number(value) < 2) {
    throw new CliError(`WREN_K_ANONYMITY must be a whole number of at least 2, got "${value}"`);
  }
  return value.trim();
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

export function spawnWorkerd({ settings, databaseUrl, databaseToken, secret }: WorkerdOptions): ChildProcess {
  const k = kAnonymitySetting(process.env.WREN_K_ANONYMITY);
  const publishInterval = publishIntervalSetting(process.env.WREN_PUBLISH_INTERVAL);
  // Turso hands out libsql:// URLs; over HTTP they mean https://.
  const url = new URL(databaseUrl.replace(/^libsql:/, "https:"));
  const configFile = url.protocol === "https:" ? tlsOverlayConfig(settings, url) : join(ROOT, "config.capnp");
  const doStorage = join(settings.dataDir, "do");
  mkdirSync(doStorage, { recursive: true, mode: 0o700 });
  const host = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
  const args = [
    "serve",
    configFile,
    `--socket-addr=http=${host}:${settings.port}`,
    `--directory-path=do-storage=${doStorage}`,
    `--directory-path=dashboard=${join(ROOT, "dashboard/dist")}`,
  ];
  if (url.protocol === "http:") args.push(`--external-addr=libsql=${hostPort(url)}`);
  return spawn(workerd.default, args, {
    cwd: ROOT,
    stdio: ["ignore", "inherit", "inherit"],
    env: {
      PATH: process.env.PATH,
      LIBSQL_URL: url.toString(),
      LIBSQL_AUTH_TOKEN: databaseToken ?? "",
      WREN_SECRET: secret,
      ...(process.env.WREN_RATE_LIMIT ? { WREN_RATE_LIMIT: process.env.WREN_RATE_LIMIT } : {}),
      // Always set: snippets take the public URL from here, never from a request's Host.
      WREN_PUBLIC_URL: settings.publicUrl,
      ...(k ? { WREN_K_ANONYMITY: k } : {}),
      ...(publishInterval ? { WREN_PUBLISH_INTERVAL: publishInterval } : {}),
    },
  });
}
