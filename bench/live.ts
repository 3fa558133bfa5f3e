/**
 * The cost of the live counter (GET /api/v1/live, docs/reports.md "Live"): on one `wren start`
 * stack, beacons alone, then beacons while 20 dashboards sit on the Overview — each reading
 * /api/v1/live and /api/v1/overview every second, far more often than the dashboard does (once
 * a minute) — at an empty database, 100 k and 1 M events. The events lie over the last 24 hours,
 * so the 30-minute window holds about 1/48 of them (21 k at 1 M): a busy site. Then the live
 * query itself (reports/live.ts, a fresh cache each time, so every call queries) on the same
 * database file: p50 and p95. The box is shared, so the stack's CPU (workerd and the libSQL
 * server, from /proc) is measured too: per beacon, per dashboard read (live and Overview apart,
 * each alone), and the share of the box's cores the 20 dashboards take: what they can take from
 * beacons that fill the box, a figure other loads on the box move far less than throughput.
 *
 *   npm run bench live                         (0, 100 k and 1 M events; ~8 minutes)
 *   BENCH_LIVE_SCALES=0 npm run bench live     (knobs: BENCH_LIVE_DURATION seconds a phase, default 10)
 *
 * Target: beacons keep ≥ 90 % of their solo rate beside the 20 dashboards, judged on the CPU
 * figures (the measured share is printed beside them). The last line is one JSON object with the
 * figures.
 */
import { createClient } from "@libsql/client";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { applyMigrations, openDatabase } from "../cli/database";
import { loadSettings } from "../cli/settings";
import { startStack, waitForPublication, type Stack } from "../test/helpers/stack";
import { readOnly } from "../worker/lib/read-only";
import { ReportCache } from "../worker/reports/cache";
import { readLive } from "../worker/reports/live";
import { catchUp } from "../worker/reports/rollup";
import {
  autocannon,
  latencyHistogram,
  pageviewBeacons,
  percentile,
  printJson,
  processTree,
  timeCalls,
  type BeaconFigures,
} from "./load";
import { benchScales, inScratchFolder } from "./scratch";

const DURATION_S = Number(process.env.BENCH_LIVE_DURATION ?? 10);
/** Rounds of beacons alone, then beside the dashboards. */
const ROUNDS = 3;
const DASHBOARDS = 20;
const BEACON_CONNECTIONS = 10;
/** Timed calls of the live query per scale. */
const QUERY_RUNS = 60;
const SITE = "site_benchlive0000001";
const DOMAIN = "live.bench.example";
const TARGET_SHARE = 0.9;

interface LiveFigures {
  events: number;
  in_30m_window: number;
  beacons_alone_per_s: number;
  beacons_per_s: number;
  beacons_share: number;
  /** Each round's share; beacons_share is the median round's. */
  round_shares: number[];
  dashboard_reads_per_s: number;
  dashboard_reads_p95_ms: number;
  /** Stack CPU per request, µs. */
  cpu_per_beacon_us: number;
  cpu_per_live_read_us: number;
  cpu_per_overview_read_us: number;
  /** CPU the 20 dashboards use per second, over the box's cores: what they can take from ingest that saturates the box. */
  dashboards_cpu_share: number;
  /** 1 − dashboards_cpu_share: the beacons' share the CPU figures predict, whatever else runs on the box. */
  predicted_beacons_share: number;
  live_query_p50_ms: number;
  live_query_p95_ms: number;
  non2xx: number;
}

/** `events` pageviews of the site over the 24 hours before `now`, 1 to 4 per session (one SQL statement, in chunks). */
async function seed(file: ReturnType<typeof createClient>, events: number, now: number): Promise<void> {
  const chunk = 100_000;
  for (let done = 0; done < events; done += chunk) {
    const n = Math.min(chunk, events - done);
    await file.execute({
      sql:
        "WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x < ?1 - 1) " +
        "INSERT INTO events (site_id, session_id, kind, path, ts) " +
        "SELECT ?2, 's' || ((x + ?3) / 3), 'pageview', '/p/' || (x % 50), ?4 - ((x + ?3) * 86400000 / ?5) FROM i",
      args: [n, SITE, done, now - 1, events],
    });
  }
}

