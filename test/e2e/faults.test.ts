/**
 * Faults injected into the running service, as an operator meets them: a stopped database
 * process (SIGSTOP), a full disk (a small tmpfs in a mount namespace of the test's own, so
 * nothing on the machine fills up), a read-only data folder, a `kill -9` of `wren start`, and ports that
 * are taken. The service must answer 503 + Retry-After within its deadlines, blame the server
 * and not the client, recover by itself, leave no process behind, and lose or double nothing.
 */
import { createClient, type Client } from "@libsql/client";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { client, type Answer } from "../helpers/http";
import { freePort } from "../helpers/ports";
import { ROOT, startStack, type Stack } from "../helpers/stack";

const WREN = join(ROOT, "bin/wren.js");
/** A request that has not answered by then is taken as hung: far beyond every deadline. */
const HUNG_MS = 20_000;

const stacks: Stack[] = [];
afterAll(async () => {
  for (const stack of stacks) await stack.stop("SIGKILL").catch(() => undefined);
});

function workerdProcessesFor(dataDir: string): string[] {
  const out = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" });
  return out.split("\n").filter((line) => line.includes("workerd") && line.includes(dataDir));
}

/** The libSQL engine: the child `wren start` forks (server/hrana/child-entry.ts). */
function engineProcess(stack: Stack): number {
  const out = execFileSync("pgrep", ["-P", String(stack.process.pid), "-f", "child-entry"], { encoding: "utf8" });
  return Number(out.trim().split("\n")[0]);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

interface Setup {
  stack: Stack;
  siteId: string;
  goalId: string;
  token: string;
  key: string;
}

/** A site with an event goal and a key, and one conversion stored, so the site's config is warm in the collector. */
async function setUp(stack: Stack, adminKey = stack.adminKey!): Promise<Setup> {
  const admin = client(stack.url, adminKey);
  const site = await admin("POST", "/api/v1/sites", { name: "Faults", domain: "faults.example" });
  expect(site.status).toBe(201);
  const goal = await admin("POST", `/api/v1/sites/${site.body.id}/goals`, { name: "Buy", kind: "event", match: "buy" });
  expect(goal.status).toBe(201);
  const setup = {
    stack,
    siteId: site.body.id as string,
    goalId: goal.body.id as string,
    token: site.body.s2s_token as string,
    key: adminKey,
  };
  expect((await s2s(setup, "warm-up")).status).toBe(202);
  return setup;
}

function s2s(setup: Setup, id: string): Promise<Answer> {
  return client(setup.stack.url)("POST", "/s2s", { goal_id: setup.goalId, id }, { "x-service-token": setup.token });
}

async function timedFetch(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; retryAfter: string | null; body: any }> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(HUNG_MS) });
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body: text ? JSON.parse(text) : undefined };
}

/** Conversions of a goal, and how many distinct event keys they have (equal: none doubled). */
async function conversionsOf(db: Client, goalId: string): Promise<{ rows: number; keys: number }> {
  const row = (
    await db.execute({
      sql: "SELECT count(*) AS n, count(DISTINCT event_key) AS k FROM conversions WHERE goal_id = ?",
      args: [goalId],
    })
  ).rows[0]!;
  return { rows: Number(row.n), keys: Number(row.k) };
}

describe("a stalled database (its process stopped with SIGSTOP)", () => {
  it("answers 503 + Retry-After within the deadlines, recovers without a restart, and stores each event once", async () => {
    const stack = await startStack({ env: { WREN_RATE_LIMIT: "100000/60" } });
    stacks.push(stack);
    const setup = await setUp(stack);
    const engine = engineProcess(stack);
    const ids = ["stall-1", "stall-2", "stall-3", "stall-4", "stall-5", "stall-6"];

    process.kill(engine, "SIGSTOP");
    let answers;
    try {
      answers = await Promise.all([
        timedFetch(`${stack.url}/healthz`),
        timedFetch(`${stack.url}/api/v1/pages?site=${setup.siteId}&period=7d`, {
          headers: { authorization: `Bearer ${setup.key}` },
        }),
        ...ids.map((id) =>
          timedFetch(`${stack.url}/s2s`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-service-token": setup.token },
            body: JSON.stringify({ goal_id: setup.goalId, id }),
          }),
        ),
      ]);
    } finally {
      process.kill(engine, "SIGCONT");
    }

    const [health, report, ...events] = answers;
    expect(health).toMatchObject({ status: 503, retryAfter: "5", body: { database: "not answering" } });
    expect(report).toMatchObject({ status: 503, retryAfter: "5" });
    for (const event of events) {
      expect(event.status).toBe(503);
      expect(event.retryAfter).toBe("5");
      // Never "nothing was stored" for a commit that was sent: it may land after the deadline.
      expect(event.body.detail).toMatch(/may have been stored: retry with the same `id`|Nothing was stored/);
    }
    expect(events.some((e) => /may have been stored/.test(e.body.detail))).toBe(true);

    // Back by itself: the same ids again are stored (or found stored), each exactly once.
    await until("a healthy /healthz", async () => ((await timedFetch(`${stack.url}/healthz`)).status === 200 ? true : undefined));
    for (const id of ids) expect((await s2s(setup, id)).status).toBe(202);
    const db = createClient({ url: `file:${join(stack.dataDir, "wren.db")}` });
    try {
      // The warm-up and the six, once each.
      expect(await conversionsOf(db, setup.goalId)).toEqual({ rows: 7, keys: 7 });
    } finally {
      db.close();
    }
  }, 90_000);
});

