/**
 * Imported days in the reports (docs/reports.md, "Imported days"), on a real libSQL database
 * whose imported days are written by the importer's own writer (replaceDayStatements): cells
 * below k hidden with their labels, shown cells perturbed by their own key exactly as
 * shownCounts says, period figures the sums of shown day cells, the complement cover, the merge
 * with collected days, and — through the real stack — the `imported` field of each answer,
 * filters, goals and hours leaving imported days out, and comparisons with an imported year.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aggregateReport } from "../../worker/reports/aggregate";
import { breakdownReport } from "../../worker/reports/breakdown";
import { yearEarlier } from "../../worker/reports/compare";
import type { Figure } from "../../worker/reports/figures";
import { importedMeta, importedRunsOf, importedRunsStatement } from "../../worker/reports/imported/coverage";
import { IMPORTED_RULE } from "../../worker/reports/imported/rule";
import { shownCounts, type NoiseKey } from "../../worker/reports/noise";
import { pagesReport } from "../../worker/reports/pages";
import { lastCompleteDay } from "../../worker/reports/period";
import { catchUp } from "../../worker/reports/rollup";
import { pagesResponse, timeseriesResponse } from "../../worker/reports/schemas";
import type { ReportScope } from "../../worker/reports/scope";
import { timeseriesReport } from "../../worker/reports/timeseries";
import { addDays } from "../../worker/reports/timezone";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { addEvents, addGoal, addImport, addSite, at, noiseKey, openTestDb, sessions, type SeedDay, type TestDb } from "./helpers";

const SITE = "site_imported";
const K = 5;
const est = (value: number): Figure => ({ value, qualifier: "estimated" });
const hidden: Figure = { value: null, qualifier: "suppressed" };

/**
 * Five imported days (plausible) and one collected day:
 * - 01-01: "/" 30, "/pricing" 12, "/secret" 3 (hidden: its label appears nowhere); sources
 *   Google 20, Bing 12, DuckDuckGo 3, and 5 visitors in no cell: a hidden remainder of 8, no cover.
 * - 01-02: Google 14, Bing 9, Ecosia 7 (all shown, nothing hidden).
 * - 01-03: Google 15, Bing 8, Ecosia 3: a hidden remainder of 3, so Bing (the smallest shown) is hidden too.
 * - 01-04: Google 15, Bing 8, Ecosia 3, Yandex 4, Qwant 3: a remainder of 10, no cover.
 * - 01-05: Google 15, Ask 8, Bing 8, Ecosia 2: a tie; Ask (first by value) is hidden.
 * - 01-06: collected: "/" by 8 sessions, "/secret", "/pricing" and "/b" by 2 others each (hidden,
 *   6 sessions between them: no cover); imported too ("/imported-only" 20), read as collected only.
 * - 01-07: imported, 3 visitors: hidden whole.
 */
const IMPORTED: SeedDay[] = [
  {
    day: "2025-01-01",
    visitors: 40,
    pageviews: 90,
    visits: 45,
    bounces: 20,
    visitDuration: 3000,
    cells: [
      ["page", "/", 30, 50],
      ["page", "/pricing", 12, 15],
      ["page", "/secret", 3, 3],
      ["source", "Google", 20, 40],
      ["source", "Bing", 12, 30],
      ["source", "DuckDuckGo", 3, 5],
    ],
  },
  {
    day: "2025-01-02",
    visitors: 30,
    pageviews: 60,
    visits: 31,
    bounces: 4,
    cells: [
      ["page", "/", 30, 40],
      ["page", "/pricing", 6, 20],
      ["source", "Google", 14, 30],
      ["source", "Bing", 9, 20],
      ["source", "Ecosia", 7, 10],
    ],
  },
  {
    day: "2025-01-03",
    visitors: 26,
    pageviews: 40,
    cells: [
      ["source", "Google", 15, 20],
      ["source", "Bing", 8, 12],
      ["source", "Ecosia", 3, 8],
    ],
  },
  {
    day: "2025-01-04",
    visitors: 33,
    pageviews: 50,
    cells: [
      ["source", "Google", 15, 20],
      ["source", "Bing", 8, 12],
      ["source", "Ecosia", 3, 8],
      ["source", "Yandex", 4, 5],
      ["source", "Qwant", 3, 5],
    ],
  },
  {
    day: "2025-01-05",
    visitors: 33,
    pageviews: 50,
    cells: [
      ["source", "Google", 15, 20],
      ["source", "Ask", 8, 12],
      ["source", "Bing", 8, 12],
      ["source", "Ecosia", 2, 6],
    ],
  },
  { day: "2025-01-06", visitors: 20, pageviews: 20, cells: [["page", "/imported-only", 20, 20]] },
  { day: "2025-01-07", visitors: 3, pageviews: 4, cells: [["page", "/", 3, 4]] },
];

