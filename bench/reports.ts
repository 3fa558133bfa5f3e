/**
 * Report latency at 1 M and 10 M events: 30 days of traffic on ~1,000 pages (Zipf-distributed,
 * with sessions, conversions on 3 goals and vitals) is written straight into a database file
 * with the libsql engine, folded into the rollups by the real catch-up code, and then every
 * report is timed through the real stack (`wren start` on that data folder: workerd, the api
 * worker, the embedded libSQL server) beside a raw-scan query of the same aggregates over the
 * raw tables, sent to the same libSQL server. Prints p50/p95 of each and the ratio.
 *
 *   npm run bench reports                       (1 M and 10 M; ~10 minutes on 2 cores)
 *   BENCH_REPORT_SCALES=200000 npm run bench reports
 *   BENCH_REPORT_SCALES=1000000 BENCH_REPORT_CASES=aggregate npm run bench reports   (some cases only)
 *
 * Targets: the 30-day pages report, the breakdowns and the filtered reports at p95 ≤ 150 ms (1 M)
 * and ≤ 500 ms (10 M), the aggregate (engagement figures) at p95 ≤ 150 ms (1 M); the Overview at p95 ≤ 100 ms (1 M and 10 M), timed from markers 3 and 14
 * days back. Compared reports (`compare=previous`, bench/compared.ts: 14 days against the 14
 * before) at p95 ≤ 150 ms computed and ≤ 10 ms cached (1 M).
 */
