/**
 * Alert rules across boxes, as docs/operations.md (Scale-out) runs them: one standalone database
 * (`wren db --listen … --file …`, its token from its data folder), two `wren start` boxes on it
 * with the same server secret, each with its own Durable Object storage and so its own alert
 * scheduler. Evaluation happens under the database lease and delivery through atomic claims, so
 * every notification reaches its receiver once; and a database that dies in the middle of a
 * delivery loses nothing: the unrecorded attempt goes out again with the same webhook-id.
 *
 * Everything listens on and talks to 127.0.0.1: the receivers are loopback servers that
 * WREN_WEBHOOK_ALLOW names.
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, serveOnLoopback, type Call, type LoopbackServer } from "../helpers/http";
import { freePort } from "../helpers/ports";
import { ROOT, startStack, type Stack } from "../helpers/stack";
import { sleep, until } from "../helpers/wait";

const WREN = join(ROOT, "bin/wren.js");

/** The settings both boxes run with: passes every second, first retry after 1 s, loopback receivers. */
const ALERT_ENV = { WREN_ALERT_INTERVAL: "1", WREN_WEBHOOK_RETRY_SECONDS: "1", WREN_WEBHOOK_ALLOW: "127.0.0.1" };

/** `wren db` as an operator runs it for several boxes; its output, and a kill of it and its engine child. */
interface Database {
  url: string;
  process: ChildProcess;
  output(): string;
  /** SIGKILL the server and its engine process (a crash of the whole database), and wait until both are gone. */
  crash(): Promise<void>;
  stop(): Promise<void>;
}

