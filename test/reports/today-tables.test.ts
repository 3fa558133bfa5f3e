/**
 * Today's pages and breakdowns (reports/today.ts, privacy/today.ts; docs/reports.md "Today"):
 * the rows of the closed hours only, hidden below k, else bands of width k over the cells'
 * perturbed counts, computed here from the database's own noise secrets.
 */
import { describe, expect, it } from "vitest";
import { ReportCache } from "../../worker/reports/cache";
import { perturb, shownCounts, unitKey } from "../../worker/reports/noise";
import { bandOf, exactToday } from "../../worker/reports/privacy";
import type { ReportScope } from "../../worker/reports/scope";
import { readToday, todayBreakdownReport, todayPagesReport } from "../../worker/reports/today";
import { addEvents, at, freshSiteDbs, noiseKey, sessions, type TestDb } from "./helpers";

const SITE = "site_today";
const fresh = freshSiteDbs(SITE);
const DAY = "2026-11-26";
const K = 5;

async function scope(db: TestDb, throughHour: number): Promise<ReportScope> {
  return {
    siteId: SITE,
    from: DAY,
    to: DAY,
    timeZone: "UTC",
    k: K,
    noise: true,
    noiseKey: await noiseKey(db.client),
    hours: { window: { fromMs: at(DAY, 0), toMs: at(DAY, throughHour) }, lastEndedDay: "2026-11-25" },
  };
}

/** The band the API shows for a cell of these session ids, each with `views` pageviews. */
async function expectedBands(db: TestDb, ids: string[], views = 1) {
  const key = await noiseKey(db.client);
  const keySum = ids.reduce((n, id) => n + unitKey(id, key.secret), 0);
  const shown = shownCounts({ units: ids.length, events: ids.length * views, keySum }, key, K, true);
  const visitors = bandOf(shown.units, K);
  const pageviews = bandOf(shown.events, K);
  return {
    visitors: { value: visitors.low, qualifier: "estimated", high: visitors.high },
    pageviews: { value: pageviews.low, qualifier: "estimated", high: pageviews.high },
  };
}

async function seed(db: TestDb): Promise<void> {
  // 09:00: 12 sessions land on "/" from Google, each viewing "/" twice; 3 of them go on to "/pricing".
  const home = sessions("h", 12);
  await addEvents(
    db.client,
    home.flatMap((session) =>
      [0, 1].map((m) => ({ site: SITE, session, path: "/", ts: at(DAY, 9, 10 + m), dims: { source: "Google" } })),
    ),
  );
  await addEvents(
    db.client,
    home.slice(0, 3).map((session) => ({ site: SITE, session, path: "/pricing", ts: at(DAY, 9, 30) })),
  );
  // 10:00: 6 sessions enter on "/blog" with no referrer value stored (null source).
  await addEvents(
    db.client,
    sessions("b", 10).map((session) => ({ site: SITE, session, path: "/blog", ts: at(DAY, 10, 5) })),
  );
  // 11:00, the running hour: 7 more on "/blog", not in any reading through 11:00.
  await addEvents(
    db.client,
    sessions("late", 7).map((session) => ({ site: SITE, session, path: "/blog", ts: at(DAY, 11, 1) })),
  );
}

