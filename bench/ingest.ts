/**
 * Ingest throughput on this machine: beacons (`POST /e`) and server-to-server conversions
 * (`POST /s2s`) under concurrent load, with autocannon against the real stack on loopback
 * (workerd running config.capnp's workers, the embedded libSQL server in its own process).
 * Each figure stands beside the same load on a do-nothing worker in the same workerd, so
 * the ratio says what Wren's work costs over workerd's own floor on this box.
 *
 * Afterwards the rows are counted: every 202 must be a stored row, none more, none fewer.
 *
 *   npx tsx bench/ingest.ts          (or through bench/run.ts)
 *
 * Knobs: BENCH_DURATION (seconds per load, default 8), BENCH_ONLY (load indexes, e.g. "0,2"),
 * BENCH_VERBOSE=1 (workerd's output), BENCH_INSPECT=PORT (workerd's V8 inspector, to profile).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import workerd from "workerd";
import { applyMigrations, openDatabase } from "../cli/database";
import { ROOT } from "../cli/paths";
import { loadSettings } from "../cli/settings";
import { buildIfStale } from "../scripts/build";
import { buildTracker } from "../tracker/build";
import { insertGoal } from "../worker/domain/goals";
import { insertSite } from "../worker/domain/sites";
import { importHmacKey, randomToken } from "../worker/lib/crypto";
import type { Database } from "../worker/lib/db";
import { siteToken } from "../worker/lib/tokens";
import { freePort } from "../test/helpers/ports";
import { autocannon, processTree, type AutocannonResult } from "./load";

/** How long each load runs, and the most requests it may send. */
const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
const MAX_REQUESTS = 200_000;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const BATCH_SIZE = 50;
const TARGET_EVENTS_PER_S = 3_000;

const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";