function childrenOf(pid: number): number[] {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function startDatabase(dataDir: string, file: string, port: number): Promise<Database> {
  // No LIBSQL_AUTH_TOKEN: the server makes (or keeps) the token in its data folder, libsql.token.
  const env = { ...process.env, WREN_DATA: dataDir, LIBSQL_AUTH_TOKEN: "", LIBSQL_URL: "" };
  const child = spawn(process.execPath, [WREN, "db", "--listen", `127.0.0.1:${port}`, "--file", file], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c) => (output += c));
  child.stderr!.on("data", (c) => (output += c));
  const exited = once(child, "exit");
  let gone = false;
  void exited.then(() => (gone = true));
  await until(
    "wren db to listen",
    () => {
      if (gone) throw new Error(`wren db exited:\n${output}`);
      return output.includes(`listening on http://127.0.0.1:${port}`);
    },
    20_000,
  );
  return {
    url: `http://127.0.0.1:${port}`,
    process: child,
    output: () => output,
    async crash() {
      const engines = childrenOf(child.pid!);
      child.kill("SIGKILL");
      for (const pid of engines) if (alive(pid)) process.kill(pid, "SIGKILL");
      await exited;
      await until("the engine process to be gone", () => engines.every((pid) => !alive(pid)), 10_000);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
}

async function portRefuses(url: string): Promise<boolean> {
  return fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    () => false,
    () => true,
  );
}

/** One request as a receiver saw it. */
interface Arrival {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
}

function arrivalOf(req: IncomingMessage, body: string): Arrival {
  return {
    path: req.url ?? "",
    id: String(req.headers["webhook-id"] ?? ""),
    timestamp: String(req.headers["webhook-timestamp"] ?? ""),
    signature: String(req.headers["webhook-signature"] ?? ""),
    body,
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (c) => (text += c));
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

/** Whether `arrival` is signed with `secret` (Standard Webhooks: id, timestamp and body). */
function signedWith(secret: string, arrival: Arrival): boolean {
  try {
    new Webhook(secret).verify(arrival.body, {
      "webhook-id": arrival.id,
      "webhook-timestamp": arrival.timestamp,
      "webhook-signature": arrival.signature,
    });
    return true;
  } catch {
    return false;
  }
}

const countBy = (ids: string[]) => ids.reduce((m, id) => m.set(id, (m.get(id) ?? 0) + 1), new Map<string, number>());

const messageId = (ruleId: string, seq: number, position: number) => `msg_${ruleId.slice(4)}.${seq}.${position}`;

const temp = mkdtempSync(join(tmpdir(), "wren-two-boxes-"));
const dbDir = join(temp, "db");
const dbFile = join(dbDir, "shared.db");
let dbPort: number;
let db: Database | undefined;
let token: string;
let boxA: Stack | undefined;
let boxB: Stack | undefined;
let adminA: Call;
let adminB: Call;
let site: string;
let smokeGoal: string;
const receivers: LoopbackServer[] = [];
/** What the first test's receiver saw (the second checks that the database restart sent none of it again). */
let firstArrivals: Arrival[] | undefined;

beforeAll(async () => {
  dbPort = await freePort();
  const started = (db = await startDatabase(dbDir, dbFile, dbPort));
  token = readFileSync(join(dbDir, "libsql.token"), "utf8").trim();
  expect(token.length).toBeGreaterThanOrEqual(32);
  const tokenLine = `Clients authenticate with the token in ${join(dbDir, "libsql.token")}`;
  await until("wren db to name its token file", () => started.output().includes(tokenLine), 5_000);
  const shared = { LIBSQL_URL: db.url, LIBSQL_AUTH_TOKEN: token, ...ALERT_ENV };

  // The first box migrates the shared database, makes the server secret and onboards.
  boxA = await startStack({ dataDir: join(temp, "box-a"), env: shared });
  expect(boxA.adminKey).toMatch(/^wren_[A-Za-z0-9_-]{43}$/);
  // The second gets the first's secret (docs/operations.md: copy data/secret.key's content).
  const secret = readFileSync(join(boxA.dataDir, "secret.key"), "utf8").trim();
  boxB = await startStack({ dataDir: join(temp, "box-b"), env: { ...shared, WREN_SECRET: secret } });
  expect(boxB.adminKey).toBeUndefined();
  expect(existsSync(join(boxB.dataDir, "secret.key"))).toBe(false);
  for (const box of [boxA, boxB]) {
    expect(box.output()).toContain(`using the libSQL server at 127.0.0.1:${dbPort}`);
    expect(existsSync(join(box.dataDir, "wren.db"))).toBe(false);
  }

  adminA = client(boxA.url, boxA.adminKey);
  adminB = client(boxB.url, boxA.adminKey);
  const made = await adminA("POST", "/api/v1/sites", { name: "Shop", domain: "shop.test" });
  expect(made.status).toBe(201);
  site = made.body.id;
  const goal = await adminB("POST", `/api/v1/sites/${site}/goals`, {
    name: "Smoke",
    kind: "event",
    match: "smoke",
    purpose: "smoke-test",
  });
  expect(goal.status).toBe(201);
  smokeGoal = goal.body.id;
  // One database: what one box made, the other reads.
  expect((await adminB("GET", "/api/v1/keys")).body.keys).toHaveLength(1);
  expect((await adminA("GET", `/api/v1/sites/${site}/goals`)).body.goals.map((g: { id: string }) => g.id)).toEqual([smokeGoal]);
}, 90_000);

afterAll(async () => {
  await Promise.all([boxA?.stop(), boxB?.stop()].map((p) => p?.catch(() => undefined)));
  await db?.stop().catch(() => undefined);
  await Promise.all(receivers.map((r) => r.close().catch(() => undefined)));
  rmSync(temp, { recursive: true, force: true });
}, 30_000);

async function makeRule(call: Call, url: string): Promise<{ id: string; secret: string }> {
  const made = await call("POST", "/api/v1/alerts", {
    site,
    metric: "goal",
    goal_id: smokeGoal,
    condition: "below",
    threshold: 1,
    window_hours: 1,
    destinations: [{ url }],
  });
  expect(made.status, made.text).toBe(201);
  expect(made.body.destinations).toHaveLength(1);
  expect(made.body.destinations[0].secret).toMatch(/^whsec_/);
  return { id: made.body.id, secret: made.body.destinations[0].secret };
}

describe("alerts on two boxes sharing one database", () => {
  it("Several workerd instances share one database: evaluation and delivery happen once.", async () => {
    const arrivals: Arrival[] = [];
    firstArrivals = arrivals;
    const rx = await serveOnLoopback(async (req: IncomingMessage, res: ServerResponse) => {
      const arrival = arrivalOf(req, await readBody(req));
      arrivals.push(arrival);
      // A transition's notification is answered slower than a pass (1 s): while one is in flight,
      // the other box's passes find it due but claimed, and must leave it alone.
      if (arrival.id.includes(".")) await sleep(1_200);
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
    receivers.push(rx);

    // Rules made through both boxes; no smoke conversion at all, so each fires on its first pass.
    const rules: { id: string; secret: string }[] = [];
    for (let i = 0; i < 5; i++) rules.push(await makeRule(i % 2 === 0 ? adminA : adminB, `${rx.url}/hook`));
    const firingIds = rules.map((r) => messageId(r.id, 1, 0));
    const secretOf = new Map(rules.map((r) => [r.id, r.secret]));

    await until("every rule's alert.firing", () => firingIds.every((id) => arrivals.some((a) => a.id === id)), 20_000);

    // A test notification for each rule through each box's api.
    const tests = new Map<string, { rule: string }>();
    for (const rule of rules) {
      for (const call of [adminA, adminB]) {
        const queued = await call("POST", `/api/v1/alerts/${rule.id}/test`);
        expect(queued.status, queued.text).toBe(202);
        expect(queued.body.queued).toHaveLength(1);
        expect(queued.body.queued[0].webhook_id).toMatch(/^msg_/);
        tests.set(queued.body.queued[0].webhook_id, { rule: rule.id });
      }
    }
    expect(tests.size).toBe(10);
    await until("every test notification", () => [...tests.keys()].every((id) => arrivals.some((a) => a.id === id)), 20_000);

    // Both boxes keep evaluating and draining every second: wait for several passes of each
    // after the last arrival, then nothing may have come twice and nothing else may have come.
    await sleep(5_000);
    const last = arrivals.length;
    await sleep(1_000);
    expect(arrivals.length).toBe(last);

    // Each webhook-id exactly once: 5 firings and 10 tests, nothing else.
    const counts = countBy(arrivals.map((a) => a.id));
    expect(Object.fromEntries([...counts].sort())).toEqual(
      Object.fromEntries([...firingIds, ...tests.keys()].sort().map((id) => [id, 1])),
    );
    expect(arrivals).toHaveLength(15);

    for (const arrival of arrivals) {
      expect(arrival.path).toBe("/hook");
      const body = JSON.parse(arrival.body) as {
        type: string;
        data: { rule: { id: string }; state: { from: string; to: string } | null };
      };
      const firingRule = rules.find((r) => messageId(r.id, 1, 0) === arrival.id);
      const ruleId = firingRule?.id ?? tests.get(arrival.id)!.rule;
      expect(body.data.rule.id).toBe(ruleId);
      expect(body.type).toBe(firingRule ? "alert.firing" : "alert.test");
      if (firingRule) expect(body.data.state).toMatchObject({ from: "ok", to: "firing" });
      // Whichever box sent it, it is signed with the secret the api showed: the boxes share the server secret.
      expect(signedWith(secretOf.get(ruleId)!, arrival), `signature of ${arrival.id}`).toBe(true);
    }

    // Each rule's history, read through either box: one transition, one delivery of one attempt; its two tests.
    for (const [i, rule] of rules.entries()) {
      const history = await (i % 2 === 0 ? adminB : adminA)("GET", `/api/v1/alerts/${rule.id}/history`);
      expect(history.status).toBe(200);
      expect(history.body.transitions).toHaveLength(1);
      const [transition] = history.body.transitions;
      expect(transition).toMatchObject({ seq: 1, from: "ok", to: "firing", figure: { value: 0, qualifier: "exact" } });
      expect(transition.deliveries).toHaveLength(1);
      expect(transition.deliveries[0]).toMatchObject({
        webhook_id: messageId(rule.id, 1, 0),
        type: "alert.firing",
        status: "delivered",
      });
      expect(transition.deliveries[0].attempts).toEqual([
        { attempt: 1, at: expect.any(String), status: 200, error: null, duration_ms: expect.any(Number) },
      ]);
      const ruleTests = [...tests].filter(([, t]) => t.rule === rule.id).map(([id]) => id);
      expect(history.body.tests.map((t: { webhook_id: string }) => t.webhook_id).sort()).toEqual(ruleTests.sort());
      for (const test of history.body.tests) {
        expect(test).toMatchObject({ type: "alert.test", status: "delivered" });
        expect(test.attempts).toHaveLength(1);
        expect(test.attempts[0]).toMatchObject({ attempt: 1, status: 200, error: null });
      }
      const state = await adminA("GET", `/api/v1/alerts/${rule.id}`);
      expect(state.body.state.status).toBe("firing");
    }
  }, 60_000);

  it("A database restart mid-delivery loses nothing", async () => {
    const arrivals: Arrival[] = [];
    const answered: number[] = [];
    let heldClosed: (() => void) | undefined;
    const firstClosed = new Promise<void>((resolve) => (heldClosed = resolve));
    let held: ServerResponse | undefined;
    const rx = await serveOnLoopback(async (req: IncomingMessage, res: ServerResponse) => {
      arrivals.push(arrivalOf(req, await readBody(req)));
      if (arrivals.length === 1) {
        // The first attempt: no answer at all; the sender gives up after its timeout.
        held = res;
        res.on("close", () => heldClosed!());
        return;
      }
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      answered.push(200);
    });
    receivers.push(rx);

    const rule = await makeRule(adminB, `${rx.url}/hook`);
    const id = messageId(rule.id, 1, 0);
    await until("the first attempt", () => arrivals.length === 1, 20_000);
    expect(arrivals[0]!.id).toBe(id);

    // The database dies while the box holds the request open, and stays down until the sender
    // has given up on it: the failed attempt cannot be recorded, the row stays claimed.
    await db!.crash();
    expect(await portRefuses(db!.url)).toBe(true);
    await firstClosed;
    expect(arrivals).toHaveLength(1);
    await sleep(1_000);
    expect(arrivals).toHaveLength(1);
    db = await startDatabase(dbDir, dbFile, dbPort);
    expect(readFileSync(join(dbDir, "libsql.token"), "utf8").trim()).toBe(token);

    // The same message again (the claimer releases its claim once the database answers), answered now.
    await until("the second attempt", () => arrivals.length >= 2, 20_000);
    const history = await until(
      "the row to be delivered",
      async () => {
        const h = await adminA("GET", `/api/v1/alerts/${rule.id}/history`);
        return h.status === 200 && h.body.transitions[0]?.deliveries[0]?.status === "delivered" ? h : undefined;
      },
      15_000,
    );
    await sleep(4_000);

    expect(arrivals.map((a) => a.id)).toEqual([id, id]);
    expect(answered).toEqual([200]);
    expect(arrivals[1]!.body).toBe(arrivals[0]!.body);
    for (const arrival of arrivals) expect(signedWith(rule.secret, arrival)).toBe(true);
    expect(held!.writableEnded).toBe(false);

    const final = await adminB("GET", `/api/v1/alerts/${rule.id}/history`);
    expect(final.body).toEqual(history.body);
    expect(final.body.transitions).toHaveLength(1);
    expect(final.body.transitions[0]).toMatchObject({ seq: 1, from: "ok", to: "firing" });
    expect(final.body.transitions[0].deliveries).toHaveLength(1);
    const delivery = final.body.transitions[0].deliveries[0];
    expect(delivery).toMatchObject({
      webhook_id: id,
      type: "alert.firing",
      status: "delivered",
      next_attempt_at: null,
      delivered_at: expect.any(String),
    });
    // The attempt the database never heard of is not in the history; the one it did hear of is, once.
    expect(delivery.attempts).toEqual([
      { attempt: 1, at: expect.any(String), status: 200, error: null, duration_ms: expect.any(Number) },
    ]);
    expect(final.body.tests).toEqual([]);
    // The crash lost nothing that was written: every rule is still there, firing; and nothing
    // delivered before it went out again.
    const rules = await adminA("GET", `/api/v1/alerts?site=${site}`);
    expect(rules.status).toBe(200);
    expect(rules.body.alerts.map((r: { state: { status: string } }) => r.state.status)).toEqual(
      Array(firstArrivals ? 6 : 1).fill("firing"),
    );
    if (firstArrivals) expect(firstArrivals).toHaveLength(15);
  }, 60_000);
});
