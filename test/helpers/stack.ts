/**
 * Starts the real stack the way an operator does — `wren start` in a child process, with
 * the embedded libSQL server and `workerd serve config.capnp` — on free ports and a
 * temporary data folder, and runs `wren` CLI commands against the same data.
 *
 * With WREN_TEST_ENGINE=sqld (the vitest project `sqld`) each stack runs on a sqld of its own
 * instead (LIBSQL_URL), started here and stopped with it; tests reach the database through
 * `stack.openDatabase()` either way.
 *
 * env.WREN_TEST_CLOCK_OFFSET_MS moves the service's clock (worker/lib/clock.ts) by that many
 * milliseconds: `stack.now()` is the service's now, and the wait for the first publication
 * counts on that clock.
 */
import { createClient, type Client, type Config } from "@libsql/client";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startHranaServer } from "../../server/hrana/index";
import { PUBLISH_GRACE_MS } from "../../worker/reports/publisher";
import { withLoopbackResolver } from "./loopback-resolver";
import { freePort } from "./ports";
import { makeJwtAuth, startSqld } from "./sqld";

export const ROOT = resolve(import.meta.dirname, "../..");
const WREN = join(ROOT, "bin/wren.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface StackExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Stack {
  url: string;
  port: number;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** The service's clock offset (env.WREN_TEST_CLOCK_OFFSET_MS), 0 when unset. */
  clockOffsetMs: number;
  /** The service's now: the real clock plus clockOffsetMs. */
  now(): number;
  /** The first admin key, when this start onboarded. */
  adminKey: string | undefined;
  process: ChildProcess;
  output(): string;
  /**
   * Stops `wren start`, and the sqld the stack started unless `keepDatabase` (to change the
   * data while the service is down; the next start on the same dataDir takes it over).
   */
  stop(signal?: NodeJS.Signals, options?: { keepDatabase?: boolean }): Promise<StackExit>;
  cli(args: string[]): Promise<CliResult>;
  /** A new connection to the stack's database: its file (embedded server), or its server (sqld, LIBSQL_URL). */
  openDatabase(config?: Partial<Config>): Client;
}

/** The database server stacks run on: `wren start`'s embedded one, or sqld (WREN_TEST_ENGINE=sqld). */
export const TEST_ENGINE: "embedded" | "sqld" = process.env.WREN_TEST_ENGINE === "sqld" ? "sqld" : "embedded";

/** A database server run by the test rather than by `wren start`, e.g. to put a proxy in front or to stop it. */
export interface DatabaseServer {
  url: string;
  authToken: string | undefined;
  /** A client straight to the database: the file for the embedded server, else the server. */
  open(config?: Partial<Config>): Client;
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
}

/**
 * The test engine's server for `dataDir`: the embedded one on dataDir/wren.db (no token, as
 * `startHranaServer` without LIBSQL_AUTH_TOKEN), or a sqld in a folder of its own with a JWT key.
 */
export async function startDatabaseServer(dataDir: string): Promise<DatabaseServer> {
  if (TEST_ENGINE === "sqld") {
    const dir = mkdtempSync(join(tmpdir(), "wren-sqld-"));
    const auth = makeJwtAuth(dir);
    const sqld = await startSqld({ dir: join(dir, "primary"), auth });
    return {
      url: sqld.url,
      authToken: auth.token,
      open: (config) => createClient({ ...config, url: sqld.url, authToken: auth.token }),
      stop: () => sqld.stop(),
      start: () => sqld.start(),
    };
  }
  const file = join(dataDir, "wren.db");
  let server = await startHranaServer({ file });
  let running = true;
  return {
    url: server.url,
    authToken: undefined,
    open: (config) => createClient({ ...config, url: `file:${file}` }),
    async stop() {
      if (running) await server.close();
      running = false;
    },
    async start() {
      if (!running) server = await startHranaServer({ file, port: server.port });
      running = true;
    },
  };
}

/** The sqld each data folder's stacks run on (WREN_TEST_ENGINE=sqld), so a restart finds its data again. */
const stackDatabases = new Map<string, DatabaseServer>();

/** The server a stack on `dataDir` should start with its own, if any: sqld, unless the caller names its own LIBSQL_URL. */
async function ownDatabase(dataDir: string, env: NodeJS.ProcessEnv | undefined): Promise<DatabaseServer | undefined> {
  const known = stackDatabases.get(resolve(dataDir));
  if (known) {
    await known.start();
    return known;
  }
  if (TEST_ENGINE !== "sqld" || env?.LIBSQL_URL) return undefined;
  const database = await startDatabaseServer(dataDir);
  stackDatabases.set(resolve(dataDir), database);
  return database;
}

export interface StartOptions {
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Start in a process group of its own, so a test can signal the group as a terminal does. */
  processGroup?: boolean;
  /** Runs `node bin/wren.js start` through another command (a namespace with a small disk): the command and its arguments. */
  launch?: (node: string, args: string[]) => [command: string, args: string[]];
  /** The database server the caller runs for this stack (startDatabaseServer); env.LIBSQL_URL may name a proxy before it. */
  database?: DatabaseServer;
}

export function runWren(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [WREN, ...args], { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.end(input ?? "");
  });
}

