/**
 * Running an import (worker/domain/imports/run.ts) against a real libSQL database: the same
 * file twice changes no row, a run stopped after its first batch resumes to the tables a clean
 * run leaves, days with collected data (or too recent) are refused, a later import of a day
 * replaces the earlier one's, and removing an import removes the days it still owns.
 */
import { strToU8, zipSync } from "fflate";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ImportedDay } from "../../worker/domain/imports/model";
import {
  batchesOf,
  CELLS_PER_BATCH,
  listImports,
  MAX_CELLS_PER_DAY,
  removeImport,
  runImport,
  TOO_MANY_CELLS,
  type RunImportInput,
} from "../../worker/domain/imports/run";
import { insertSite } from "../../worker/domain/sites";
import { FIXTURES_DIR, GOATCOUNTER_CSV, PLAUSIBLE_ZIP, UMAMI_CSV } from "../fixtures/imports/generate";
import { openDomainDb, type DomainDb } from "./helpers";

let d: DomainDb;
beforeAll(async () => {
  d = await openDomainDb();
}, 60_000);
afterAll(() => d?.close());

const fixture = (name: string) => new Uint8Array(readFileSync(join(FIXTURES_DIR, name)));
/** Well after the fixtures' days (March 2025): none is too recent. */
const LATER = Date.parse("2025-04-01T12:00:00Z");
const VISITORS = "imported_visitors_20250301_20250303.csv";

let siteCounter = 0;
async function newSite(timezone = "Europe/Berlin"): Promise<string> {
  const n = ++siteCounter;
  return (await insertSite(d.db, { name: `Site ${n}`, domain: `site${n}.example.com`, timezone, createdByKey: null })).site.id;
}

function input(
  siteId: string,
  source: RunImportInput["source"],
  fileName: string,
  bytes: Uint8Array,
  extra: Partial<RunImportInput> = {},
): RunImportInput {
  return { siteId, source, fileName, bytes, createdBy: "cli", now: () => LATER, ...extra };
}

/** Every imported row of a site, without the columns that name the site or import (to compare two sites). */
async function tables(siteId: string) {
  const days = await d.client.execute({
    sql: "SELECT day, visitors, pageviews, visits, bounces, visit_duration FROM imported_days WHERE site_id = ? ORDER BY day",
    args: [siteId],
  });
  const cells = await d.client.execute({
    sql: "SELECT day, dimension, value, visitors, pageviews FROM imported_cells WHERE site_id = ? ORDER BY day, dimension, value",
    args: [siteId],
  });
  return { days: days.rows.map((r) => ({ ...r })), cells: cells.rows.map((r) => ({ ...r })) };
}

/** Every row of the three tables for a site, as stored (key sums and import ids too). */
async function rawRows(siteId: string) {
  const out: Record<string, unknown[]> = {};
  for (const table of ["imports", "imported_days", "imported_cells"]) {
    const rs = await d.client.execute({ sql: `SELECT * FROM ${table} WHERE site_id = ? ORDER BY 1, 2, 3, 4`, args: [siteId] });
    out[table] = rs.rows.map((r) => ({ ...r }));
  }
  return out;
}