async function waitFor(url: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited (${child.exitCode})`);
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await once(child, "exit");
  clearTimeout(timer);
}

/**
 * A bench-only workerd config: config.capnp's workers exactly as in production, plus a
 * do-nothing worker on its own socket, all in one workerd process.
 */
function writeBenchConfig(dir: string): string {
  writeFileSync(
    join(dir, "noop.js"),
    'export default { fetch() { return new Response(\'{"accepted":1}\', { status: 202, headers: { "content-type": "application/json" } }); } };\n',
  );
  const file = join(dir, "bench.capnp");
  writeFileSync(
    file,
    `using Workerd = import "/workerd/workerd.capnp";
using Base = import ${JSON.stringify(relative(dir, join(ROOT, "config.capnp")))};
const config :Workerd.Config = (
  services = [
    (name = "api", worker = Base.apiWorker),
    (name = "collector", worker = Base.collectorWorker),
    (name = "alerts", worker = Base.alertsWorker),
    (name = "noop", worker = (modules = [(name = "noop.js", esModule = embed "noop.js")], compatibilityDate = "2026-11-01")),
    (name = "libsql", external = (address = "127.0.0.1:8080", http = ())),
    (name = "libsql-read", external = (address = "127.0.0.1:8080", http = ())),
    (name = "do-storage", disk = (path = "do", writable = true)),
    (name = "dashboard", disk = (path = "dashboard/dist")),
    (name = "no-network", network = (allow = [])),
    Base.webhookNetworkService,
  ],
  sockets = [
    (name = "http", address = "127.0.0.1:8787", http = (), service = (name = "collector", entrypoint = "http")),
    (name = "noop", address = "127.0.0.1:8788", http = (), service = "noop"),
    (name = "direct", address = "127.0.0.1:8789", http = (), service = "collector"),
  ],
);
`,
  );
  return file;
}

interface Fixture {
  siteId: string;
  token: string;
  goalId: string;
}

async function seed(db: Database, secret: string): Promise<Fixture> {
  await applyMigrations(db);
  const { site } = await insertSite(db, { name: "Bench shop", domain: "shop.test", createdByKey: null });
  const { goal } = await insertGoal(db, { siteId: site.id, name: "purchase", kind: "event", match: "purchase", threshold: 0, purpose: null });
  await insertGoal(db, { siteId: site.id, name: "pricing", kind: "page", match: "/pricing*", threshold: 0, purpose: null });
  return { siteId: site.id, goalId: goal.id, token: await siteToken(await importHmacKey(secret), site.id, site.tokenVersion) };
}

async function countRows(db: Database, table: "events" | "conversions", siteId: string): Promise<number> {
  const rs = await db.$client.execute({ sql: `SELECT count(*) AS n FROM ${table} WHERE site_id = ?`, args: [siteId] });
  return Number(rs.rows[0]!.n);
}

interface Load {
  name: string;
  /** Which socket: the public one (api worker, then the collector) or the collector's own. */
  via: "public" | "direct";
  path: string;
  headers: Record<string, string>;
  body: () => string;
  eventsPerRequest: number;
  table: "events" | "conversions";
}

function accepted(result: AutocannonResult): number {
  return Number(result.statusCodeStats["202"]?.count ?? 0);
}

async function hit(baseUrl: string, load: Load): Promise<AutocannonResult> {
  return autocannon({
    url: baseUrl,
    connections: CONNECTIONS,
    duration: DURATION_S,
    maxOverallRequests: MAX_REQUESTS,
    requests: [{ method: "POST", path: load.path, headers: load.headers, setupRequest: (request) => ({ ...request, body: load.body() }) }],
  });
}

/** CPU seconds (user + system) used so far by a process and its live descendants. */
function cpuSeconds(pid: number | undefined): number {
  return processTree(pid).reduce((total, p) => total + p.seconds, 0);
}

interface Measured {
  result: AutocannonResult;
  /** CPU per request in workerd, and in the libSQL server (with its engine process). */
  workerdUs: number;
  databaseUs: number;
  /** CPU per request in this process: autocannon, the load generator. */
  clientUs: number;
}

/** Runs a load and what it cost in CPU per request: steadier than rates on a busy box. */
async function measure(baseUrl: string, load: Load, pids: { workerd?: number; database?: number }): Promise<Measured> {
  const before = { workerd: cpuSeconds(pids.workerd), database: cpuSeconds(pids.database), client: process.cpuUsage() };
  const result = await hit(baseUrl, load);
  const client = process.cpuUsage(before.client);
  const perRequest = (seconds: number) => (1e6 * seconds) / Math.max(1, result.requests.total);
  return {
    result,
    workerdUs: perRequest(cpuSeconds(pids.workerd) - before.workerd),
    databaseUs: perRequest(cpuSeconds(pids.database) - before.database),
    clientUs: perRequest((client.user + client.system) / 1e6),
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "wren-bench-ingest-"));
  let database: ChildProcess | undefined;
  let server: ChildProcess | undefined;
  let db: Database | undefined;
  try {
    await buildTracker();
    await buildIfStale();

    // The libSQL server in its own process, as `wren start` runs it, so it does not share
    // a thread with autocannon.
    const dbPort = await freePort();
    const dbToken = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
    database = spawn(process.execPath, [join(ROOT, "bin/wren.js"), "db", "--listen", `127.0.0.1:${dbPort}`, "--file", join(dir, "wren.db")], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        WREN_DATA: dir,
        LIBSQL_AUTH_TOKEN: dbToken,
        // V8 CPU profiles of the server's processes, written when they exit.
        ...(process.env.BENCH_DB_PROFILE ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${resolve(process.env.BENCH_DB_PROFILE)}` } : {}),
      },
    });
    const dbUrl = `http://127.0.0.1:${dbPort}`;
    await waitFor(`${dbUrl}/health`, database);
    const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
    db = await openDatabase(loadSettings({ WREN_DATA: dir }), { url: dbUrl, authToken: dbToken });
    const fixture = await seed(db, secret);

    const [httpPort, noopPort, directPort] = [await freePort(), await freePort(), await freePort()];
    mkdirSync(join(dir, "do"), { recursive: true });
    server = spawn(
      workerd.default,
      [
        "serve",
        writeBenchConfig(dir),
        `--socket-addr=http=127.0.0.1:${httpPort}`,
        `--socket-addr=noop=127.0.0.1:${noopPort}`,
        `--socket-addr=direct=127.0.0.1:${directPort}`,
        `--directory-path=do-storage=${join(dir, "do")}`,
        `--directory-path=dashboard=${join(ROOT, "dashboard/dist")}`,
        `--external-addr=libsql=127.0.0.1:${dbPort}`,
        `--external-addr=libsql-read=127.0.0.1:${dbPort}`,
        ...(process.env.BENCH_INSPECT ? [`--inspector-addr=127.0.0.1:${process.env.BENCH_INSPECT}`] : []),
      ],
      { cwd: ROOT, stdio: ["ignore", process.env.BENCH_VERBOSE ? "inherit" : "ignore", "inherit"], env: { PATH: process.env.PATH, LIBSQL_URL: dbUrl, LIBSQL_AUTH_TOKEN: dbToken, WREN_SECRET: secret } },
    );
    const wren = `http://127.0.0.1:${httpPort}`;
    const noop = `http://127.0.0.1:${noopPort}`;
    const direct = `http://127.0.0.1:${directPort}`;
    await waitFor(`${wren}/healthz`, server);
    await waitFor(noop, server);

    const sessions = Array.from({ length: 2_000 }, () => randomToken(16));
    let n = 0;
    const nextSession = () => sessions[n++ % sessions.length]!;
    const beacon: Omit<Load, "name" | "via"> = {
      path: "/e",
      headers: { "content-type": "text/plain;charset=UTF-8", origin: "https://shop.test", "user-agent": BROWSER_UA },
      body: () => JSON.stringify({ site: fixture.siteId, session: nextSession(), events: [{ type: "pageview", path: n % 4 === 0 ? "/pricing" : "/blog/post" }] }),
      eventsPerRequest: 1,
      table: "events",
    };
    const s2s = { path: "/s2s", headers: { "content-type": "application/json", "x-service-token": fixture.token }, table: "conversions" as const };
    const loads: Load[] = [
      { ...beacon, name: "beacons, POST /e, 1 pageview each", via: "public" },
      { ...beacon, name: "beacons, POST /e, 1 pageview each, straight to the collector", via: "direct" },
      {
        ...s2s,
        name: "s2s, POST /s2s, 1 conversion each",
        via: "public",
        body: () => JSON.stringify({ goal_id: fixture.goalId, session: nextSession(), value: 10, id: `order-${n++}` }),
        eventsPerRequest: 1,
      },
      {
        ...s2s,
        name: `s2s, POST /s2s, {events: [${BATCH_SIZE}]} each`,
        via: "public",
        body: () => JSON.stringify({ events: Array.from({ length: BATCH_SIZE }, () => ({ goal_id: fixture.goalId, value: 1, id: `batch-${n++}` })) }),
        eventsPerRequest: BATCH_SIZE,
      },
    ];

    console.log(`${cpus().length} CPUs, ${CONNECTIONS} connections, ${DURATION_S} s per load (at most ${fmt(MAX_REQUESTS)} requests); each beside a do-nothing worker in the same workerd`);
    const problems: string[] = [];
    const only = process.env.BENCH_ONLY?.split(",");
    for (const load of loads.filter((_, i) => !only || only.includes(String(i)))) {
      const rowsBefore = await countRows(db, load.table, fixture.siteId);
      const pids = { workerd: server.pid, database: database.pid };
      const wrenRun = await measure(load.via === "public" ? wren : direct, load, pids);
      const stored = (await countRows(db, load.table, fixture.siteId)) - rowsBefore;
      const noopRun = await measure(noop, load, pids);
      const { result } = wrenRun;
      const acknowledged = accepted(result) * load.eventsPerRequest;
      const requestsPerS = accepted(result) / result.duration;
      const noopPerS = accepted(noopRun.result) / noopRun.result.duration;
      // Requests still in flight when the load stops are stored but never read: at most one per connection.
      const unread = stored - acknowledged;
      console.log(
        [
          `\n${load.name}`,
          `  wren   ${fmt(stored / result.duration).padStart(7)} stored events/s  ${fmt(requestsPerS).padStart(6)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms`,
          `  noop   ${"".padStart(22)}  ${fmt(noopPerS).padStart(6)} req/s  p50 ${noopRun.result.latency.p50} ms  p99 ${noopRun.result.latency.p99} ms`,
          `  ratio  ${(requestsPerS / noopPerS).toFixed(2)} of the do-nothing worker's request rate`,
          `  CPU    per request: workerd ${fmt(wrenRun.workerdUs)} µs (noop ${fmt(noopRun.workerdUs)}), libSQL server ${fmt(wrenRun.databaseUs)} µs, load generator ${fmt(wrenRun.clientUs)} µs` +
            ` → ${fmt((2e6 * load.eventsPerRequest) / (wrenRun.workerdUs + wrenRun.databaseUs + wrenRun.clientUs))} events/s if 2 idle cores ran only this`,
          `  check  ${fmt(accepted(result))} × 202 = ${fmt(acknowledged)} events acknowledged, ${fmt(stored)} rows stored: ` +
            (unread < 0 ? `${fmt(-unread)} ACKNOWLEDGED EVENTS MISSING` : `none missing (${fmt(unread)} stored for requests cut off at the end)`) +
            `; other answers ${fmt(result.non2xx)}, errors ${result.errors}, timeouts ${result.timeouts}`,
        ].join("\n"),
      );
      if (load.eventsPerRequest === 1 && load.via === "public") {
        const rate = stored / result.duration;
        console.log(`  target ${fmt(TARGET_EVENTS_PER_S)} stored events/s on 2 cores: ${rate >= TARGET_EVENTS_PER_S ? "met" : `not met (${((100 * rate) / TARGET_EVENTS_PER_S).toFixed(0)} %)`}`);
      }
      if (unread < 0) problems.push(`${load.name}: ${-unread} acknowledged events are not in the database`);
      if (unread > CONNECTIONS * load.eventsPerRequest) problems.push(`${load.name}: ${unread} rows stored without a 202, more than the requests in flight`);
      if (result.non2xx > 0 || result.errors > 0) problems.push(`${load.name}: ${result.non2xx} non-2xx answers and ${result.errors} errors under load`);
    }
    if (problems.length > 0) throw new Error(problems.join("\n"));
  } finally {
    db?.$client.close();
    await stop(server);
    await stop(database);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await run();
}