import { createClient, type Client } from "@libsql/client";
import Database from "libsql";
import { randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { applyMigrations, openDatabase } from "../cli/database";
import { loadSettings } from "../cli/settings";
import { freePort } from "../test/helpers/ports";
import { startStack } from "../test/helpers/stack";
import { readOnly, type ReadOnlyDatabase } from "../worker/lib/read-only";
import { aggregateReport } from "../worker/reports/aggregate";
import { breakdownReport } from "../worker/reports/breakdown";
import { conversionsReport } from "../worker/reports/conversions";
import { funnelReport } from "../worker/reports/funnels";
import { pagesReport } from "../worker/reports/pages";
import { overviewFigures, overviewWindows } from "../worker/reports/overview";
import { hourPeriod, lastClosedHourEnd, lastCompleteDay } from "../worker/reports/period";
import { NOISE_KEY_SQL, noiseKeyOf, type NoiseKey } from "../worker/reports/noise";
import type { ReportScope } from "../worker/reports/scope";
import { timeseriesReport } from "../worker/reports/timeseries";
import { vitalsReport } from "../worker/reports/vitals";
import { catchUp } from "../worker/reports/rollup";
import { addDays } from "../worker/reports/timezone";
import { benchScales, inScratchFolder } from "./scratch";
import { comparedCases } from "./compared";

export const SITE = "site_bench000000001";
export const GOALS = ["goal_bench_signup", "goal_bench_trial", "goal_bench_buy"];
/** Deployment markers the Overview is timed from: 3 and 14 days before the last day, at 10:20. */
const MARKERS = [
  { id: "dep_bench_3days", daysBack: 3 },
  { id: "dep_bench_14days", daysBack: 14 },
];
const markerAt = (to: string, daysBack: number) => Date.parse(`${addDays(to, -daysBack)}T10:20:00Z`);
const PAGES = 1_000;
const COUNTRIES = ["US", "DE", "GB", "FR", "IN", "BR", "JP", "CA", "NL", "ES", "IT", "PL", "SE", "AU", "MX", "KR", "CH", "AT", "BE", "DK"]
  .concat(["NO", "FI", "IE", "PT", "CZ", "TR", "AR", "CL", "CO", "ZA", "NG", "EG", "ID", "VN", "TH", "PH", "SG", "NZ", "IL", "UA"])
  .concat(["RO", "HU", "GR", "SK", "BG", "HR", "RS", "SI", "LT", "LV", "EE", "IS", "LU", "MT", "CY", "PK", "BD", "KE", "MA", "PE"]);
const SOURCES = ["Direct / None", "Google", "Bing", "DuckDuckGo", "Twitter", "LinkedIn", "Reddit", "Hacker News", "GitHub", "Facebook"].concat(
  Array.from({ length: 40 }, (_, i) => `blog-${i}.example`),
);
const BROWSERS = ["Chrome 131", "Safari 18", "Edge 131", "Firefox 133", "Chrome 130", "Samsung Internet 27", "Opera 114", "Firefox 132", "Safari 17", "Chrome 129"];
const SYSTEMS = ["Windows 10", "macOS", "iOS 18", "Android", "Windows 11", "Linux", "iOS 17", "Chrome OS", "Android 14", "macOS 14"];
const NO_DIMS = [null, null, null, null, null, null, null];
const DAYS = 30;
const EVENTS_PER_TRANSACTION = 100_000;
const REPORT_RUNS = 30;
const RAW_RUNS = 5;

/** Deterministic data: mulberry32. */
export function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Zipf(1) over n items (pages, sites): item i is drawn in proportion to 1 / (i + 1). */
export function zipf(random: () => number, n: number): () => number {
  const cdf: number[] = [];
  let total = 0;
  for (let i = 0; i < n; i++) cdf.push((total += 1 / (i + 1)));
  return () => {
    const r = random() * total;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** More traffic by day than by night (UTC hours; the alerts bench draws its sites' traffic from it too). */
export const HOUR_WEIGHTS = [1, 1, 1, 1, 1, 2, 3, 5, 7, 8, 8, 8, 8, 8, 8, 8, 8, 7, 7, 6, 5, 4, 3, 2];

const VITAL_SCALE: Record<string, number> = { LCP: 2000, INP: 150, CLS: 0.06, FCP: 1400, TTFB: 500 };

interface Generated {
  events: number;
  sessions: number;
  conversions: number;
  vitals: number;
  from: string;
  to: string;
}

/**
 * A scratch folder's database, migrated and filled with `events` of this bench's traffic, not yet
 * folded, with a big page cache for the first fold (it touches every units index). For the
 * benches that compute reports from the same traffic (noise, utility, nesting).
 */
export async function benchHistory(dir: string, events: number): Promise<{ g: Generated; client: Client }> {
  const migrated = await openDatabase(loadSettings({ ...process.env, WREN_DATA: dir }));
  await applyMigrations(migrated);
  migrated.$client.close();
  const g = generate(join(dir, "wren.db"), events);
  const client = createClient({ url: `file:${join(dir, "wren.db")}` });
  await client.execute("PRAGMA cache_size = -524288");
  return { g, client };
}

/** Writes `target` events (and their sessions' conversions and vitals) into the file. */
export function generate(file: string, target: number): Generated {
  const random = prng(42);
  const page = zipf(random, PAGES);
  const hourCdf: number[] = [];
  HOUR_WEIGHTS.reduce((sum, w) => (hourCdf.push(sum + w), sum + w), 0);
  const pickHour = () => {
    const r = random() * hourCdf[hourCdf.length - 1]!;
    return hourCdf.findIndex((c) => c >= r);
  };
  const to = lastCompleteDay("UTC", Date.now());
  const from = addDays(to, -(DAYS - 1));
  const firstDay = Date.parse(`${from}T00:00:00Z`);

  const db = new Database(file);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = OFF");
  // Bulk load: the raw tables' indexes are built once at the end (as a restore would), not row by row.
  const indexes = db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('events', 'vitals', 'conversions')",
    )
    .all([]) as { name: string; sql: string }[];
  for (const index of indexes) db.exec(`DROP INDEX ${index.name}`);
  db.prepare("INSERT INTO sites (id, name, domain, allowlist) VALUES (?, 'Bench', 'bench.example', '[\"bench.example\"]')").run([
    SITE,
  ]);
  for (const g of GOALS)
    db.prepare("INSERT INTO goals (id, site_id, name, kind, match) VALUES (?, ?, ?, 'event', ?)").run([g, SITE, g, g]);
  for (const m of MARKERS)
    db.prepare("INSERT INTO deployments (id, site_id, version, external_id, ts) VALUES (?, ?, ?, ?, ?)").run([m.id, SITE, m.id, m.id, markerAt(to, m.daysBack)]);
  const insertEvent = db.prepare(
    "INSERT INTO events (site_id, session_id, kind, path, ts, source, utm_source, utm_campaign, browser, os, device, country) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  // Each session's dimensions, as the collector derives them: Zipf over a few dozen values each.
  const pick = <T>(values: readonly T[]) => {
    const index = zipf(random, values.length);
    return () => values[index()]!;
  };
  const country = pick(COUNTRIES);
  const source = pick(SOURCES);
  const browser = pick(BROWSERS);
  const os = pick(SYSTEMS);
  const device = pick(["desktop", "mobile", "tablet"]);
  const campaign = pick(Array.from({ length: 20 }, (_, i) => `campaign-${i}`));
  const insertConversion = db.prepare(
    "INSERT INTO conversions (site_id, goal_id, session_id, source, ts) VALUES (?, ?, ?, 's2s', ?)",
  );
  const insertVital = db.prepare("INSERT INTO vitals (site_id, session_id, path, metric, value, ts) VALUES (?, ?, ?, ?, ?, ?)");
  const metrics = Object.keys(VITAL_SCALE);

  const g: Generated = { events: 0, sessions: 0, conversions: 0, vitals: 0, from, to };
  // Sessions in time order, day by day, until each day has its share of the events: the raw
  // tables grow the way they do in production.
  const MEAN_EVENTS_PER_SESSION = 3.5;
  db.exec("BEGIN");
  let inTransaction = 0;
  for (let day = 0; day < DAYS; day++) {
    const dayEnd = Math.round((target * (day + 1)) / DAYS);
    const starts: number[] = [];
    for (let i = 0; i < ((dayEnd - g.events) / MEAN_EVENTS_PER_SESSION) * 1.3; i++) {
      starts.push(firstDay + day * 86_400_000 + pickHour() * 3_600_000 + Math.floor(random() * 3_600_000));
    }
    starts.sort((a, b) => a - b);
    for (const start of starts) {
      if (g.events >= dayEnd) break;
      const session = randomBytes(16).toString("base64url");
      g.sessions++;
      const views = 1 + Math.floor(-Math.log(1 - random()) * 3);
      const tagged = random() < 0.1;
      const dims = [source(), tagged ? "newsletter" : null, tagged ? campaign() : null, browser(), os(), device(), random() < 0.03 ? null : country()];
      let ts = start;
      for (let v = 0; v < views && g.events < dayEnd; v++) {
        const path = `/p/${page()}`;
        const kind = random() < 0.85 ? "pageview" : random() < 0.7 ? "engagement" : "event";
        insertEvent.run([SITE, session, kind, path, ts, ...(kind === "pageview" ? dims : NO_DIMS)]);
        g.events++;
        if (kind === "pageview" && random() < 0.2) {
          const metric = metrics[Math.floor(random() * metrics.length)]!;
          insertVital.run([SITE, session, path, metric, VITAL_SCALE[metric]! * Math.exp((random() - 0.4) * 1.6), ts]);
          g.vitals++;
        }
        ts += 20_000 + Math.floor(random() * 240_000);
      }
      // A funnel: 6 % sign up, half of them start a trial, a third of those buy; 0.5 % convert without a session.
      if (random() < 0.06) {
        insertConversion.run([SITE, GOALS[0]!, session, ts]);
        g.conversions++;
        if (random() < 0.5) {
          insertConversion.run([SITE, GOALS[1]!, session, ts + 60_000]);
          g.conversions++;
          if (random() < 0.33) {
            insertConversion.run([SITE, GOALS[2]!, session, ts + 120_000]);
            g.conversions++;
          }
        }
      }
      if (random() < 0.005) {
        insertConversion.run([SITE, GOALS[2]!, null, ts]);
        g.conversions++;
      }
      if (++inTransaction >= EVENTS_PER_TRANSACTION / MEAN_EVENTS_PER_SESSION) {
        db.exec("COMMIT");
        db.exec("BEGIN");
        inTransaction = 0;
      }
    }
  }
  db.exec("COMMIT");
  for (const index of indexes) db.exec(index.sql);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  return g;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

async function timeRuns(runs: number, once: () => Promise<void>): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95) };
}

interface Case {
  name: string;
  path: string;
  raw: string[];
  /** The report computed directly (no cache): what a reader waits for after each fold. */
  compute: (db: ReadOnlyDatabase) => Promise<unknown>;
}

function cases(g: Generated, noiseKey: NoiseKey): Case[] {
  const lo = Date.parse(`${g.from}T00:00:00Z`);
  const hi = Date.parse(`${addDays(g.to, 1)}T00:00:00Z`);
  const lastDay = Date.parse(`${g.to}T00:00:00Z`);
  const range = `site_id = '${SITE}' AND ts >= ${lo} AND ts < ${hi}`;
  const scope = (from: string): ReportScope => ({ siteId: SITE, from, to: g.to, timeZone: "UTC", k: 5, noise: true, noiseKey });
  const month = scope(g.from);
  return [
    {
      name: "pages 30d",
      path: `/api/v1/pages?site=${SITE}&period=30d&limit=100`,
      compute: (db) => pagesReport(db, month),
      raw: [
        `SELECT path, sum(v) AS visitors, sum(pv) AS pageviews FROM (SELECT path, date(ts / 1000, 'unixepoch') AS day, count(DISTINCT session_id) AS v, count(*) AS pv ` +
          `FROM events WHERE ${range} AND kind = 'pageview' GROUP BY path, day) GROUP BY path ORDER BY visitors DESC LIMIT 100`,
      ],
    },
    {
      name: "pages 7d",
      path: `/api/v1/pages?site=${SITE}&period=7d&limit=100`,
      compute: (db) => pagesReport(db, scope(addDays(g.to, -6))),
      raw: [
        `SELECT path, sum(v) AS visitors, sum(pv) AS pageviews FROM (SELECT path, date(ts / 1000, 'unixepoch') AS day, count(DISTINCT session_id) AS v, count(*) AS pv ` +
          `FROM events WHERE site_id = '${SITE}' AND ts >= ${lastDay - 6 * 86_400_000} AND ts < ${hi} AND kind = 'pageview' GROUP BY path, day) GROUP BY path ORDER BY visitors DESC LIMIT 100`,
      ],
    },
    {
      name: "vitals 30d",
      path: `/api/v1/vitals?site=${SITE}&period=30d&limit=100`,
      compute: (db) => vitalsReport(db, month, {}, (rows) => rows.slice(0, 100)),
      raw: [
        `SELECT path, metric, count(*) AS samples, count(DISTINCT session_id) AS sessions, sum(value <= 2500) AS good FROM vitals WHERE ${range} GROUP BY path, metric ORDER BY samples DESC LIMIT 100`,
      ],
    },
    {
      name: "conversions 30d",
      path: `/api/v1/conversions?site=${SITE}&period=30d`,
      compute: (db) => conversionsReport(db, month),
      raw: [
        `SELECT goal_id, count(*), count(DISTINCT session_id) FROM conversions WHERE ${range} GROUP BY goal_id`,
        `SELECT count(*) FROM (SELECT DISTINCT date(ts / 1000, 'unixepoch'), session_id FROM events WHERE ${range})`,
      ],
    },
    {
      name: "funnels 30d (3 steps)",
      path: `/api/v1/funnels?site=${SITE}&period=30d&goals=${GOALS.join(",")}`,
      compute: (db) => funnelReport(db, month, GOALS),
      raw: [
        `SELECT count(f1), sum(f2 >= f1), sum(f2 >= f1 AND f3 >= f2) FROM (SELECT session_id, min(CASE WHEN goal_id = '${GOALS[0]}' THEN ts END) AS f1, ` +
          `min(CASE WHEN goal_id = '${GOALS[1]}' THEN ts END) AS f2, min(CASE WHEN goal_id = '${GOALS[2]}' THEN ts END) AS f3 FROM conversions WHERE ${range} AND session_id IS NOT NULL GROUP BY session_id)`,
      ],
    },
    {
      name: "timeseries 30d daily",
      path: `/api/v1/timeseries?site=${SITE}&period=30d`,
      compute: (db) => timeseriesReport(db, month, "day"),
      raw: [
        `SELECT date(ts / 1000, 'unixepoch') AS day, count(DISTINCT session_id), sum(kind = 'pageview') FROM events WHERE ${range} GROUP BY day`,
      ],
    },
    ...MARKERS.map(
      (m): Case => ({
        name: `overview (${m.daysBack} days back)`,
        path: `/api/v1/overview?site=${SITE}&deployment=${m.id}`,
        compute: (db) => {
          const closed = lastClosedHourEnd("UTC", Date.now());
          return overviewFigures(db, scope(g.from), overviewWindows("UTC", markerAt(g.to, m.daysBack), closed), lastCompleteDay("UTC", closed));
        },
        raw: [
          `SELECT count(DISTINCT session_id), sum(kind = 'pageview') FROM events WHERE site_id = '${SITE}' AND ts >= ${markerAt(g.to, m.daysBack)}`,
          `SELECT goal_id, count(*), count(DISTINCT session_id) FROM conversions WHERE site_id = '${SITE}' AND ts >= ${markerAt(g.to, m.daysBack)} GROUP BY goal_id`,
        ],
      }),
    ),
    {
      name: "breakdown source 30d",
      path: `/api/v1/breakdown?site=${SITE}&period=30d&dimension=source`,
      compute: (db) => breakdownReport(db, month, "source"),
      raw: [
        `SELECT source, sum(v) FROM (SELECT day, source, count(*) AS v FROM (SELECT session_id, date(ts / 1000, 'unixepoch') AS day, source, min(id) FROM events ` +
          `WHERE ${range} AND kind = 'pageview' GROUP BY session_id, day)) GROUP BY source`,
      ],
    },
    {
      name: "breakdown country+goal",
      path: `/api/v1/breakdown?site=${SITE}&period=30d&dimension=country&goal=${GOALS[0]}`,
      compute: (db) => breakdownReport(db, month, "country", GOALS[0]),
      raw: [
        `SELECT country, sum(v) FROM (SELECT day, country, count(*) AS v FROM (SELECT session_id, date(ts / 1000, 'unixepoch') AS day, country, min(id) FROM events ` +
          `WHERE ${range} AND kind = 'pageview' GROUP BY session_id, day)) GROUP BY country`,
      ],
    },
    {
      name: "breakdown entry_page",
      path: `/api/v1/breakdown?site=${SITE}&period=30d&dimension=entry_page`,
      compute: (db) => breakdownReport(db, month, "entry_page"),
      raw: [
        `SELECT path, sum(v) FROM (SELECT day, path, count(*) AS v FROM (SELECT session_id, date(ts / 1000, 'unixepoch') AS day, path, min(id) FROM events ` +
          `WHERE ${range} AND kind = 'pageview' GROUP BY session_id, day)) GROUP BY path`,
      ],
    },
    {
      name: "timeseries filtered",
      path: `/api/v1/timeseries?site=${SITE}&period=30d&filter=country:DE`,
      compute: (db) => timeseriesReport(db, month, "day", undefined, { dimension: "country", value: "DE" }),
      raw: [
        `SELECT day, count(*) FROM (SELECT session_id, date(ts / 1000, 'unixepoch') AS day, country, min(id) FROM events ` +
          `WHERE ${range} AND kind = 'pageview' GROUP BY session_id, day) WHERE country = 'DE' GROUP BY day`,
      ],
    },
    {
      name: "conversions filtered",
      path: `/api/v1/conversions?site=${SITE}&period=30d&filter=source:Google`,
      compute: (db) => conversionsReport(db, month, { dimension: "source", value: "Google" }),
      raw: [
        `SELECT c.goal_id, count(*) FROM conversions c JOIN (SELECT session_id, source, min(id) FROM events WHERE ${range} AND kind = 'pageview' GROUP BY session_id) e ` +
          `ON e.session_id = c.session_id WHERE c.site_id = '${SITE}' AND c.ts >= ${lo} AND c.ts < ${hi} AND e.source = 'Google' GROUP BY c.goal_id`,
      ],
    },
    {
      name: "conversions 24h",
      path: `/api/v1/conversions?site=${SITE}&period=24h`,
      compute: (db) => {
        const period = hourPeriod("24h", "UTC", Date.now());
        return conversionsReport(db, { ...scope(period.from), to: period.to, hours: period.hours });
      },
      raw: [`SELECT goal_id, count(*), count(DISTINCT session_id) FROM conversions WHERE site_id = '${SITE}' AND ts >= ${Date.now() - 86_400_000} GROUP BY goal_id`],
    },
    {
      name: "aggregate 30d",
      path: `/api/v1/aggregate?site=${SITE}&period=30d`,
      // Cold: the timeseries' totals it reuses and the engagement figures over the month's session-days.
      compute: async (db) => aggregateReport(db, month, await timeseriesReport(db, month, "day")),
      raw: [
        `SELECT count(*), sum(n = 1), sum(n), avg(span) FROM (SELECT session_id, date(ts / 1000, 'unixepoch') AS day, count(*) AS n, max(ts) - min(ts) AS span ` +
          `FROM events WHERE ${range} AND kind = 'pageview' GROUP BY session_id, day)`,
      ],
    },
    {
      name: "timeseries 1d hourly",
      path: `/api/v1/timeseries?site=${SITE}&period=day&interval=hour`,
      compute: (db) => timeseriesReport(db, scope(g.to), "hour"),
      raw: [
        `SELECT ts / 3600000 AS hour, count(DISTINCT session_id), sum(kind = 'pageview') FROM events WHERE site_id = '${SITE}' AND ts >= ${lastDay} AND ts < ${hi} GROUP BY hour`,
      ],
    },
    ...comparedCases(SITE, GOALS, g.to, scope),
  ];
}

const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);

async function scale(events: number): Promise<void> {
  return inScratchFolder("reports", async (dir) => {
    const settings = loadSettings({ ...process.env, WREN_DATA: dir });
    const migrated = await openDatabase(settings);
    await applyMigrations(migrated);
    migrated.$client.close();

    let started = performance.now();
    const g = generate(join(dir, "wren.db"), events);
    const generatedIn = (performance.now() - started) / 1000;
    console.log(
      `\n${(events / 1e6).toFixed(1)} M events (${g.sessions.toLocaleString("en")} sessions, ${g.conversions.toLocaleString("en")} conversions, ` +
        `${g.vitals.toLocaleString("en")} vitals) over ${g.from} … ${g.to} on ${PAGES} pages: written in ${generatedIn.toFixed(1)} s`,
    );

    const client = createClient({ url: `file:${join(dir, "wren.db")}` });
    // The first fold of a large history touches every units index: give it a big page cache.
    await client.execute("PRAGMA cache_size = -524288");
    started = performance.now();
    const folded = await catchUp(client as never);
    const foldSeconds = (performance.now() - started) / 1000;
    client.close();
    const size = statSync(join(dir, "wren.db")).size / 2 ** 20;
    console.log(
      `rollup catch-up: ${folded.toLocaleString("en")} raw rows in ${foldSeconds.toFixed(1)} s (${Math.round(folded / foldSeconds).toLocaleString("en")} rows/s); database ${size.toFixed(0)} MiB`,
    );

    const dbPort = await freePort();
    const stack = await startStack({
      dataDir: dir,
      env: { WREN_DB_PORT: String(dbPort), WREN_RATE_LIMIT: "1000000/60" },
      timeoutMs: 120_000,
    });
    const raw = createClient({ url: `http://127.0.0.1:${dbPort}`, authToken: readFileSync(join(dir, "libsql.token"), "utf8").trim() });
    try {
      const key = stack.adminKey;
      if (!key) throw new Error(`no admin key in the start output:\n${stack.output()}`);
      console.log(
        `\n${REPORT_RUNS} runs per report (after 3 warm-ups), ${events >= 5_000_000 ? "1 run" : `${RAW_RUNS} runs`} per raw scan; ratio = raw p50 / report p50`,
      );
      console.log(
        "report                  computed p50  computed p95 │ API (cached) p50 │  raw p50      raw p95   │ raw/computed (p50)",
      );
      const reader = readOnly(raw as never);
      const noiseKey = noiseKeyOf((await raw.execute(NOISE_KEY_SQL)).rows[0] as never);
      // BENCH_REPORT_CASES=aggregate,pages: only the cases whose names contain one of these.
      const only = (process.env.BENCH_REPORT_CASES ?? "").split(",").filter((x) => x !== "");
      for (const c of cases(g, noiseKey).filter((c) => only.length === 0 || only.some((x) => c.name.includes(x)))) {
        const call = async () => {
          const res = await fetch(`${stack.url}${c.path}`, { headers: { authorization: `Bearer ${key}` } });
          if (res.status !== 200) throw new Error(`${c.path}: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
        };
        for (let i = 0; i < 3; i++) await call();
        const cached = await timeRuns(REPORT_RUNS, call);
        // Computed every time, as after each fold: the report modules over the same libSQL server.
        await c.compute(reader);
        const report = await timeRuns(REPORT_RUNS, async () => void (await c.compute(reader)));
        const scan = async () => {
          await raw.batch(c.raw, "read");
        };
        // Raw scans of 10 M rows take seconds each: one run there, after no warm-up.
        const large = events >= 5_000_000;
        if (!large) await scan();
        const rawTimes = await timeRuns(large ? 1 : RAW_RUNS, scan);
        console.log(
          `${c.name.padEnd(22)} ${fmt(report.p50).padStart(12)}  ${fmt(report.p95).padStart(12)} │ ${fmt(cached.p50).padStart(16)} │ ${fmt(rawTimes.p50).padStart(9)}   ${fmt(rawTimes.p95).padStart(9)}   │ ${(rawTimes.p50 / report.p50).toFixed(0).padStart(6)}×`,
        );
        // The compared reports' cached target is a p95 (bench/compared.ts).
        if (c.name.includes("14d")) console.log(`${"".padEnd(22)} └ API (cached) p95 ${fmt(cached.p95)}`);
      }
    } finally {
      raw.close();
      await stack.stop();
    }
  });
}

export async function run(): Promise<void> {
  const scales = benchScales("BENCH_REPORT_SCALES", "1000000,10000000");
  for (const events of scales) await scale(events);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
