/**
 * Today's pages and sources (GET /api/v1/pages and /breakdown with period=today,
 * worker/reports/today.ts): what one reading costs, cold, on a site whose day so far is busy,
 * beside a second site of the same size so the index range has something to skip; and how far
 * the ranges are from the truth on the top rows. A reading is computed once per site, dimension
 * and closed hour (then kept in the isolate), so this is the cost each hour, not per request.
 *
 *   npm run bench today
 *   BENCH_TODAY_SCALES=10000,100000,1000000 npm run bench today   (events of the day so far)
 *
 * Target: p95 ≤ 1 s at 100,000 events so far today (a site of ~3 M events a month): paid once an
 * hour per site and dimension read.
 */
import { createClient } from "@libsql/client";
import Database from "libsql";
import { join } from "node:path";
import { applyMigrations, openDatabase } from "../cli/database";
import { loadSettings } from "../cli/settings";
import { readOnly } from "../worker/lib/read-only";
import { ReportCache } from "../worker/reports/cache";
import type { BandFigure } from "../worker/reports/figures";
import { NOISE_KEY_SQL, noiseKeyOf } from "../worker/reports/noise-position";
import { exactToday } from "../worker/reports/privacy";
import type { ReportScope } from "../worker/reports/scope";
import { todayBreakdownReport, todayPagesReport } from "../worker/reports/today";
import { percentile, printJson, timeCalls } from "./load";
import { benchScales, inScratchFolder } from "./scratch";

const SITE = "site_benchtoday00001";
const OTHER = "site_benchtoday00002";
const HOUR = 3_600_000;
const EVENTS_PER_SESSION = 4;
const READS = 20;
const K = 5;
const SOURCES = ["Direct / None", "Google", "DuckDuckGo", "news.example.com", "Hacker News", "GitHub", "Bing", "Reddit"];

/** A long tail: path i is viewed with weight 1 / (i + 1). */
function pickPath(random: () => number): string {
  const i = Math.floor(Math.exp(random() * Math.log(400))) - 1;
  return i === 0 ? "/" : `/docs/page-${i}`;
}

/** `events` pageviews of `events / 4` sessions over the day's first 23 hours, for both sites. */
function fill(file: string, events: number, dayStart: number): void {
  const db = new Database(file);
  db.exec("PRAGMA journal_mode = WAL");
  const event = db.prepare("INSERT INTO events (site_id, session_id, kind, path, ts, source) VALUES (?, ?, 'pageview', ?, ?, ?)");
  let seed = 11;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  db.exec("BEGIN");
  for (const site of [SITE, OTHER]) {
    db.prepare("INSERT INTO sites (id, name, domain, allowlist, timezone) VALUES (?, ?, ?, ?, 'UTC')").run(
      site,
      site,
      `${site}.example`,
      JSON.stringify([`${site}.example`]),
    );
    for (let s = 0; s < events / EVENTS_PER_SESSION; s++) {
      const start = dayStart + Math.floor(random() * 23 * HOUR);
      const id = `${site.slice(-2)}${s.toString(36)}${Math.floor(random() * 1e9).toString(36)}`;
      const source = SOURCES[Math.floor(random() ** 2 * SOURCES.length)]!;
      for (let e = 0; e < EVENTS_PER_SESSION; e++) event.run(site, id, pickPath(random), start + e * 60_000, source);
    }
  }
  db.exec("COMMIT");
  db.close();
}

async function timed(read: () => Promise<unknown>): Promise<{ median_ms: number; p95_ms: number }> {
  const times = await timeCalls(READS, read);
  return { median_ms: Math.round(percentile(times, 0.5) * 10) / 10, p95_ms: Math.round(percentile(times, 0.95) * 10) / 10 };
}

export async function run(): Promise<void> {
  const results: Record<string, unknown>[] = [];
  for (const events of benchScales("BENCH_TODAY_SCALES", "10000,100000,1000000")) {
    await inScratchFolder("today", async (dir) => {
      const migrated = await openDatabase(loadSettings({ ...process.env, WREN_DATA: dir }));
      await applyMigrations(migrated);
      migrated.$client.close();
      const dayStart = Date.parse("2026-11-26T00:00:00Z");
      fill(join(dir, "wren.db"), events, dayStart);
      const client = createClient({ url: `file:${join(dir, "wren.db")}` });
      const reader = readOnly(client as never);
      const noiseKey = noiseKeyOf((await client.execute(NOISE_KEY_SQL)).rows[0] as never);
      const scope: ReportScope = {
        siteId: SITE,
        from: "2026-11-26",
        to: "2026-11-26",
        timeZone: "UTC",
        k: K,
        noise: true,
        noiseKey,
        hours: { window: { fromMs: dayStart, toMs: dayStart + 23 * HOUR }, lastEndedDay: "2026-11-25" },
      };
      const pages = await timed(() => todayPagesReport(reader, scope, undefined, { cache: new ReportCache() }));
      const sources = await timed(() => todayBreakdownReport(reader, scope, "source", { cache: new ReportCache() }));
      // Accuracy: each top-10 page's range midpoint against its true visitors.
      const shown = await todayPagesReport(reader, scope, undefined, { cache: new ReportCache() });
      const truth = await todayPagesReport(reader, scope, undefined, { cache: new ReportCache(), rule: exactToday });
      const exactBy = new Map(truth.rows.map((r) => [r.path, r.visitors.value!]));
      const top = shown.rows.filter((r) => !r.other).slice(0, 10);
      const errors = top
        .map(
          (r) =>
            Math.abs((r.visitors.value! + (r.visitors as BandFigure).high) / 2 - exactBy.get(r.path)!) / exactBy.get(r.path)!,
        )
        .sort((a, b) => a - b);
      const ofK = truth.rows.filter((r) => !r.other).length;
      client.close();
      const row = {
        events,
        pages,
        sources,
        pages_shown: `${shown.rows.filter((r) => !r.other).length} of ${ofK} with ≥ k`,
        top10_midpoint_error_median_pct: Math.round(percentile(errors, 0.5) * 1000) / 10,
        top10_midpoint_error_max_pct: Math.round(errors[errors.length - 1]! * 1000) / 10,
      };
      console.log(
        `  ${events.toLocaleString("en")} events today so far: pages p50 ${pages.median_ms} ms / p95 ${pages.p95_ms} ms; sources p50 ${sources.median_ms} / p95 ${sources.p95_ms} ms; ` +
          `${row.pages_shown}; top-10 pages' range midpoints off by ${row.top10_midpoint_error_median_pct} % (median), ${row.top10_midpoint_error_max_pct} % (worst)`,
      );
      results.push(row);
    });
  }
  printJson({ bench: "today", results });
}