/** `wren start` in a mount namespace of its own with a tmpfs of `size` on its data folder (`ro` for a read-only one). */
function onTmpfs(options: string) {
  return (node: string, args: string[]): [string, string[]] => [
    "unshare",
    [
      "--map-root-user",
      "--mount",
      "sh",
      "-c",
      `mount -t tmpfs -o ${options} tmpfs "$WREN_DATA" && exec "$@"`,
      "wren-on-tmpfs",
      node,
      ...args,
    ],
  ];
}

/** The data folder as the namespaced service sees it (its tmpfs), through /proc. */
function insideDataDir(stack: Stack): string {
  return `/proc/${stack.process.pid}/root${stack.dataDir}`;
}

/** Writes zeros into `file` until the disk refuses (ENOSPC). */
function fillDisk(file: string): void {
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(1 << 20);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
}

describe("storage faults", () => {
  it("a full disk answers 503 (the server's fault, not the client's), /healthz says why, and it recovers", async () => {
    const stack = await startStack({ env: { WREN_RATE_LIMIT: "100000/60" }, launch: onTmpfs("size=32m") });
    stacks.push(stack);
    // The first admin key was written inside the namespace's tmpfs.
    const adminKey = readFileSync(join(insideDataDir(stack), "first-admin-key.txt"), "utf8").match(/wren_\S+/)![0];
    const setup = await setUp(stack, adminKey);
    const admin = client(stack.url, setup.key);
    const filler = join(insideDataDir(stack), "filler");

    fillDisk(filler);
    const full = await s2s(setup, "full-1");
    expect(full.status).toBe(503);
    expect(full.headers.get("retry-after")).toBe("30");
    expect(full.body.detail).toBe("The server cannot write to its storage right now. Nothing was stored; retry later.");
    // The API's writes too (the key's rate limiter writes to the Durable Object storage first).
    const site = await admin("POST", "/api/v1/sites", { name: "Full", domain: "full.example" });
    expect(site.status).toBe(503);
    expect(site.headers.get("retry-after")).toBe("30");
    // Reads still work.
    expect((await admin("GET", `/api/v1/sites/${setup.siteId}`)).status).toBe(200);
    const health = await until("/healthz to see the full disk", async () => {
      const answer = await timedFetch(`${stack.url}/healthz`);
      return answer.status === 503 ? answer : undefined;
    });
    expect(health).toMatchObject({
      retryAfter: "30",
      body: { database: "ok", storage: expect.stringMatching(/SQLITE_FULL|RUNTIME_STORAGE/) },
    });
    expect(stack.output()).toMatch(/storage fault: (SQLITE_FULL|RUNTIME_STORAGE): /);

    rmSync(filler);
    await until("a write after the disk was freed", async () => ((await s2s(setup, "full-1")).status === 202 ? true : undefined));
    await until("a healthy /healthz", async () => ((await timedFetch(`${stack.url}/healthz`)).status === 200 ? true : undefined));

    // SQLite resolves /proc/PID/root to "/" and would open the host's path: read a copy instead.
    const copy = mkdtempSync(join(tmpdir(), "wren-full-copy-"));
    for (const file of ["wren.db", "wren.db-wal"]) copyFileSync(join(insideDataDir(stack), file), join(copy, file));
    const db = createClient({ url: `file:${join(copy, "wren.db")}` });
    try {
      // The warm-up and full-1, once each; the refused site was never made.
      expect(await conversionsOf(db, setup.goalId)).toEqual({ rows: 2, keys: 2 });
      expect(Number((await db.execute("SELECT count(*) AS n FROM sites WHERE domain = 'full.example'")).rows[0]!.n)).toBe(0);
    } finally {
      db.close();
    }
  }, 120_000);

  it("wren start refuses a read-only data folder with a clear message", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "wren-ro-"));
    const [command, args] = onTmpfs("ro,size=1m")(process.execPath, [WREN, "start"]);
    const run = spawnSync(command, args, {
      cwd: ROOT,
      env: { ...process.env, WREN_DATA: dataDir, PORT: String(await freePort()), HOST: "127.0.0.1" },
      encoding: "utf8",
      timeout: HUNG_MS,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`wren: the data folder ${dataDir} is read-only (EROFS)`);
    expect(run.stderr).toContain("point WREN_DATA at a writable folder");
    expect(run.stdout).not.toContain("Wren is running");
  });
});