let db: TestDb;
let key: NoiseKey;

const scope = (from: string, to = from, noise = true): ReportScope => ({
  siteId: SITE,
  from,
  to,
  timeZone: "UTC",
  k: K,
  noise,
  noiseKey: key,
  imported: IMPORTED_RULE,
});

/** What an imported cell shows: shownCounts over its true counts and its key from the database. */
async function shownCell(day: string, dimension: string, value: string, visitors: number, pageviews: number) {
  const rs = await db.client.execute({
    sql: "SELECT key_sum FROM imported_cells WHERE site_id = ? AND day = ? AND dimension = ? AND value = ?",
    args: [SITE, day, dimension, value],
  });
  return shownCounts({ units: visitors, events: pageviews, keySum: Number(rs.rows[0]!.key_sum) }, key, K, true);
}

async function shownDay(day: string, visitors: number, pageviews: number) {
  const rs = await db.client.execute({
    sql: "SELECT key_sum FROM imported_days WHERE site_id = ? AND day = ?",
    args: [SITE, day],
  });
  return shownCounts({ units: visitors, events: pageviews, keySum: Number(rs.rows[0]!.key_sum) }, key, K, true);
}

const labels = (rows: { value?: string | null; path?: string | null; other: boolean }[]) =>
  rows.map((r) => (r.other ? "(other)" : (r.value ?? r.path)));

beforeAll(async () => {
  db = await openTestDb();
  await addSite(db.client, SITE);
  await addGoal(db.client, SITE, "goal_signup");
  await addImport(db.client, SITE, "imp_1", "plausible", IMPORTED);
  const view = (path: string) => (session: string) => ({ site: SITE, session, path, ts: at("2025-01-06") });
  await addEvents(db.client, [
    ...sessions("c", 8).map(view("/")),
    ...sessions("s", 2).map(view("/secret")),
    ...sessions("p", 2).map(view("/pricing")),
    ...sessions("b", 2).map(view("/b")),
  ]);
  expect(await catchUp(db.client as never)).toBeGreaterThan(0);
  key = await noiseKey(db.client);
});
afterAll(() => db?.close());

describe("the issue's case: a page of one imported day", () => {
  it("hides a page with 3 imported visitors (its label nowhere) and shows one with 12 as shownCounts gives it", async () => {
    const report = await pagesReport(db.reader, scope("2025-01-01"));
    expect(JSON.stringify(report)).not.toContain("/secret");
    const pricing = await shownCell("2025-01-01", "page", "/pricing", 12, 15);
    const home = await shownCell("2025-01-01", "page", "/", 30, 50);
    expect(report.rows).toEqual([
      { path: "/", other: false, visitors: est(home.units), pageviews: est(home.events) },
      { path: "/pricing", other: false, visitors: est(pricing.units), pageviews: est(pricing.events) },
      { path: null, other: true, visitors: hidden, pageviews: hidden },
    ]);
    expect(Math.abs(pricing.units - 12)).toBeLessThanOrEqual(5);
    expect(pricing.units).toBeGreaterThanOrEqual(K);
    expect(report.totals.pageviews).toEqual(est(home.events + pricing.events));
  });

  it("reads exact counts without noise (the cells themselves), the hidden one still nowhere", async () => {
    const report = await pagesReport(db.reader, scope("2025-01-01", "2025-01-01", false));
    expect(report.rows.map((r) => [r.path, r.visitors.value, r.pageviews.value])).toEqual([
      ["/", 30, 50],
      ["/pricing", 12, 15],
      [null, null, null],
    ]);
  });

  it("hides an imported day below k whole in the timeseries, and shows the others' totals as perturbed", async () => {
    const report = await timeseriesReport(db.reader, scope("2025-01-01", "2025-01-07"), "day");
    const day1 = await shownDay("2025-01-01", 40, 90);
    expect(report.points[0]).toMatchObject({
      local: "2025-01-01",
      visitors: est(day1.units),
      pageviews: est(day1.events),
      imported: true,
    });
    expect(report.points[6]).toMatchObject({
      local: "2025-01-07",
      visitors: hidden,
      pageviews: hidden,
      hidden: "small_group",
      imported: true,
    });
    // 01-06 has collected data: read as collected (8 sessions), not as its import.
    expect(report.points[5]!.imported).toBeUndefined();
    const shownDays = await Promise.all(IMPORTED.slice(0, 5).map((d) => shownDay(d.day, d.visitors, d.pageviews)));
    const collected = report.points[5]!;
    expect(report.totals.visitors).toEqual(est(shownDays.reduce((n, d) => n + d.units, 0) + collected.visitors.value!));
    expect(report.totals.pageviews).toEqual(est(shownDays.reduce((n, d) => n + d.events, 0) + collected.pageviews.value!));
  });
});