function beaconLoad(stack: Stack, seconds: number): Promise<BeaconFigures> {
  return pageviewBeacons(stack.url, { id: SITE, domain: DOMAIN }, BEACON_CONNECTIONS, seconds);
}

const READS = { live: `/api/v1/live?site=${SITE}`, overview: `/api/v1/overview?site=${SITE}` };

/** 20 dashboards, each reading the live counter and the Overview once a second (or only one of them, as often). */
async function dashboards(stack: Stack, key: string, seconds: number, paths: string[] = [READS.live, READS.overview]) {
  const latencies = latencyHistogram();
  const result = await autocannon({
    url: stack.url,
    connections: DASHBOARDS,
    duration: seconds,
    overallRate: DASHBOARDS * 2,
    histograms: { latencies },
    requests: paths.map((path) => ({
      method: "GET",
      path,
      headers: { authorization: `Bearer ${key}` },
    })),
  });
  const ok = Object.entries(result.statusCodeStats)
    .filter(([status]) => status.startsWith("2"))
    .reduce((sum, [, stat]) => sum + stat.count, 0);
  return {
    requests: ok,
    perS: ok / result.duration,
    p95: latencies.getValueAtPercentile(95),
    non2xx: result.non2xx + result.errors,
  };
}

/** CPU seconds the stack (every process under `wren start`) has used so far. */
const stackCpu = (stack: Stack) => processTree(stack.process.pid).reduce((sum, p) => sum + p.seconds, 0);

/** Runs `load`, returning its result with the stack's CPU seconds over it. */
async function measured<T>(stack: Stack, load: () => Promise<T>): Promise<T & { cpuS: number }> {
  const before = stackCpu(stack);
  const result = await load();
  return { ...result, cpuS: stackCpu(stack) - before };
}