describe("the supervisor", () => {
  it("leaves nothing running when it is killed with SIGKILL, so the next start binds the port", async () => {
    const stack = await startStack();
    stacks.push(stack);
    expect(workerdProcessesFor(stack.dataDir)).toHaveLength(2);
    process.kill(stack.process.pid!, "SIGKILL");
    await until(
      "the orphans to be gone",
      async () => (workerdProcessesFor(stack.dataDir).length === 0 ? true : undefined),
      15_000,
    );
    await until(
      "the port to be free",
      async () =>
        await fetch(`${stack.url}/healthz`).then(
          () => undefined,
          () => true,
        ),
      15_000,
    );

    const again = await startStack({ dataDir: stack.dataDir, env: stack.env });
    stacks.push(again);
    const health = await timedFetch(`${again.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.body.instance).toMatch(/^[0-9a-f-]{36}$/);
  }, 90_000);

  describe("with a port already taken", () => {
    let holder: Server;
    let port: number;
    afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

    // A listener that accepts and never answers, as a stopped earlier Wren would.
    const holdPort = async () => {
      port = await freePort();
      holder = createServer(() => undefined);
      holder.listen(port, "127.0.0.1");
      await once(holder, "listening");
    };

    it("says what holds the public port and exits non-zero at once", async () => {
      await holdPort();
      const run = spawnSync(process.execPath, [WREN, "start"], {
        cwd: ROOT,
        env: { ...process.env, WREN_DATA: mkdtempSync(join(tmpdir(), "wren-port-")), HOST: "127.0.0.1", PORT: String(port) },
        encoding: "utf8",
        timeout: HUNG_MS,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`The port Wren listens on (127.0.0.1:${port}) is already in use by process ${process.pid} (`);
      expect(run.stdout).not.toContain("libSQL server on");
    });

    it("and the embedded database's port too (WREN_DB_PORT)", async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "wren-port-"));
      const run = spawnSync(process.execPath, [WREN, "start"], {
        cwd: ROOT,
        env: {
          ...process.env,
          WREN_DATA: dataDir,
          HOST: "127.0.0.1",
          PORT: String(await freePort()),
          WREN_DB_PORT: String(port),
        },
        encoding: "utf8",
        timeout: HUNG_MS,
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(
        `The embedded database's port, WREN_DB_PORT (127.0.0.1:${port}) is already in use by process ${process.pid}`,
      );
      expect(existsSync(join(dataDir, "wren.db"))).toBe(false);
    });
  });

  it("stops quietly on Ctrl-C during start-up, before the service is up", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "wren-early-"));
    const child = spawn(process.execPath, [WREN, "start"], {
      cwd: ROOT,
      env: { ...process.env, WREN_DATA: dataDir, HOST: "127.0.0.1", PORT: String(await freePort()), WREN_DB_PORT: "" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    child.stdout!.on("data", (c) => (output += c));
    child.stderr!.on("data", (c) => (output += c));
    const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    await until("the database to start", async () => (output.includes("libSQL server on") ? true : undefined));
    // A terminal's Ctrl-C reaches the whole process group.
    process.kill(-child.pid!, "SIGINT");
    const [code, signal] = await exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(output).toMatch(/wren: SIGINT received during start-up, stopping\nwren: stopped\n$/);
    expect(output).not.toMatch(/exited|died|Error|crash/i);
    await until("no workerd left", async () => (workerdProcessesFor(dataDir).length === 0 ? true : undefined), 10_000);
  });
});