/** The first admin key: printed on a terminal, else (as here, on pipes) written to the file the output names. */
function firstAdminKey(output: string): string | undefined {
  const printed = /(wren_[A-Za-z0-9_-]{43})/.exec(output)?.[1];
  if (printed) return printed;
  const file = /first admin key is in (\S+) \(mode 0600/.exec(output)?.[1];
  return file && existsSync(file) ? readFileSync(file, "utf8").trim() : undefined;
}

/** wren start's words when the port it was given was taken before it could bind it. */
const PORT_TAKEN = /The port Wren listens on \(.*\) is already in use|Socket "http": bind\(\): Address already in use/;
const START_ATTEMPTS = 3;

export async function startStack(options: StartOptions = {}): Promise<Stack> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "wren-e2e-"));
  const own = options.database ? undefined : await ownDatabase(dataDir, options.env);
  const database = options.database ?? own;
  // What every attempt printed: the first admin key is in the attempt that onboarded.
  let earlier = "";
  for (let attempt = 1; ; attempt++) {
    // A restart on the same data keeps its port (options.env.PORT), so clients made before still reach it.
    const port = options.env?.PORT ? Number(options.env.PORT) : await freePort();
    try {
      return await launch(options, { dataDir, port, own, database, earlier });
    } catch (error) {
      // A port freePort found free can be taken (by any outgoing connection's ephemeral port)
      // before wren start binds it: another port then, unless the test chose this one.
      const failed = error instanceof StartFailed ? error : undefined;
      if (failed && PORT_TAKEN.test(failed.output) && !options.env?.PORT && attempt < START_ATTEMPTS) {
        earlier += failed.output;
        continue;
      }
      await own?.stop();
      throw error;
    }
  }
}

class StartFailed extends Error {
  constructor(
    message: string,
    readonly output: string,
  ) {
    // The last lines first: a long log is cut in the middle by CI, and they say which step failed.
    super(`${message}; last said: ${output.trim().split("\n").slice(-3).join(" | ")}\n${output}`);
  }
}

interface Launch {
  dataDir: string;
  port: number;
  /** The database this helper started for the stack (stopped with it), if any. */
  own: DatabaseServer | undefined;
  database: DatabaseServer | undefined;
  /** What earlier attempts printed. */
  earlier: string;
}

async function launch(options: StartOptions, { dataDir, port, own, database, earlier }: Launch): Promise<Stack> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: "127.0.0.1",
    PORT: String(port),
    WREN_DATA: dataDir,
    WREN_DB_PORT: "",
    // Reports read what the publisher published: a short interval keeps tests short.
    WREN_PUBLISH_INTERVAL: "1",
    ...(database ? { LIBSQL_URL: database.url } : {}),
    ...(database?.authToken ? { LIBSQL_AUTH_TOKEN: database.authToken } : {}),
    ...options.env,
  };
  const [command, args] = options.launch?.(process.execPath, [WREN, "start"]) ?? withLoopbackResolver(process.execPath, [WREN, "start"]);
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: options.processGroup ?? false });
  let output = "";
  child.stdout!.on("data", (c) => (output += c));
  child.stderr!.on("data", (c) => (output += c));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;

  const url = `http://127.0.0.1:${port}`;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  let stopped = false;
  void exited.then(() => (stopped = true));
  while (!/Wren is running at/.test(output)) {
    if (stopped) {
      await exited;
      throw new StartFailed("wren start exited before it was ready", output);
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new StartFailed(`wren start was not ready in ${timeoutMs / 1000} s`, output);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const clockOffsetMs = Number(env.WREN_TEST_CLOCK_OFFSET_MS?.trim() || 0);
  try {
    await waitForPublication(url, Date.now() + clockOffsetMs);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}; wren start said:\n${output}`);
  }
  return {
    url,
    port,
    dataDir,
    env,
    clockOffsetMs,
    now: () => Date.now() + clockOffsetMs,
    adminKey: firstAdminKey(earlier + output),
    process: child,
    output: () => earlier + output,
    async stop(signal = "SIGTERM", { keepDatabase = false } = {}) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const [code, sig] = await exited;
      if (!keepDatabase) await own?.stop();
      return { code, signal: sig };
    },
    cli: (args) => runWren(args, env),
    openDatabase(config) {
      if (database) return database.open(config);
      if (env.LIBSQL_URL) return createClient({ ...config, url: env.LIBSQL_URL, authToken: env.LIBSQL_AUTH_TOKEN || undefined });
      return createClient({ ...config, url: `file:${join(dataDir, "wren.db")}` });
    },
  };
}

/**
 * Waits until the publisher has run to completion after `since` (default now): every row
 * stored before then is folded, and every day that ended by then (less the grace) is
 * published. Reads /healthz, as an operator would: a run that cut at `since` or later
 * published through cut − grace.
 */
export async function waitForPublication(url: string, since = Date.now(), timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const health = await fetch(`${url}/healthz`).then(
      (r) => (r.ok ? (r.json() as Promise<{ publisher?: { published_through: string | null } }>) : null),
      () => null,
    );
    const through = health?.publisher?.published_through;
    if (through && Date.parse(through) + PUBLISH_GRACE_MS >= since) return;
    if (Date.now() > deadline) throw new Error(`the publisher did not publish past ${new Date(since).toISOString()} in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
