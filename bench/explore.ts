/**
 * Filtered and unfiltered reports side by side (docs/reports.md "Filters"; issue 38's targets):
 * the bench traffic of bench/reports.ts (30 days, ~1,000 pages, sources, countries, goals,
 * vitals) at 1 M and 10 M events, folded by the real catch-up code, then each report timed
 * computed every time (cold: what a reader waits for after a fold) and through the real stack's
 * cache (`wren start` on the same data), plain and under one, two and three filters, and
 * `POST /api/v1/query`. The filter engine scans the period's per-session rows, so its cost grows
 * with the session-days of the period (printed), not with the number of cells.
 *
 *   npm run bench explore                        (1 M and 10 M; ~12 minutes on 2 cores)
 *   BENCH_EXPLORE_SCALES=1000000 npm run bench explore
 *
 * A quarter of the pageviews and events carry a custom property (`plan`: pro, free or team),
 * broken down and filtered by as `prop:plan` (issue 39) through the same engine.
 *
 * Targets: every filtered report p95 ≤ 150 ms at 1 M events and ≤ 500 ms at 10 M, computed;
 * ≤ 10 ms cached. The last line is one JSON object with the figures.
 */
import { createClient } from "@libsql/client";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../test/helpers/ports";
import { startStack } from "../test/helpers/stack";
import { readOnly, type ReadOnlyDatabase } from "../worker/lib/read-only";
import { breakdownReport } from "../worker/reports/breakdown";
import { conversionsReport } from "../worker/reports/conversions";
import { parseFilter, type Filter } from "../worker/reports/explore/filters";
import {
  filteredBreakdownReport,
  filteredConversionsReport,
  filteredFunnelReport,
  filteredPagesReport,
  filteredTimeseriesReport,
  filteredVitalsReport,
} from "../worker/reports/explore";
import { funnelReport } from "../worker/reports/funnels";
import { NOISE_KEY_SQL, noiseKeyOf } from "../worker/reports/noise";
import { pagesReport } from "../worker/reports/pages";
import { queryBody } from "../worker/reports/query/schema";
import { runQuery } from "../worker/reports/query/run";
import { catchUp } from "../worker/reports/rollup";
import type { ReportScope } from "../worker/reports/scope";
import { timeseriesReport } from "../worker/reports/timeseries";
import { vitalsReport } from "../worker/reports/vitals";
import { printJson } from "./load";
import { benchHistory, GOALS, SITE } from "./reports";
import { benchScales, inScratchFolder } from "./scratch";

const RUNS = 20;
const TARGET = { p95At1M: 150, p95At10M: 500, cachedMs: 10 };

const filters = (...texts: string[]): Filter[] =>
  texts.map((t) => {
    const f = parseFilter(t);
    if ("error" in f) throw new Error(f.error);
    return f;
  });
const ONE = filters("country:DE");
const TWO = filters("country:DE", "source!:Google");
const THREE = filters("country:DE", "source!:Google", "device:mobile");
const q = (list: Filter[]) =>
  list.map((f) => `&filter=${encodeURIComponent(`${f.dimension}${f.negated ? "!" : ""}:${f.value}`)}`).join("");

interface Case {
  name: string;
  path: string;
  compute: (db: ReadOnlyDatabase, scope: ReportScope) => Promise<unknown>;
}

const queryOf = (body: unknown) => queryBody.parse(body);