describe("runImport", () => {
  it("writes a Plausible export's days and cells, and says what it left out", async () => {
    const site = await newSite();
    const progress: unknown[] = [];
    const summary = await runImport(
      d.client,
      input(site, "plausible", "plausible.zip", fixture(PLAUSIBLE_ZIP), { onProgress: (p) => void progress.push(p) }),
    );
    expect(summary).toMatchObject({
      siteId: site,
      source: "plausible",
      fileName: "plausible.zip",
      status: "done",
      unchanged: false,
      resumed: false,
      rowsRead: 71,
      rowsRefused: 2,
      daysImported: 3,
      firstDay: "2025-03-01",
      lastDay: "2025-03-03",
      refusals: {
        counts: { "custom events are not imported": 2 },
        examples: [
          { file: "imported_custom_events_20250301_20250303.csv", line: 2, reason: "custom events are not imported" },
          { file: "imported_custom_events_20250301_20250303.csv", line: 3, reason: "custom events are not imported" },
        ],
      },
      createdBy: "cli",
      createdAt: LATER,
      finishedAt: LATER,
    });
    expect(summary.id).toMatch(/^imp_[A-Za-z0-9_-]{16}$/);
    expect(progress).toEqual([{ daysWritten: 3, daysTotal: 3 }]);
    const written = await tables(site);
    expect(written.days).toEqual([
      { day: "2025-03-01", visitors: 41, pageviews: 97, visits: 48, bounces: 18, visit_duration: 5230 },
      { day: "2025-03-02", visitors: 37, pageviews: 80, visits: 42, bounces: 15, visit_duration: 4410 },
      { day: "2025-03-03", visitors: 52, pageviews: 121, visits: 60, bounces: 22, visit_duration: 7315 },
    ]);
    // 29 + 21 + 18 cells (imports-formats.test.ts lists them); the 3-visitor page among them, as the export gave it.
    expect(written.cells).toHaveLength(68);
    expect(written.cells).toContainEqual({
      day: "2025-03-01",
      dimension: "page",
      value: "/blog/hello",
      visitors: 3,
      pageviews: 22,
    });
    // Every row carries its noise key, and no session id or unit.
    const keys = await d.client.execute({
      sql: "SELECT count(*) AS n FROM imported_cells WHERE site_id = ? AND key_sum BETWEEN 0 AND 65535",
      args: [site],
    });
    expect(Number(keys.rows[0]!.n)).toBe(68);
  });

  it("is idempotent: the same file again writes nothing and says so", async () => {
    const site = await newSite();
    const first = await runImport(d.client, input(site, "umami", "umami.csv", fixture(UMAMI_CSV)));
    const before = await rawRows(site);
    const again = await runImport(
      d.client,
      input(site, "umami", "renamed.csv", fixture(UMAMI_CSV), { now: () => LATER + 60_000 }),
    );
    expect(again).toEqual({ ...first, unchanged: true });
    expect(await rawRows(site)).toEqual(before);
    expect(before.imported_days).toHaveLength(3);
  });

  it("resumes after a crash: a run stopped after its first batch, run again, leaves what a clean run leaves", async () => {
    // 60 days: two batches of 50 and 10.
    const days = Array.from({ length: 60 }, (_, i) => new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10));
    const zip = zipSync({
      "imported_visitors_20250101_20250301.csv": strToU8(
        "date,visitors,pageviews,bounces,visits,visit_duration\n" +
          days.map((day, i) => `${day},${10 + i},${20 + i},1,${11 + i},60`).join("\n") +
          "\n",
      ),
      "imported_pages_20250101_20250301.csv": strToU8(
        "date,hostname,page,visits,visitors,pageviews\n" +
          days.map((day, i) => `${day},example.com,/p${i % 7},1,${5 + i},${9 + i}`).join("\n") +
          "\n",
      ),
    });
    const crashed = await newSite();
    let calls = 0;
    const crash = () => {
      calls++;
      throw new Error("the process died");
    };
    await expect(runImport(d.client, input(crashed, "plausible", "big.zip", zip, { onProgress: crash }))).rejects.toThrow(
      "the process died",
    );
    expect(calls).toBe(1);
    const [stopped] = await listImports(d.client, crashed);
    expect(stopped).toMatchObject({ status: "running", daysImported: 50, finishedAt: null });
    const resumeAfter = await d.client.execute({ sql: "SELECT resume_after FROM imports WHERE id = ?", args: [stopped!.id] });
    expect(resumeAfter.rows[0]!.resume_after).toBe("2025-02-19");
    expect(await d.count("imported_days", { column: "site_id", value: crashed })).toBe(50);

    const progress: unknown[] = [];
    const resumed = await runImport(
      d.client,
      input(crashed, "plausible", "big.zip", zip, { onProgress: (p) => void progress.push(p) }),
    );
    expect(resumed).toMatchObject({
      id: stopped!.id,
      status: "done",
      resumed: true,
      daysImported: 60,
      firstDay: "2025-01-01",
      lastDay: "2025-03-01",
    });
    expect(progress).toEqual([{ daysWritten: 60, daysTotal: 60 }]);

    const clean = await newSite();
    expect((await runImport(d.client, input(clean, "plausible", "big.zip", zip))).daysImported).toBe(60);
    const resumedTables = await tables(crashed);
    expect(resumedTables).toEqual(await tables(clean));
    expect(resumedTables.days).toHaveLength(60);
    expect(resumedTables.cells).toHaveLength(60);
  });

  it("refuses the days from the site's first collected day on, and yesterday and today", async () => {
    const site = await newSite();
    // The rollup's first day is 3 March; a raw event (not yet rolled up) on 2 March, 00:30 in Berlin.
    await d.client.execute({
      sql: "INSERT INTO rollup_site_day (site_id, day, visitors, pageviews) VALUES (?, '2025-03-03', 1, 1)",
      args: [site],
    });
    await d.client.execute({
      sql: "INSERT INTO events (site_id, kind, path, ts) VALUES (?, 'pageview', '/', ?)",
      args: [site, Date.parse("2025-03-01T23:30:00Z")],
    });
    const summary = await runImport(d.client, input(site, "plausible", "plausible.zip", fixture(PLAUSIBLE_ZIP)));
    expect(summary).toMatchObject({
      daysImported: 1,
      firstDay: "2025-03-01",
      lastDay: "2025-03-01",
      rowsRead: 71,
      // 2025-03-02's 20 rows and 2025-03-03's 19, and the two custom events.
      rowsRefused: 41,
      refusals: {
        counts: { "custom events are not imported": 2, "collected data exists for this day": 39 },
        examples: [
          { file: "imported_custom_events_20250301_20250303.csv", line: 2, reason: "custom events are not imported" },
          { file: "imported_custom_events_20250301_20250303.csv", line: 3, reason: "custom events are not imported" },
          { file: VISITORS, line: 3, reason: "collected data exists for this day" },
          { file: VISITORS, line: 4, reason: "collected data exists for this day" },
        ],
      },
    });
    expect((await tables(site)).days.map((r) => r.day)).toEqual(["2025-03-01"]);

    // On 3 March (Berlin), 2 March is yesterday: a late event may still land on it.
    const fresh = await newSite();
    const recent = await runImport(
      d.client,
      input(fresh, "plausible", "plausible.zip", fixture(PLAUSIBLE_ZIP), { now: () => Date.parse("2025-03-03T08:00:00Z") }),
    );
    expect(recent.refusals.counts).toEqual({ "custom events are not imported": 2, "too recent": 39 });
    expect(recent.daysImported).toBe(1);
  });

  it("a later import of a day replaces the earlier one's; removing an import removes the days it still owns", async () => {
    const site = await newSite("UTC");
    const umami = await runImport(d.client, input(site, "umami", "umami.csv", fixture(UMAMI_CSV)));
    const goat = await runImport(
      d.client,
      input(site, "goatcounter", "goat.csv", fixture(GOATCOUNTER_CSV), { now: () => LATER + 1 }),
    );
    const owners = await d.client.execute({
      sql: "SELECT day, import_id, visitors FROM imported_days WHERE site_id = ? ORDER BY day",
      args: [site],
    });
    expect(owners.rows.map((r) => [r.day, r.import_id, r.visitors])).toEqual([
      ["2025-03-01", goat.id, 4],
      ["2025-03-02", goat.id, 2],
      ["2025-03-03", umami.id, 1],
    ]);
    // 2025-03-01 holds GoatCounter's 26 cells, none of Umami's (whose day had 30, "/signup" among them).
    const first = (await tables(site)).cells.filter((c) => c.day === "2025-03-01");
    expect(first).toHaveLength(26);
    expect(first.some((c) => c.value === "/signup")).toBe(false);

    expect((await listImports(d.client, site)).map((i) => [i.id, i.source])).toEqual([
      [goat.id, "goatcounter"],
      [umami.id, "umami"],
    ]);
    expect(await removeImport(d.client, site, goat.id)).toBe(true);
    expect((await tables(site)).days.map((r) => r.day)).toEqual(["2025-03-03"]);
    // Umami's 3 March in UTC: s1's one pageview of /docs: page, entry, exit, source, country, device, browser, os.
    expect(await d.count("imported_cells", { column: "site_id", value: site })).toBe(8);
    expect(await removeImport(d.client, site, goat.id)).toBe(false);
    // Another site's import is not this site's to remove.
    expect(await removeImport(d.client, await newSite(), umami.id)).toBe(false);
    expect((await listImports(d.client, site)).map((i) => i.id)).toEqual([umami.id]);
  });
});