describe("periods are sums of shown day cells", () => {
  it("adds a value's shown day cells, and nothing of its hidden ones", async () => {
    const days = ["2025-01-01", "2025-01-02", "2025-01-03", "2025-01-04", "2025-01-05"];
    const period = await breakdownReport(db.reader, scope(days[0]!, days[4]!), "source");
    const perDay = await Promise.all(days.map((d) => breakdownReport(db.reader, scope(d), "source")));
    for (const value of ["Google", "Bing", "Ecosia"]) {
      const cells = perDay.map((r) => r.rows.find((row) => row.value === value)).filter((r) => r !== undefined);
      const row = period.rows.find((r) => r.value === value)!;
      expect(row.visitors, value).toEqual(est(cells.reduce((n, r) => n + r.visitors.value!, 0)));
      expect(row.pageviews, value).toEqual(est(cells.reduce((n, r) => n + r.pageviews.value!, 0)));
    }
    // Hidden on every day (Ask by the cover): DuckDuckGo, Yandex, Qwant and Ask are only in the `other` row.
    expect(labels(period.rows)).toEqual(["Bing", "Ecosia", "Google", "(other)"]);
    const google = await Promise.all(
      [20, 14, 15, 15, 15].map((n, i) => shownCell(days[i]!, "source", "Google", n, [40, 30, 20, 20, 20][i]!)),
    );
    expect(period.rows[2]!.visitors).toEqual(est(google.reduce((n, c) => n + c.units, 0)));
    const shownRows = period.rows.filter((r) => !r.other);
    expect(period.totals.visitors).toEqual(est(shownRows.reduce((n, r) => n + r.visitors.value!, 0)));
  });
});

describe("complement cover", () => {
  const sources = async (day: string) => {
    const report = await breakdownReport(db.reader, scope(day, day, false), "source");
    return Object.fromEntries(report.rows.map((r) => [r.other ? "(other)" : r.value, r.visitors.value]));
  };

  it("hides the smallest shown source when the hidden ones hold 1 … k − 1 visitors", async () => {
    expect(await sources("2025-01-03")).toEqual({ Google: 15, "(other)": null });
  });

  it("breaks a tie by value", async () => {
    expect(await sources("2025-01-05")).toEqual({ Google: 15, Bing: 8, "(other)": null });
  });

  it("hides nothing more when the hidden remainder holds k or more (cells and the day's rest)", async () => {
    expect(await sources("2025-01-04")).toEqual({ Google: 15, Bing: 8, "(other)": null });
    // 3 in a hidden cell and 5 visitors the day's total has beyond its cells: 8.
    expect(await sources("2025-01-01")).toEqual({ Google: 20, Bing: 12, "(other)": null });
    expect(await sources("2025-01-02")).toEqual({ Google: 14, Bing: 9, Ecosia: 7 });
  });

  it("never covers pages, which do not split the day's visitors", async () => {
    const report = await pagesReport(db.reader, scope("2025-01-02", "2025-01-02", false));
    expect(report.rows.map((r) => [r.path, r.visitors.value])).toEqual([
      ["/", 30],
      ["/pricing", 6],
    ]);
  });
});