function cases(): Case[] {
  const p = `site=${SITE}&period=30d`;
  const list: Case[] = [
    { name: "pages", path: `/api/v1/pages?${p}&limit=100`, compute: (db, s) => pagesReport(db, s) },
    {
      name: "breakdown source",
      path: `/api/v1/breakdown?${p}&dimension=source`,
      compute: (db, s) => breakdownReport(db, s, "source"),
    },
    { name: "timeseries", path: `/api/v1/timeseries?${p}`, compute: (db, s) => timeseriesReport(db, s, "day") },
    { name: "conversions", path: `/api/v1/conversions?${p}`, compute: (db, s) => conversionsReport(db, s) },
    {
      name: "vitals",
      path: `/api/v1/vitals?${p}&limit=100`,
      compute: (db, s) => vitalsReport(db, s, {}, (rows) => rows.slice(0, 100)),
    },
    { name: "funnels", path: `/api/v1/funnels?${p}&goals=${GOALS.join(",")}`, compute: (db, s) => funnelReport(db, s, GOALS) },
  ];
  for (const [label, f] of [
    ["1 filter", ONE],
    ["2 filters", TWO],
    ["3 filters", THREE],
  ] as const) {
    list.push(
      { name: `pages, ${label}`, path: `/api/v1/pages?${p}&limit=100${q(f)}`, compute: (db, s) => filteredPagesReport(db, s, f) },
      {
        name: `breakdown, ${label}`,
        path: `/api/v1/breakdown?${p}&dimension=source${q(f)}`,
        compute: (db, s) => filteredBreakdownReport(db, s, f, "source"),
      },
      {
        name: `timeseries, ${label}`,
        path: `/api/v1/timeseries?${p}${q(f)}`,
        compute: (db, s) => filteredTimeseriesReport(db, s, f, "day"),
      },
      {
        name: `conversions, ${label}`,
        path: `/api/v1/conversions?${p}${q(f)}`,
        compute: (db, s) => filteredConversionsReport(db, s, f),
      },
      {
        name: `vitals, ${label}`,
        path: `/api/v1/vitals?${p}&limit=100${q(f)}`,
        compute: (db, s) => filteredVitalsReport(db, s, f),
      },
      {
        name: `funnels, ${label}`,
        path: `/api/v1/funnels?${p}&goals=${GOALS.join(",")}${q(f)}`,
        compute: (db, s) => filteredFunnelReport(db, s, f, GOALS),
      },
    );
  }
  // Custom properties (issue 39): a join like a page's, and a filter like a goal's.
  const PRO = filters("prop:plan:pro");
  list.push(
    {
      name: "breakdown prop:plan, filter",
      path: `/api/v1/breakdown?${p}&dimension=prop:plan`,
      compute: (db, s) => filteredBreakdownReport(db, s, [], "prop:plan"),
    },
    {
      name: "breakdown prop:plan, 1 filter",
      path: `/api/v1/breakdown?${p}&dimension=prop:plan${q(ONE)}`,
      compute: (db, s) => filteredBreakdownReport(db, s, ONE, "prop:plan"),
    },
    {
      name: "pages, prop filter",
      path: `/api/v1/pages?${p}&limit=100${q(PRO)}`,
      compute: (db, s) => filteredPagesReport(db, s, PRO),
    },
  );
  list.push({
    name: "query source × country",
    path: "",
    compute: (db, s) =>
      runQuery(
        db,
        s,
        queryOf({
          site_id: SITE,
          metrics: ["visitors", "pageviews", "bounce_rate"],
          date_range: "30d",
          dimensions: ["visit:source", "visit:country"],
          filters: [["is_not", "visit:device", ["desktop"]]],
        }),
      ),
  });
  return list;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;

async function time(runs: number, once: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  await once();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
}

async function scale(events: number) {
  return inScratchFolder("explore", async (dir) => {
    const { g, client } = await benchHistory(dir, events);
    await client.execute(
      "UPDATE events SET props = json_object('plan', CASE id % 3 WHEN 0 THEN 'pro' WHEN 1 THEN 'free' ELSE 'team' END) WHERE kind IN ('pageview', 'event') AND id % 4 = 0",
    );
    await catchUp(client as never);
    const sessionDays = Number((await client.execute("SELECT count(*) AS n FROM rollup_session_day")).rows[0]!.n);
    client.close();
    console.log(
      `\n${(events / 1e6).toFixed(1)} M events over ${g.from} … ${g.to}: ${sessionDays.toLocaleString("en")} session-days (what a filtered report scans)`,
    );
    const dbPort = await freePort();
    const stack = await startStack({
      dataDir: dir,
      env: { WREN_DB_PORT: String(dbPort), WREN_RATE_LIMIT: "1000000/60" },
      timeoutMs: 120_000,
    });
    const raw = createClient({
      url: `http://127.0.0.1:${dbPort}`,
      authToken: readFileSync(join(dir, "libsql.token"), "utf8").trim(),
    });
    const rows: {
      name: string;
      events: number;
      computed_p50_ms: number;
      computed_p95_ms: number;
      cached_p50_ms: number | null;
    }[] = [];
    try {
      const reader = readOnly(raw as never);
      const noiseKey = noiseKeyOf((await raw.execute(NOISE_KEY_SQL)).rows[0] as never);
      const scope: ReportScope = { siteId: SITE, from: g.from, to: g.to, timeZone: "UTC", k: 5, noise: true, noiseKey };
      console.log("report                          computed p50  computed p95 │ API (cached) p50");
      for (const c of cases()) {
        const computed = await time(RUNS, () => c.compute(reader, scope));
        let cached: number | null = null;
        if (c.path) {
          const call = async () => {
            const res = await fetch(`${stack.url}${c.path}`, { headers: { authorization: `Bearer ${stack.adminKey}` } }).catch(
              (error: unknown) => {
                throw new Error(`${c.path}: ${String(error)}\n${stack.output().slice(-3000)}`);
              },
            );
            if (res.status !== 200) throw new Error(`${c.path}: ${res.status} ${await res.text()}`);
            await res.arrayBuffer();
          };
          cached = (await time(RUNS, call)).p50;
        }
        rows.push({
          name: c.name,
          events,
          computed_p50_ms: round(computed.p50),
          computed_p95_ms: round(computed.p95),
          cached_p50_ms: cached === null ? null : round(cached),
        });
        console.log(
          `${c.name.padEnd(30)} ${fmt(computed.p50).padStart(12)}  ${fmt(computed.p95).padStart(12)} │ ${cached === null ? "—".padStart(16) : fmt(cached).padStart(16)}`,
        );
      }
    } finally {
      raw.close();
      await stack.stop();
    }
    const target = events >= 5_000_000 ? TARGET.p95At10M : TARGET.p95At1M;
    const filtered = rows.filter((r) => r.name.includes("filter") || r.name.startsWith("query"));
    const worst = Math.max(...filtered.map((r) => r.computed_p95_ms));
    const worstCached = Math.max(...filtered.flatMap((r) => (r.cached_p50_ms === null ? [] : [r.cached_p50_ms])));
    console.log(
      `targets: filtered p95 ≤ ${target} ms computed: ${worst <= target ? "met" : "NOT MET"} (worst ${worst} ms); ≤ ${TARGET.cachedMs} ms cached: ${worstCached <= TARGET.cachedMs ? "met" : "NOT MET"} (worst ${worstCached} ms)`,
    );
    return { events, session_days: sessionDays, rows };
  });
}

const round = (ms: number) => Math.round(ms * 10) / 10;
const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);

export async function run(): Promise<void> {
  const scales = benchScales("BENCH_EXPLORE_SCALES", "1000000,10000000");
  const results = [];
  for (const events of scales) results.push(await scale(events));
  printJson({ bench: "explore", scales: results });
}