describe("today's pages (period=today)", () => {
  it("shows each path of k or more units in today's closed hours as the bands of its perturbed counts; the rest is the other row", async () => {
    const db = await fresh();
    await seed(db);
    const report = await todayPagesReport(db.reader, await scope(db, 11), undefined, { cache: new ReportCache() });
    const home = await expectedBands(db, sessions("h", 12), 2);
    const blog = await expectedBands(db, sessions("b", 10));
    const byPath = Object.fromEntries(report.rows.map((r) => [String(r.path), r]));
    expect(Object.keys(byPath).sort()).toEqual(["/", "/blog", "null"]);
    expect(byPath["/"]).toEqual({ path: "/", other: false, ...home });
    expect(byPath["/blog"]).toEqual({ path: "/blog", other: false, ...blog });
    // "/pricing" (3 sessions) is hidden: one other row, no label, no count.
    expect(byPath.null).toEqual({
      path: null,
      other: true,
      visitors: { value: null, qualifier: "suppressed" },
      pageviews: { value: null, qualifier: "suppressed" },
    });
    expect(report.totals.pageviews).toEqual({
      value: home.pageviews.value + blog.pageviews.value,
      qualifier: "estimated",
      high: home.pageviews.high + blog.pageviews.high,
    });
    // Every band is k wide and starts at a multiple of k, at least k.
    for (const r of [home, blog])
      for (const f of [r.visitors, r.pageviews]) expect([f.high - f.value + 1, f.value % K, f.value >= K]).toEqual([K, 0, true]);
  });

  it("reads only the closed hours: through 10:00 the 10:00 and 11:00 sessions are in no row", async () => {
    const db = await fresh();
    await seed(db);
    const report = await todayPagesReport(db.reader, await scope(db, 10), undefined, { cache: new ReportCache() });
    expect(report.rows.map((r) => r.path)).toEqual(["/", null]);
    // Through 12:00 the late 7 join "/blog": 17 sessions, a new unit set and so a new draw.
    const later = await todayPagesReport(db.reader, await scope(db, 12), undefined, { cache: new ReportCache() });
    expect(later.rows.find((r) => r.path === "/blog")).toEqual({
      path: "/blog",
      other: false,
      ...(await expectedBands(db, [...sessions("b", 10), ...sessions("late", 7)])),
    });
  });

  it("matches a page pattern against shown paths only, and keeps the other row whatever the pattern", async () => {
    const db = await fresh();
    await seed(db);
    const report = await todayPagesReport(db.reader, await scope(db, 11), "/pri*", { cache: new ReportCache() });
    expect(report.rows).toEqual([
      {
        path: null,
        other: true,
        visitors: { value: null, qualifier: "suppressed" },
        pageviews: { value: null, qualifier: "suppressed" },
      },
    ]);
    expect(report.totals.pageviews).toEqual({ value: null, qualifier: "suppressed" });
  });

  it("hides a row of k or more whose perturbed count falls below k: the threshold is noisy too", async () => {
    const db = await fresh();
    // 40 paths of k sessions each: each draws its own perturbation, and is shown exactly when it is 0 or more.
    const paths = Array.from({ length: 40 }, (_, i) => `/p${i}`);
    await addEvents(
      db.client,
      paths.flatMap((path) => sessions(`${path}-`, K).map((session) => ({ site: SITE, session, path, ts: at(DAY, 9) }))),
    );
    const key = await noiseKey(db.client);
    const report = await todayPagesReport(db.reader, await scope(db, 10), undefined, { cache: new ReportCache() });
    const expected = paths.filter(
      (path) =>
        perturb(
          K,
          sessions(`${path}-`, K).reduce((n, id) => n + unitKey(id, key.secret), 0),
          key,
        ) >= K,
    );
    expect(
      report.rows
        .filter((r) => !r.other)
        .map((r) => r.path)
        .sort(),
    ).toEqual(expected.sort());
    // Both happen among 40 draws (each hides with probability ≈ 0.4), and the hidden ones are the other row.
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(paths.length);
    expect(report.rows.at(-1)).toEqual({
      path: null,
      other: true,
      visitors: { value: null, qualifier: "suppressed" },
      pageviews: { value: null, qualifier: "suppressed" },
    });
  });

  it("is empty in the day's first hour: no hour has closed", async () => {
    const db = await fresh();
    await seed(db);
    expect(await todayPagesReport(db.reader, await scope(db, 0), undefined, { cache: new ReportCache() })).toEqual({
      rows: [],
      totals: { pageviews: { value: 0, qualifier: "exact" } },
    });
  });
});

describe("today's breakdowns", () => {
  it("counts each session once, under its first pageview's value and with all its pageviews, as whole days do", async () => {
    const db = await fresh();
    await seed(db);
    const s = await scope(db, 11);
    const cache = new ReportCache();
    const sources = await todayBreakdownReport(db.reader, s, "source", { cache });
    // Google: the 12 home sessions with their 2 + 1 (3 of them) pageviews; no source: the 10 blog sessions.
    const key = await noiseKey(db.client);
    const google = shownCounts(
      { units: 12, events: 27, keySum: sessions("h", 12).reduce((n, id) => n + unitKey(id, key.secret), 0) },
      key,
      K,
      true,
    );
    expect(sources.rows).toEqual([
      {
        value: "Google",
        other: false,
        visitors: { value: bandOf(google.units, K).low, qualifier: "estimated", high: bandOf(google.units, K).high },
        pageviews: { value: bandOf(google.events, K).low, qualifier: "estimated", high: bandOf(google.events, K).high },
      },
      { value: null, other: false, ...(await expectedBands(db, sessions("b", 10))) },
    ]);
    const entries = await todayBreakdownReport(db.reader, s, "entry_page", { cache });
    expect(entries.rows.map((r) => r.value)).toEqual(["/", "/blog"]);
    expect(entries.rows[0]!.visitors).toEqual(sources.rows[0]!.visitors);
  });

  it("with the rule taken out (exactToday), reads the exact counts: what the bands hide", async () => {
    const db = await fresh();
    await seed(db);
    const table = await readToday(db.reader, await scope(db, 11), "page", { rule: exactToday, cache: new ReportCache() });
    expect(table.rows.filter((r) => !r.other).map((r) => [r.value, r.visitors.value, r.pageviews.value])).toEqual([
      ["/", 12, 24],
      ["/blog", 10, 10],
    ]);
  });
});
