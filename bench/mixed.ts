/**
 * Reads beside writes: 10 report readers (pages, timeseries, conversions over 7 days, in
 * turn) and 10 beacon connections on one `wren start` stack, each alone and then both at
 * once, at an empty database, 1 M and 10 M events. Only 2xx answers count; the key's limit
 * is raised so that no 429 is mistaken for speed. While beacons run, /healthz is sampled to
 * see how far publication lags behind now.
 *
 *   npm run bench mixed                          (0, 1 M and 10 M events; ~12 minutes)
 *   BENCH_MIXED_SCALES=0 npm run bench mixed     (knobs: BENCH_MIXED_DURATION seconds, default 15)
 *
 * Targets: reads ≥ 300 req/s with p95 ≤ 100 ms while beacons keep ≥ 80 % of their solo rate;
 * publication lag under ingest ≤ 60 s. The last line is one JSON object with the figures.
 */
import { createClient } from "@libsql/client";
import { join } from "node:path";
import { applyMigrations, openDatabase } from "../cli/database";
import { loadSettings } from "../cli/settings";
import { startStack, type Stack } from "../test/helpers/stack";
import { catchUp } from "../worker/reports/rollup";
import { autocannon, latencyHistogram, pageviewBeacons, printJson, processTree, type BeaconFigures } from "./load";
import { generate } from "./reports";
import { benchScales, inScratchFolder } from "./scratch";

const DURATION_S = Number(process.env.BENCH_MIXED_DURATION ?? 15);
const READERS = 10;
const BEACON_CONNECTIONS = 10;
const SITE = "site_bench000000001";
const DOMAIN = "bench.example";

const TARGET = { readsPerS: 300, readsP95Ms: 100, beaconShare: 0.8, lagS: 60 };

interface ReadFigures {
  requests: number;
  perS: number;
  p50: number;
  p95: number;
  non2xx: number;
}

/**
 * `BENCH_MIXED_READS=filtered`: the readers ask for the same reports under two filters (issue 38:
 * filtered reports must not slow ingest). They are recomputed from the per-session rows at each
 * publication (every 10 s here), as a dashboard with filters on would have them.
 */
const FILTERED_READS = process.env.BENCH_MIXED_READS === "filtered";
const READ_FILTERS = FILTERED_READS ? `&filter=country:DE&filter=${encodeURIComponent("source!:Google")}` : "";

/** READERS connections, each reading the three reports in turn for `seconds` (autocannon, like the beacons). */
async function readLoad(stack: Stack, key: string, seconds: number, perS?: number): Promise<ReadFigures> {
  const paths = [
    `/api/v1/pages?site=${SITE}&period=7d&limit=100${READ_FILTERS}`,
    `/api/v1/timeseries?site=${SITE}&period=7d${READ_FILTERS}`,
    `/api/v1/conversions?site=${SITE}&period=7d${READ_FILTERS}`,
  ];
  const latencies = latencyHistogram();
  const result = await autocannon({
    url: stack.url,
    connections: READERS,
    duration: seconds,
    ...(perS ? { overallRate: perS } : {}),
    histograms: { latencies },
    requests: paths.map((path) => ({ method: "GET", path, headers: { authorization: `Bearer ${key}` } })),
  });
  const ok = Object.entries(result.statusCodeStats)
    .filter(([status]) => status.startsWith("2"))
    .reduce((n, [, stat]) => n + stat.count, 0);
  return {
    requests: ok + result.non2xx,
    perS: ok / result.duration,
    p50: result.latency.p50,
    p95: latencies.getValueAtPercentile(95),
    non2xx: result.non2xx + result.errors,
  };
}

function beaconLoad(stack: Stack, seconds: number): Promise<BeaconFigures> {
  return pageviewBeacons(stack.url, { id: SITE, domain: DOMAIN }, BEACON_CONNECTIONS, seconds);
}

/** Samples the publisher's lag from /healthz every 500 ms until `until` resolves; returns the largest. */
async function sampleLag(stack: Stack, until: Promise<unknown>): Promise<number> {
  let done = false;
  void until.finally(() => (done = true));
  let worst = 0;
  while (!done) {
    const health = (await (await fetch(`${stack.url}/healthz`)).json()) as { publisher: { lag_seconds: number | null } };
    worst = Math.max(worst, health.publisher.lag_seconds ?? Number.POSITIVE_INFINITY);
    await new Promise((r) => setTimeout(r, 500));
  }
  return worst;
}