describe("write batches", () => {
  const day = (n: number, cells: number): ImportedDay => ({
    day: `2025-01-${String(n).padStart(2, "0")}`,
    totals: { visitors: 1, pageviews: 1, visits: 1, bounces: 0, visitDuration: 0 },
    cells: Array.from({ length: cells }, (_, i) => ({ dimension: "page" as const, value: `/${i}`, visitors: 1, pageviews: 1 })),
  });

  it("hold at most 50 days and CELLS_PER_BATCH cells, and never split a day", () => {
    const sizes = (days: ImportedDay[]) => batchesOf(days).map((b) => b.map((d) => d.cells.length));
    expect(CELLS_PER_BATCH).toBe(20_000);
    expect(sizes([day(1, 15_000), day(2, 5_000), day(3, 1), day(4, 30_000), day(5, 2)])).toEqual([
      [15_000, 5_000],
      [1],
      [30_000],
      [2],
    ]);
    expect(batchesOf(Array.from({ length: 120 }, (_, i) => day((i % 28) + 1, 1))).map((b) => b.length)).toEqual([50, 50, 20]);
  });

  it("refuses a day of more than 100,000 report rows (it would not fit one request), and writes the others", async () => {
    const site = await newSite("UTC");
    const pages = Array.from({ length: MAX_CELLS_PER_DAY + 1 }, (_, i) => `2024-01-02,example.com,/p${i},1,1,1`);
    const zip = zipSync({
      "imported_visitors_20240101_20240102.csv": strToU8(
        "date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-01,9,20,4,10,300\n2024-01-02,9,20,4,10,300\n",
      ),
      "imported_pages_20240101_20240102.csv": strToU8(`date,hostname,page,visits,visitors,pageviews\n${pages.join("\n")}\n`),
    });
    const summary = await runImport(d.client, input(site, "plausible", "big.zip", zip));
    expect([summary.daysImported, summary.firstDay, summary.lastDay]).toEqual([1, "2024-01-01", "2024-01-01"]);
    expect(summary.refusals.counts).toEqual({ [TOO_MANY_CELLS]: MAX_CELLS_PER_DAY + 2 });
    expect(TOO_MANY_CELLS).toBe("more than 100,000 report rows in one day");
    expect((await tables(site)).days.map((r) => r.day)).toEqual(["2024-01-01"]);
  }, 60_000);
});