describe("merged with collected days", () => {
  it("adds the collected figure and the imported sum per row, each side's shown parts only", async () => {
    const collected = await pagesReport(db.reader, { ...scope("2025-01-06"), imported: undefined });
    const imported = await pagesReport(db.reader, scope("2025-01-01", "2025-01-05"));
    const merged = await pagesReport(db.reader, scope("2025-01-01", "2025-01-06"));
    const row = (r: typeof merged, path: string | null) => r.rows.find((x) => x.path === path);
    expect(row(collected, "/")!.visitors.value).toBeGreaterThanOrEqual(K);
    expect(row(merged, "/")).toEqual({
      path: "/",
      other: false,
      visitors: est(row(collected, "/")!.visitors.value! + row(imported, "/")!.visitors.value!),
      pageviews: est(row(collected, "/")!.pageviews.value! + row(imported, "/")!.pageviews.value!),
    });
    // /pricing is imported only; /secret is hidden on both sides; 01-06's import is not read.
    expect(row(merged, "/pricing")).toEqual(row(imported, "/pricing"));
    expect(labels(merged.rows)).toEqual(["/", "/pricing", "(other)"]);
    expect(JSON.stringify(merged)).not.toContain("/secret");
    expect(JSON.stringify(merged)).not.toContain("/imported-only");
    expect(merged.totals.pageviews).toEqual(est(row(merged, "/")!.pageviews.value! + row(merged, "/pricing")!.pageviews.value!));
  });

  it("never shows a collected label because the imported side does: the imported sum alone", async () => {
    // "/pricing" is collected by 2 sessions (hidden) and imported on 01-02 by 6 (shown): the row
    // reads the imported part only, and the collected 2 stay in the `other` row.
    const merged = await pagesReport(db.reader, scope("2025-01-02", "2025-01-06"));
    const imported = await pagesReport(db.reader, scope("2025-01-02", "2025-01-05"));
    expect(merged.rows.find((r) => r.path === "/pricing")).toEqual(imported.rows.find((r) => r.path === "/pricing"));
    expect(labels(merged.rows)).toEqual(["/", "/pricing", "(other)"]);
  });

  it("adds the imported days' visits and bounces to the aggregate, leaving the duration to collected visits", async () => {
    const s = { ...scope("2025-01-01", "2025-01-02", false) };
    const report = await aggregateReport(db.reader, s, await timeseriesReport(db.reader, s, "day"));
    expect(report.visitors).toEqual(est(70));
    expect(report.visits).toEqual(est(45 + 31));
    // 01-02's 4 bounces are fewer than k: hidden.
    expect(report.bounces).toEqual(est(20));
    expect(report.bounce_rate).toMatchObject({ value: Math.round((20 / 76) * 10000) / 10000, qualifier: "estimated" });
    expect(report.views_per_visit).toEqual(est(Math.round((150 / 76) * 100) / 100));
    expect(report.visit_duration).toEqual(hidden);
  });
});

describe("coverage", () => {
  it("counts a period's imported days, their sources and the days read as collected", async () => {
    const runs = importedRunsOf(await db.client.execute(importedRunsStatement(SITE)));
    expect(importedMeta(runs, "2024-12-01", "2025-01-31", null)).toEqual({
      days: 6,
      from: "2025-01-01",
      to: "2025-01-07",
      sources: ["plausible"],
      included: true,
      overlap_days: 1,
    });
    expect(importedMeta(runs, "2025-01-03", "2025-01-04", "filters")).toEqual({
      days: 2,
      from: "2025-01-03",
      to: "2025-01-04",
      sources: ["plausible"],
      included: false,
      reason: "filters",
    });
    expect(importedMeta(runs, "2025-02-01", "2025-02-28", null)).toBeUndefined();
  });
});