async function scale(events: number): Promise<LiveFigures> {
  return inScratchFolder("live", async (dir) => {
    const migrated = await openDatabase(loadSettings({ ...process.env, WREN_DATA: dir }));
    await applyMigrations(migrated);
    migrated.$client.close();
    const file = createClient({ url: `file:${join(dir, "wren.db")}` });
    await file.execute({
      sql: "INSERT INTO sites (id, name, domain, allowlist) VALUES (?, 'Live bench', ?, ?)",
      args: [SITE, DOMAIN, JSON.stringify([DOMAIN])],
    });
    const now = Date.now();
    const started = performance.now();
    await seed(file, events, now);
    await catchUp(file as never);
    const window = Number(
      (
        await file.execute({
          sql: "SELECT count(*) AS n FROM events WHERE site_id = ? AND ts >= ?",
          args: [SITE, now - 30 * 60_000],
        })
      ).rows[0]!.n,
    );
    console.log(
      `\n${events.toLocaleString("en-US")} events over 24 hours (${window.toLocaleString("en-US")} in the last 30 minutes), written and folded in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );

    // The query alone, each call computing (a fresh cache), on the database file.
    const reader = readOnly(file as never);
    const live = () => readLive(reader, SITE, 5, { cache: new ReportCache() });
    for (let i = 0; i < 5; i++) await live(); // warm-up, not timed
    const times = await timeCalls(QUERY_RUNS, live);
    const query = { p50: percentile(times, 0.5), p95: percentile(times, 0.95) };

    const stack = await startStack({
      dataDir: dir,
      env: { WREN_RATE_LIMIT: "100000000/60", WREN_PUBLISH_INTERVAL: "10" },
      timeoutMs: 300_000,
    });
    try {
      const key = stack.adminKey;
      if (!key) throw new Error(`no admin key in the start output:\n${stack.output()}`);
      await waitForPublication(stack.url, Date.now() - 3_600_000, 120_000);
      await dashboards(stack, key, 2); // warm-up
      await beaconLoad(stack, 2);
      const liveAlone = await measured(stack, () => dashboards(stack, key, DURATION_S, [READS.live]));
      const overviewAlone = await measured(stack, () => dashboards(stack, key, DURATION_S, [READS.overview]));
      // Alone and beside the dashboards in turn, ROUNDS times: a shared box's other load drifts
      // over minutes, so each round's pair is compared, and the median round is taken.
      const rounds: {
        alone: Awaited<ReturnType<typeof beaconLoad>> & { cpuS: number };
        beacons: Awaited<ReturnType<typeof beaconLoad>>;
        reads: Awaited<ReturnType<typeof dashboards>>;
      }[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const aloneRound = await measured(stack, () => beaconLoad(stack, DURATION_S));
        const [readsRound, beaconsRound] = await Promise.all([dashboards(stack, key, DURATION_S), beaconLoad(stack, DURATION_S)]);
        rounds.push({ alone: aloneRound, beacons: beaconsRound, reads: readsRound });
      }
      const shares = rounds.map((r) => r.beacons.perS / r.alone.perS);
      const { alone, beacons, reads } = rounds[shares.indexOf([...shares].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!)]!;
      const perRequestUs = (r: { cpuS: number; requests: number }) => (1e6 * r.cpuS) / Math.max(1, r.requests);
      // 20 dashboards read each route once a second: their CPU per second, against the beacons'.
      const dashboardsCpuPerS = (DASHBOARDS * (perRequestUs(liveAlone) + perRequestUs(overviewAlone))) / 1e6;
      const figures: LiveFigures = {
        events,
        in_30m_window: window,
        beacons_alone_per_s: alone.perS,
        beacons_per_s: beacons.perS,
        beacons_share: beacons.perS / alone.perS,
        dashboard_reads_per_s: reads.perS,
        dashboard_reads_p95_ms: reads.p95,
        cpu_per_beacon_us: perRequestUs(alone),
        cpu_per_live_read_us: perRequestUs(liveAlone),
        cpu_per_overview_read_us: perRequestUs(overviewAlone),
        dashboards_cpu_share: dashboardsCpuPerS / availableParallelism(),
        predicted_beacons_share: 1 - dashboardsCpuPerS / availableParallelism(),
        live_query_p50_ms: query.p50,
        live_query_p95_ms: query.p95,
        round_shares: shares,
        non2xx: rounds.reduce((n, r) => n + r.alone.non2xx + r.beacons.non2xx + r.reads.non2xx, 0),
      };
      console.log(
        [
          `  live query      p50 ${query.p50.toFixed(1)} ms  p95 ${query.p95.toFixed(1)} ms (each call computing)`,
          `  beacons alone   ${alone.perS.toFixed(0)} req/s`,
          `  with dashboards ${beacons.perS.toFixed(0)} req/s (${(100 * figures.beacons_share).toFixed(0)} % of alone, the median of ${shares.map((x) => `${(100 * x).toFixed(0)} %`).join(", ")})`,
          `                  ${DASHBOARDS} dashboards: ${reads.perS.toFixed(0)} reads/s (live + overview), p95 ${reads.p95.toFixed(1)} ms; ${figures.non2xx} answers not 2xx`,
          `  stack CPU       per beacon ${figures.cpu_per_beacon_us.toFixed(0)} µs; per live read ${figures.cpu_per_live_read_us.toFixed(0)} µs, per Overview read ${figures.cpu_per_overview_read_us.toFixed(0)} µs (each alone)`,
          `                  the dashboards use ${(1000 * dashboardsCpuPerS).toFixed(0)} ms of CPU a second: ${(100 * figures.dashboards_cpu_share).toFixed(1)} % of ${availableParallelism()} cores, so beacons that fill the box keep ≥ ${(100 * figures.predicted_beacons_share).toFixed(0)} % (target ≥ ${100 * TARGET_SHARE} %: ${figures.predicted_beacons_share >= TARGET_SHARE ? "met" : "NOT MET"})`,
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
  const scales = benchScales("BENCH_LIVE_SCALES", "0,100000,1000000");
  console.log(
    `beacons (${BEACON_CONNECTIONS} connections) alone, then beside ${DASHBOARDS} dashboards reading /api/v1/live and /api/v1/overview every second; ${DURATION_S} s per phase, ${ROUNDS} rounds`,
  );
  const results: LiveFigures[] = [];
  for (const events of scales) results.push(await scale(events));
  const round = (n: number) => (Math.abs(n) < 10 ? Math.round(n * 100) / 100 : Math.round(n * 10) / 10);
  printJson({
    bench: "live",
    loads: results.map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Array.isArray(v) ? v.map(round) : round(v)])),
    ),
  });
  // Judged on the CPU figures: on a shared box the measured share swings between rounds (docs/performance.md).
  if (results.some((r) => r.predicted_beacons_share < TARGET_SHARE)) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