/** CPU seconds so far of a process and its descendants, by role (workerd, the libSQL server, the rest). */
function cpuByRole(pid: number | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { command, seconds } of processTree(pid)) {
    const role = /workerd/.test(command)
      ? "workerd"
      : /hrana|db/.test(command.split("\0").slice(2).join(" "))
        ? "libsql"
        : "wren";
    out[role] = (out[role] ?? 0) + seconds;
  }
  return out;
}

/** Runs `load` and returns its result with the CPU each part used per request, in µs. */
async function withCpu<T extends { requests: number }>(
  stack: Stack,
  load: () => Promise<T>,
): Promise<T & { cpuUs: Record<string, number> }> {
  const before = { ...cpuByRole(stack.process.pid), generator: process.cpuUsage() };
  const result = await load();
  const after = cpuByRole(stack.process.pid);
  const generator = process.cpuUsage(before.generator);
  const per = (seconds: number) => Math.round((1e6 * seconds) / Math.max(1, result.requests));
  const cpuUs: Record<string, number> = { generator: per((generator.user + generator.system) / 1e6) };
  for (const role of Object.keys(after))
    cpuUs[role] = per(after[role]! - (((before as Record<string, unknown>)[role] as number) ?? 0));
  return { ...result, cpuUs };
}

export interface MixedFigures {
  events: number;
  reads_alone_per_s: number;
  reads_alone_p95_ms: number;
  beacons_alone_per_s: number;
  reads_per_s: number;
  reads_p50_ms: number;
  reads_p95_ms: number;
  beacons_per_s: number;
  beacons_share: number;
  publication_lag_max_s: number;
  acknowledged: number;
  stored: number;
  missing: number;
  non2xx: number;
}

const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : String(n));
const ms = (n: number) => `${n.toFixed(1)} ms`;

export interface ScaleOptions {
  /** How long both loads run together; DURATION_S unless given. */
  bothSeconds?: number;
  /**
   * Paces the readers of the both-at-once phase at this many reads per second, all together: a
   * given demand of reads, to see what beacons keep beside it. Unset, the readers go as fast as
   * they can (closed loop) and take what the scheduler gives them.
   */
  readsPerS?: number;
  /** Watches the stack while both loads run (e.g. its memory), until `load` settles. */
  during?: (stack: Stack, load: Promise<unknown>) => Promise<void>;
}