describe("through the API", () => {
  let f: ApiFixture;
  let site: string;
  let goal: string;
  let call: Awaited<ReturnType<ApiFixture["makeKey"]>>["call"];
  const Y = lastCompleteDay("UTC", Date.now());
  /** Last week is collected; the same week a year earlier and the 10 days before last week are imported. */
  const WEEK = { from: addDays(Y, -6), to: Y };
  const IMPORTED_FROM = addDays(Y, -16);
  const IMPORTED_TO = addDays(Y, -7);
  const YEAR_FROM = yearEarlier(WEEK.from);

  beforeAll(async () => {
    f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
    site = (await f.makeSite("imported.example")).id;
    goal = (await f.makeGoal(site, { name: "Signed up", kind: "event", match: "signup" })).id;
    call = (await f.makeKey(["read:reports"], [site])).call;
    const day = (date: string): SeedDay => ({
      day: date,
      visitors: 20,
      pageviews: 30,
      cells: [
        ["page", "/", 20, 30],
        ["source", "Google", 20, 30],
      ],
    });
    const days = (from: string, n: number) => Array.from({ length: n }, (_, i) => day(addDays(from, i)));
    await f.seedHistory(async (client) => {
      await addImport(client, site, "imp_recent", "plausible", days(IMPORTED_FROM, 10));
      await addImport(client, site, "imp_year", "umami", days(YEAR_FROM, 7));
      await addEvents(
        client,
        sessions("w", 12).map((session) => ({ site, session, path: "/", ts: at(WEEK.to) })),
      );
    });
  }, 120_000);
  afterAll(async () => {
    await f?.close();
  });

  const get = async (path: string) => {
    const res = await call("GET", path);
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  const span = `from=${IMPORTED_FROM}&to=${IMPORTED_TO}`;
  const meta = (included: boolean, reason?: string) => ({
    days: 10,
    from: IMPORTED_FROM,
    to: IMPORTED_TO,
    sources: ["plausible"],
    included,
    ...(reason ? { reason } : {}),
  });

  it("says the pages, breakdown and timeseries include the period's imported days", async () => {
    const pages = await get(`/api/v1/pages?site=${site}&${span}`);
    pagesResponse.parse(pages);
    expect(pages.imported).toEqual(meta(true));
    expect(pages.rows[0]).toMatchObject({ path: "/", visitors: { qualifier: "estimated" } });
    const breakdown = await get(`/api/v1/breakdown?site=${site}&dimension=source&${span}`);
    expect(breakdown.imported).toEqual(meta(true));
    expect(breakdown.rows.map((r: { value: string }) => r.value)).toEqual(["Google"]);
    const series = await get(`/api/v1/timeseries?site=${site}&${span}`);
    timeseriesResponse.parse(series);
    expect(series.imported).toEqual(meta(true));
    expect(series.points.every((p: { imported?: true }) => p.imported === true)).toBe(true);
    const aggregate = await get(`/api/v1/aggregate?site=${site}&${span}`);
    expect(aggregate.imported).toEqual({
      ...meta(true),
      collected_only: ["visit_duration", "visit_duration_low", "visit_duration_high"],
    });
    expect(aggregate.results.visitors.qualifier).toBe("estimated");
  });

  it("leaves them out under a filter, a goal's breakdown, hourly points and reports they do not feed, and says why", async () => {
    const filtered = await get(`/api/v1/pages?site=${site}&${span}&filter=country:DE`);
    expect(filtered.imported).toEqual(meta(false, "filters"));
    expect(filtered.rows).toEqual([]);
    const withGoal = await get(`/api/v1/breakdown?site=${site}&dimension=source&goal=${goal}&${span}`);
    expect(withGoal.imported).toEqual(meta(false, "goal"));
    expect(withGoal.rows).toEqual([]);
    const hourly = await get(`/api/v1/timeseries?site=${site}&${span}&interval=hour`);
    expect(hourly.imported).toEqual(meta(false, "interval"));
    expect(hourly.points.some((p: { imported?: true }) => p.imported)).toBe(false);
    const conversions = await get(`/api/v1/conversions?site=${site}&${span}`);
    expect(conversions.imported).toEqual(meta(false, "report"));
    const query = await call("POST", "/api/v1/query", {
      site_id: site,
      metrics: ["visitors"],
      date_range: [IMPORTED_FROM, IMPORTED_TO],
    });
    expect(query.status, query.text).toBe(200);
    expect(query.body.meta.imported).toEqual(meta(false, "report"));
    const aggregate = await get(`/api/v1/aggregate?site=${site}&${span}&filter=country:DE`);
    expect(aggregate.imported).toEqual(meta(false, "filters"));
  });

  it("says nothing where the period has no imported day", async () => {
    const pages = await get(`/api/v1/pages?site=${site}&from=${WEEK.from}&to=${WEEK.to}`);
    expect(pages.imported).toBeUndefined();
  });

  it("compares this week with an imported year, read by the same rule", async () => {
    const compared = await get(`/api/v1/timeseries?site=${site}&from=${WEEK.from}&to=${WEEK.to}&compare=year`);
    const earlier = await get(`/api/v1/timeseries?site=${site}&from=${compared.comparison.from}&to=${compared.comparison.to}`);
    expect(compared.imported).toBeUndefined();
    expect(compared.comparison.imported).toMatchObject({ days: 7, sources: ["umami"], included: true });
    expect(compared.totals.visitors.previous).toEqual(earlier.totals.visitors);
    expect(earlier.totals.visitors.qualifier).toBe("estimated");
    const pages = await get(`/api/v1/pages?site=${site}&from=${WEEK.from}&to=${WEEK.to}&compare=year`);
    const earlierPages = await get(`/api/v1/pages?site=${site}&from=${compared.comparison.from}&to=${compared.comparison.to}`);
    expect(pages.rows[0].visitors.previous).toEqual(earlierPages.rows[0].visitors);
  });
});
