/**
 * Reports over a year of imported days (docs/reports.md, "Imported days"; docs/performance.md):
 * 365 days × 300 pages and 30 sources (Zipf-distributed, most of the long tail below k) written
 * with the importer's own writer into a scratch database with the project's migrations, then the
 * year's pages, source breakdown, timeseries and aggregate computed through the k-filter (the
 * report functions on a read-only handle, as the api worker calls them: no cache), p50/p95.
 *
 *   npm run bench imported
 *   BENCH_IMPORTED_PAGES=1000 npm run bench imported
 *
 * Target: each at p95 ≤ 150 ms (the collected reports' target at 1 M events, bench/reports.ts).
 */
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { join } from "node:path";
import { MIGRATIONS_FOLDER } from "../cli/database";
import { replaceDayStatements } from "../worker/domain/imports/days";
import type { ImportedCell, ImportedDay } from "../worker/domain/imports/model";
import { readOnly } from "../worker/lib/read-only";
import { aggregateReport } from "../worker/reports/aggregate";
import { breakdownReport } from "../worker/reports/breakdown";
import { IMPORTED_RULE } from "../worker/reports/imported/rule";
import { NOISE_KEY_SQL, noiseKeyOf } from "../worker/reports/noise";
import { pagesReport } from "../worker/reports/pages";
import type { ReportScope } from "../worker/reports/scope";
import { timeseriesReport } from "../worker/reports/timeseries";
import { addDays } from "../worker/reports/timezone";
import { percentile, printJson, timeCalls } from "./load";
import { inScratchFolder } from "./scratch";

const SITE = "site_bench_imported01";
const FIRST = "2025-01-01";
const DAYS = 365;
const PAGES = Number(process.env.BENCH_IMPORTED_PAGES ?? 300);
const SOURCES = 30;
const RUNS = 20;

/** A day's visitors of the i-th most visited of `n` values: Zipf, about 1,500 on the first. */
const zipf = (i: number, day: number) => Math.floor(1_500 / (i + 1) + ((day * 7 + i * 13) % 5));

function dayOf(day: number): ImportedDay {
  const cells: ImportedCell[] = [];
  for (let i = 0; i < PAGES; i++) {
    const visitors = zipf(i, day);
    if (visitors > 0) cells.push({ dimension: "page", value: `/page/${i}`, visitors, pageviews: visitors + (visitors >> 1) });
  }
  let sourced = 0;
  for (let i = 0; i < SOURCES; i++) {
    const visitors = zipf(i, day) >> 1;
    sourced += visitors;
    if (visitors > 0)
      cells.push({
        dimension: "source",
        value: i === 0 ? "Direct / None" : `source-${i}.example`,
        visitors,
        pageviews: visitors * 2,
      });
  }
  const visitors = sourced + 3;
  return {
    day: addDays(FIRST, day),
    totals: { visitors, pageviews: visitors * 2, visits: visitors + 10, bounces: visitors >> 1, visitDuration: visitors * 40 },
    cells,
  };
}

export async function run(): Promise<void> {
  await inScratchFolder("imported", async (dir) => {
    const client = createClient({ url: `file:${join(dir, "wren.db")}` });
    await client.execute("PRAGMA journal_mode = WAL");
    await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
    await client.execute({
      sql: "INSERT INTO sites (id, name, domain, allowlist, timezone) VALUES (?, 'bench', 'bench.example', '[\"bench.example\"]', 'UTC')",
      args: [SITE],
    });
    await client.execute({
      sql: "INSERT INTO imports (id, site_id, source, file_name, file_sha256, status, created_by) VALUES ('imp_bench', ?, 'plausible', 'bench.zip', ?, 'done', 'cli')",
      args: [SITE, "0".repeat(64)],
    });
    const writing = performance.now();
    for (let day = 0; day < DAYS; day += 30) {
      const batch = [];
      for (let d = day; d < Math.min(DAYS, day + 30); d++) batch.push(...replaceDayStatements(SITE, "imp_bench", dayOf(d)));
      await client.batch(batch, "write");
    }
    const cells = Number((await client.execute("SELECT count(*) AS n FROM imported_cells")).rows[0]!.n);
    console.log(`${DAYS} days, ${cells} imported cells written in ${((performance.now() - writing) / 1000).toFixed(1)} s`);

    const db = readOnly(client as never);
    const scope: ReportScope = {
      siteId: SITE,
      from: FIRST,
      to: addDays(FIRST, DAYS - 1),
      timeZone: "UTC",
      k: 5,
      noise: true,
      noiseKey: noiseKeyOf((await client.execute(NOISE_KEY_SQL)).rows[0] as Record<string, unknown> | undefined),
      imported: IMPORTED_RULE,
    };
    const cases: [string, () => Promise<unknown>][] = [
      ["pages, a year", () => pagesReport(db, scope)],
      ["breakdown by source, a year", () => breakdownReport(db, scope, "source")],
      ["timeseries, a year", () => timeseriesReport(db, scope, "day")],
      ["aggregate, a year", async () => aggregateReport(db, scope, await timeseriesReport(db, scope, "day"))],
    ];
    const results = [];
    console.log("report                          p50 ms   p95 ms");
    for (const [name, once] of cases) {
      await once(); // warm the page cache and the statement
      const times = await timeCalls(RUNS, once);
      const p50 = percentile(times, 0.5);
      const p95 = percentile(times, 0.95);
      console.log(`${name.padEnd(30)} ${p50.toFixed(1).padStart(7)} ${p95.toFixed(1).padStart(8)}`);
      results.push({ name, p50: Math.round(p50 * 10) / 10, p95: Math.round(p95 * 10) / 10 });
    }
    client.close();
    printJson({ bench: "imported", days: DAYS, pages: PAGES, sources: SOURCES, cells, results });
  });
}
