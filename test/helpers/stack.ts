/**
 * Starts the real stack the way an operator does — `wren start` in a child process, with
 * the embedded libSQL server and `workerd serve config.capnp` — on free ports and a
 * temporary data folder, and runs `wren` CLI commands against the same data.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PUBLISH_GRACE_MS } from "../../worker/reports/publisher";
import { freePort } from "./ports";

export const ROOT = resolve(import.meta.dirname, "../..");
const WREN = join(ROOT, "bin/wren.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Stack {
  url: string;
  port: number;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** The first admin key, when this start onboarded. */
  adminKey: string | undefined;
  process: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  cli(args: string[]): Promise<CliResult>;
}

export interface StartOptions {
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Start in a process group of its own, so a test can signal the group as a terminal does. */
  processGroup?: boolean;
  /** Runs `node bin/wren.js start` through another command (a namespace with a small disk): the command and its arguments. */
  launch?: (node: string, args: string[]) => [command: string, args: string[]];
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

export async function startStack(options: StartOptions = {}): Promise<Stack> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "wren-e2e-"));
  // A restart on the same data keeps its port (options.env.PORT), so clients made before still reach it.
  const port = options.env?.PORT ? Number(options.env.PORT) : await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: "127.0.0.1",
    PORT: String(port),
    WREN_DATA: dataDir,
    WREN_DB_PORT: "",
    // Reports read what the publisher published: a short interval keeps tests short.
    WREN_PUBLISH_INTERVAL: "1",
    ...options.env,
  };
  const [command, args] = options.launch?.(process.execPath, [WREN, "start"]) ?? [process.execPath, [WREN, "start"]];
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: options.processGroup ?? false });
  let output = "";
  child.stdout!.on("data", (c) => (output += c));
  child.stderr!.on("data", (c) => (output += c));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let stopped = false;
  void exited.then(() => (stopped = true));
  while (!/Wren is running at/.test(output)) {
    if (stopped) throw new Error(`wren start exited before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`wren start was not ready in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  try {
    await waitForPublication(url);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}; wren start said:\n${output}`);
  }
  return {
    url,
    port,
    dataDir,
    env,
    adminKey: firstAdminKey(output),
    process: child,
    output: () => output,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const [code, sig] = await exited;
      return { code, signal: sig };
    },
    cli: (args) => runWren(args, env),
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