/** The three phases (reads alone, beacons alone, both at once) on a stack with `events` events. */
export async function scale(events: number, options: ScaleOptions = {}): Promise<MixedFigures> {
  const bothSeconds = options.bothSeconds ?? DURATION_S;
  return inScratchFolder("mixed", async (dir) => {
    const migrated = await openDatabase(loadSettings({ ...process.env, WREN_DATA: dir }));
    await applyMigrations(migrated);
    migrated.$client.close();
    const file = createClient({ url: `file:${join(dir, "wren.db")}` });
    if (events > 0) {
      const started = performance.now();
      const g = generate(join(dir, "wren.db"), events);
      await file.execute("PRAGMA cache_size = -524288");
      await catchUp(file as never);
      console.log(
        `\n${(events / 1e6).toFixed(0)} M events over ${g.from} … ${g.to}, written and folded in ${((performance.now() - started) / 1000).toFixed(0)} s`,
      );
    } else {
      await file.execute({
        sql: "INSERT INTO sites (id, name, domain, allowlist) VALUES (?, 'Bench', ?, ?)",
        args: [SITE, DOMAIN, JSON.stringify([DOMAIN])],
      });
      console.log("\nan empty database (one site)");
    }
    // The beacons' rows only (stamped from now on): retention may delete the generated history's
    // oldest day meanwhile, which a count of every row would read as beacons lost.
    const since = Date.now() - 1_000;
    const countEvents = async () =>
      Number(
        (await file.execute({ sql: "SELECT count(*) AS n FROM events WHERE site_id = ? AND ts >= ?", args: [SITE, since] }))
          .rows[0]!.n,
      );

    // The production interval: figures publish every 10 s, as an operator runs it.
    const stack = await startStack({
      dataDir: dir,
      env: { WREN_RATE_LIMIT: "100000000/60", WREN_PUBLISH_INTERVAL: "10" },
      timeoutMs: 300_000,
    });
    try {
      const key = stack.adminKey;
      if (!key) throw new Error(`no admin key in the start output:\n${stack.output()}`);
      await readLoad(stack, key, 2); // warm-up: isolates, statement caches, page cache

      const readsAlone = await withCpu(stack, () => readLoad(stack, key, DURATION_S));
      const before = await countEvents();
      const beaconsAloneRun = withCpu(stack, () => beaconLoad(stack, DURATION_S));
      const lag = await sampleLag(stack, beaconsAloneRun);
      const beaconsAlone = await beaconsAloneRun;
      const both = Promise.all([readLoad(stack, key, bothSeconds, options.readsPerS), beaconLoad(stack, bothSeconds)]);
      await options.during?.(stack, both);
      const [reads, beacons] = await both;
      // Acknowledged beacons the writer has not committed yet (its queue, behind heavy reads) are
      // not lost: wait until the count has stood still for 3 s (at most a minute), then count.
      let stored = (await countEvents()) - before;
      for (let still = 0, waited = 0; still < 3 && waited < 60; waited++) {
        await new Promise((r) => setTimeout(r, 1_000));
        const now = (await countEvents()) - before;
        still = now === stored ? still + 1 : 0;
        stored = now;
      }
      const acknowledged = beaconsAlone.acknowledged + beacons.acknowledged;
      const figures: MixedFigures = {
        events,
        reads_alone_per_s: readsAlone.perS,
        reads_alone_p95_ms: readsAlone.p95,
        beacons_alone_per_s: beaconsAlone.perS,
        reads_per_s: reads.perS,
        reads_p50_ms: reads.p50,
        reads_p95_ms: reads.p95,
        beacons_per_s: beacons.perS,
        beacons_share: beacons.perS / beaconsAlone.perS,
        publication_lag_max_s: lag,
        acknowledged,
        stored,
        missing: Math.max(0, acknowledged - stored),
        non2xx: readsAlone.non2xx + reads.non2xx + beaconsAlone.non2xx + beacons.non2xx,
      };
      const met = (ok: boolean) => (ok ? "met" : "NOT MET");
      const cpu = (c: Record<string, number>) =>
        Object.entries(c)
          .map(([role, us]) => `${role} ${fmt(us)} µs`)
          .join(", ");
      console.log(
        [
          `  reads alone     ${fmt(readsAlone.perS).padStart(6)} req/s  p50 ${ms(readsAlone.p50)}  p95 ${ms(readsAlone.p95)}`,
          `                  CPU per read: ${cpu(readsAlone.cpuUs)}`,
          `  beacons alone   ${fmt(beaconsAlone.perS).padStart(6)} req/s  p99 ${beaconsAlone.p99} ms;  publication lag at most ${lag} s`,
          `                  CPU per beacon: ${cpu(beaconsAlone.cpuUs)}`,
          `  both at once    ${options.readsPerS ? `(reads paced at ${options.readsPerS}/s) ` : ""}reads ${fmt(reads.perS)} req/s  p50 ${ms(reads.p50)}  p95 ${ms(reads.p95)}  │  beacons ${fmt(beacons.perS)} req/s (${(100 * figures.beacons_share).toFixed(0)} % of alone)  p99 ${beacons.p99} ms`,
          `  check           ${fmt(acknowledged)} beacons acknowledged, ${fmt(stored)} stored, ${fmt(figures.missing)} missing; ${figures.non2xx} answers not 2xx`,
          `  targets         reads ≥ ${TARGET.readsPerS}/s: ${met(reads.perS >= TARGET.readsPerS)}; p95 ≤ ${TARGET.readsP95Ms} ms: ${met(reads.p95 <= TARGET.readsP95Ms)}; ` +
            `beacons ≥ ${100 * TARGET.beaconShare} %: ${met(figures.beacons_share >= TARGET.beaconShare)}; lag ≤ ${TARGET.lagS} s: ${met(lag <= TARGET.lagS)}`,
        ].join("\n"),
      );
      return figures;
    } finally {
      file.close();
      await stack.stop();
    }
  });
}

export async function run(): Promise<void> {
  const scales = benchScales("BENCH_MIXED_SCALES", "0,1000000,10000000");
  console.log(
    `${READERS} report readers (pages, timeseries, conversions over 7 days${FILTERED_READS ? ", under two filters" : ""}) beside ${BEACON_CONNECTIONS} beacon connections, ${DURATION_S} s per phase; only 2xx counted`,
  );
  const results: MixedFigures[] = [];
  for (const events of scales) results.push(await scale(events));
  const round = (n: number) =>
    Number.isFinite(n) ? (Math.abs(n) < 10 ? Math.round(n * 100) / 100 : Math.round(n * 10) / 10) : null;
  printJson({
    bench: "mixed",
    loads: results.map((r) => ({
      name: FILTERED_READS ? "mixed, filtered reads" : "mixed",
      ...Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round(v)])),
      stored_per_s: round(r.beacons_per_s),
    })),
  });
  const missing = results.reduce((n, r) => n + r.missing, 0);
  if (missing > 0) throw new Error(`${missing} acknowledged beacons are not in the database`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
