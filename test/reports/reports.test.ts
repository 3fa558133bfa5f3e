/**
 * Every report on small, hand-made data with exact expected outputs: what is shown, what is
 * suppressed and why (too few sessions, a small complement, a cover for a small remainder),
 * and each figure's qualifier. Real rollups in a real libSQL database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conversionsReport } from "../../worker/reports/conversions";
import { funnelReport } from "../../worker/reports/funnels";
import { pagesReport } from "../../worker/reports/pages";
import { catchUp } from "../../worker/reports/rollup";
import type { ReportScope } from "../../worker/reports/scope";
import { timeseriesReport } from "../../worker/reports/timeseries";
import { vitalsReport } from "../../worker/reports/vitals";
import {
  addConversions,
  addEvents,
  addGoal,
  addSite,
  addVitals,
  at,
  openTestDb,
  sessions,
  type RawEvent,
  type TestDb,
} from "./helpers";

const SITE = "site_exact";
const x = (value: number) => ({ value, qualifier: "exact" });
const est = (value: number) => ({ value, qualifier: "estimated" });
const hidden = { value: null, qualifier: "suppressed" };

let db: TestDb;
const scope = (from: string, to = from, k = 5): ReportScope => ({ siteId: SITE, from, to, timeZone: "UTC", k });

const views = (ids: string[], path: string, date: string, hour = 12): RawEvent[] =>
  ids.map((session) => ({ site: SITE, session, path, ts: at(date, hour) }));

beforeAll(async () => {
  db = await openTestDb();
  const c = db.client;
  await addSite(c, SITE);
  await addGoal(c, SITE, "goal_signup", "Signed up");
  await addGoal(c, SITE, "goal_buy", "Bought");
  await addGoal(c, SITE, "goal_a", "A");
  await addGoal(c, SITE, "goal_b", "B");
  await addGoal(c, SITE, "goal_c", "C");

  // 2026-11-02: 20 sessions. "/" 16 (20 − 16 = 4 < k: hidden), "/pricing" 8 (9 views),
  // "/blog/a" 3 and "/blog/b" 2 (too few). "/" holds k sessions, so the hidden remainder is covered.
  const s = sessions("s", 20);
  await addEvents(c, [
    ...views(s.slice(0, 16), "/", "2026-11-02"),
    ...views(s.slice(0, 8), "/pricing", "2026-11-02"),
    ...views(["s0"], "/pricing", "2026-11-02"),
    ...views(s.slice(16, 19), "/blog/a", "2026-11-02"),
    ...views(["s19", "s0"], "/blog/b", "2026-11-02"),
    ...s
      .slice(16, 20)
      .map((session) => ({ site: SITE, session, path: "/", kind: "engagement" as const, ts: at("2026-11-02", 12) })),
  ]);
  // Conversions: signup by 6 sessions; buy by 4 sessions after signing up, plus one without a session.
  await addConversions(c, [
    ...s.slice(0, 6).map((session) => ({ site: SITE, goal: "goal_signup", session, ts: at("2026-11-02", 12, 10) })),
    ...s.slice(0, 4).map((session) => ({ site: SITE, goal: "goal_buy", session, ts: at("2026-11-02", 12, 20) })),
    { site: SITE, goal: "goal_buy", session: null, ts: at("2026-11-02", 15) },
  ]);

  // 2026-11-03: 12 sessions. "/" all 12, "/x" 7, "/y" 1. "/y" alone would be the remainder
  // of the day's pageviews, so the smallest visible page ("/x") is hidden with it.
  const t = sessions("t", 12);
  await addEvents(c, [
    ...views(t, "/", "2026-11-03"),
    ...views(t.slice(0, 7), "/x", "2026-11-03"),
    ...views(["t7"], "/y", "2026-11-03"),
  ]);
  // LCP on "/" from all 12 sessions: 1000, 1500, … 6500 ms. CLS on "/x" from 3 sessions.
  // INP on "/": 9 good, 2 needing improvement, 1 poor. FCP on "/": one good sample from each
  // session, and t0 reloads five times, each a poor one.
  await addVitals(c, [
    ...t.map((session, i) => ({ site: SITE, session, path: "/", metric: "LCP", value: 1000 + 500 * i, ts: at("2026-11-03") })),
    ...t.slice(0, 3).map((session) => ({ site: SITE, session, path: "/x", metric: "CLS", value: 0.05, ts: at("2026-11-03") })),
    ...t.map((session, i) => ({
      site: SITE,
      session,
      path: "/",
      metric: "INP",
      value: i < 9 ? 100 : i < 11 ? 300 : 900,
      ts: at("2026-11-03"),
    })),
    ...t.map((session) => ({ site: SITE, session, path: "/", metric: "FCP", value: 1000, ts: at("2026-11-03") })),
    ...Array.from({ length: 5 }, () => ({
      site: SITE,
      session: "t0",
      path: "/",
      metric: "FCP",
      value: 4000,
      ts: at("2026-11-03"),
    })),
  ]);

  // 2026-11-04: 5 sessions through goals a, b, c (k = 2 below): a only ×2, a→c ×1, a→b→c ×2.
  const u = sessions("u", 5);
  await addEvents(c, views(u, "/", "2026-11-04"));
  const journeys = [["goal_a"], ["goal_a"], ["goal_a", "goal_c"], ["goal_a", "goal_b", "goal_c"], ["goal_a", "goal_b", "goal_c"]];
  await addConversions(
    c,
    journeys.flatMap((goals, i) =>
      goals.map((goal, j) => ({ site: SITE, goal, session: u[i]!, ts: at("2026-11-04", 10, j * 5) })),
    ),
  );

  // 2026-11-05: 6 sessions at 09:00, 6 at 10:00, 2 at 11:00: the two are the day's small hours'
  // units, so the day hides (privacy/hours.ts), and its one page with it (a remainder of k).
  await addEvents(c, [
    ...views(sessions("h9-", 6), "/", "2026-11-05", 9),
    ...views(sessions("h10-", 6), "/", "2026-11-05", 10),
    ...views(sessions("h11-", 2), "/", "2026-11-05", 11),
  ]);

  expect(await catchUp(c as never)).toBeGreaterThan(0);
});
afterAll(() => db?.close());

describe("pages", () => {
  it("hides a page whose complement in the day is a small group, and small pages", async () => {
    // The hidden pages are one `other` row, which names none of them (hidden-rows.ts).
    expect(await pagesReport(db.reader, scope("2026-11-02"))).toEqual({
      rows: [
        { path: "/pricing", other: false, visitors: x(8), pageviews: x(9) },
        { path: null, other: true, visitors: hidden, pageviews: hidden },
      ],
      totals: { pageviews: est(9) },
    });
  });

  it("hides the smallest visible page too when the hidden pages hold fewer than k sessions", async () => {
    const report = await pagesReport(db.reader, scope("2026-11-03"));
    expect(report.rows).toEqual([
      { path: "/", other: false, visitors: x(12), pageviews: x(12) },
      { path: null, other: true, visitors: hidden, pageviews: hidden },
    ]);
  });

  it("adds up visible days only: estimated when a day was hidden or visitors span days", async () => {
    const report = await pagesReport(db.reader, scope("2026-11-02", "2026-11-05"));
    const byPath = Object.fromEntries(report.rows.map((r) => [r.path, r]));
    // "/": hidden on the 2nd, 12 on the 3rd, 5 on the 4th, hidden on the 5th (its day's small
    // hours hold 2 units, so the day hides and its only page is the remainder of k).
    expect(byPath["/"]).toEqual({ path: "/", other: false, visitors: est(17), pageviews: est(17) });
    expect(byPath["/pricing"]).toEqual({ path: "/pricing", other: false, visitors: x(8), pageviews: x(9) });
    // "/y" is hidden on every day: not listed, only the `other` row.
    expect(byPath["/y"]).toBeUndefined();
    expect(report.rows.at(-1)).toEqual({ path: null, other: true, visitors: hidden, pageviews: hidden });
    expect(report.totals).toEqual({ pageviews: est(26) });
  });

  it("filters by path or pattern after the privacy filter has seen every page of the day", async () => {
    // Hidden pages are never matched: a pattern reads the same whether a hidden path matches it
    // or not (/blog/* matches two hidden pages, /nothing* none), and the `other` row is there
    // whatever the pattern, as is the mark that the total misses hidden pages.
    const other = { path: null, other: true, visitors: hidden, pageviews: hidden };
    const blog = await pagesReport(db.reader, scope("2026-11-02"), "/blog/*");
    expect(blog).toEqual({ rows: [other], totals: { pageviews: hidden } });
    expect(await pagesReport(db.reader, scope("2026-11-02"), "/nothing*")).toEqual(blog);
    const pricing = await pagesReport(db.reader, scope("2026-11-02"), "/pricing");
    expect(pricing).toEqual({
      rows: [{ path: "/pricing", other: false, visitors: x(8), pageviews: x(9) }, other],
      totals: { pageviews: est(9) },
    });
  });

  it("shows more at a smaller k", async () => {
    // At k = 2, every page of 2026-11-02 holds 2 or more sessions and no complement is 1.
    const report = await pagesReport(db.reader, scope("2026-11-02", "2026-11-02", 2));
    expect(report.rows.sort((a, b) => a.path!.localeCompare(b.path!))).toEqual([
      { path: "/", other: false, visitors: x(16), pageviews: x(16) },
      { path: "/blog/a", other: false, visitors: x(3), pageviews: x(3) },
      { path: "/blog/b", other: false, visitors: x(2), pageviews: x(2) },
      { path: "/pricing", other: false, visitors: x(8), pageviews: x(9) },
    ]);
    expect(report.totals).toEqual({ pageviews: x(30) });
  });
});

describe("timeseries", () => {
  it("per day: the site-day atoms, and conversions from the visible goal atoms", async () => {
    const report = await timeseriesReport(db.reader, scope("2026-11-02", "2026-11-03"), "day");
    expect(report.points).toEqual([
      { start: "2026-11-02T00:00:00.000Z", local: "2026-11-02", visitors: x(20), pageviews: x(30), conversions: x(11) },
      { start: "2026-11-03T00:00:00.000Z", local: "2026-11-03", visitors: x(12), pageviews: x(20), conversions: x(0) },
    ]);
    expect(report.totals).toEqual({ visitors: est(32), pageviews: x(50), conversions: x(11) });
  });

  it("per hour: every hour of k shown, the day's first too; the day hides for its small hours", async () => {
    const report = await timeseriesReport(db.reader, scope("2026-11-05"), "hour");
    expect(report.points).toHaveLength(24);
    expect(report.points.slice(9, 12)).toEqual([
      { start: "2026-11-05T09:00:00.000Z", local: "2026-11-05T09:00", visitors: x(6), pageviews: x(6), conversions: x(0) },
      { start: "2026-11-05T10:00:00.000Z", local: "2026-11-05T10:00", visitors: x(6), pageviews: x(6), conversions: x(0) },
      { start: "2026-11-05T11:00:00.000Z", local: "2026-11-05T11:00", visitors: hidden, pageviews: hidden, conversions: x(0), hidden: "small_group" },
    ]);
    // Before 09:00 the day had no hour of k: those empty hours stay suppressed, as the day hides,
    // and read as quiet hours (not told apart from small ones); from 12:00 on they show 0.
    expect(report.points.slice(0, 9).map((p) => [p.visitors, p.hidden])).toEqual(Array(9).fill([hidden, "quiet_hours"]));
    expect(report.points.slice(12).map((p) => p.visitors)).toEqual(Array(12).fill(x(0)));
    expect(report.totals).toEqual({ visitors: est(12), pageviews: est(12), conversions: est(0) });
    // The day minus its shown hours would be the 2 of 11:00: the day hides its own total, and
    // reads as the sum of its shown hours, a lower bound.
    const daily = await timeseriesReport(db.reader, scope("2026-11-05"), "day");
    expect(daily.points[0]).toEqual({
      start: "2026-11-05T00:00:00.000Z",
      local: "2026-11-05",
      visitors: est(12),
      pageviews: est(12),
      conversions: x(0),
      from_hours: true,
    });
  });

  it("per hour, conversions of one goal: cells inside the goal-day", async () => {
    const report = await timeseriesReport(db.reader, scope("2026-11-02"), "hour", "goal_signup");
    expect(report.points.filter((p) => p.conversions.value !== 0).map((p) => [p.local, p.conversions])).toEqual([
      ["2026-11-02T12:00", x(6)],
    ]);
    // goal_buy: 4 at 12:00 and 1 at 15:00 (the sessionless one): both hidden inside a visible day.
    const buy = await timeseriesReport(db.reader, scope("2026-11-02"), "hour", "goal_buy");
    expect(buy.points.filter((p) => p.conversions.value !== 0).map((p) => [p.local, p.conversions])).toEqual([
      ["2026-11-02T12:00", hidden],
      ["2026-11-02T15:00", hidden],
    ]);
  });
});

describe("conversions", () => {
  it("per goal, with the visible session denominator and the rate", async () => {
    const report = await conversionsReport(db.reader, scope("2026-11-02"));
    const byGoal = Object.fromEntries(report.rows.map((r) => [r.goal.id, r]));
    expect([byGoal.goal_signup, byGoal.goal_buy]).toEqual([
      {
        goal: { id: "goal_signup", name: "Signed up", kind: "event" },
        conversions: x(6),
        converting_sessions: x(6),
        sessions: x(20),
        rate: x(0.3),
      },
      // 4 sessions and 1 conversion without one: 5 units.
      {
        goal: { id: "goal_buy", name: "Bought", kind: "event" },
        conversions: x(5),
        converting_sessions: x(5),
        sessions: x(20),
        rate: x(0.25),
      },
    ]);
    expect(report.totals).toEqual({ conversions: x(11), sessions: x(20) });
  });

  it("hides a goal whose non-converting sessions would be a small group", async () => {
    // 2026-11-04: 5 sessions, all converted on goal_a (0 apart: shown at k = 2); goal_b by 2 (3 apart).
    const report = await conversionsReport(db.reader, scope("2026-11-04", "2026-11-04", 2));
    const byGoal = Object.fromEntries(report.rows.map((r) => [r.goal.id, r]));
    expect(byGoal.goal_a!.converting_sessions).toEqual(x(5));
    expect(byGoal.goal_a!.rate).toEqual(x(1));
    expect(byGoal.goal_b!.converting_sessions).toEqual(x(2));
    // At k = 5, goal_c (3 sessions) is too small, and goal_a is hidden by nothing: 5 − 5 = 0.
    const strict = await conversionsReport(db.reader, scope("2026-11-04"));
    expect(Object.fromEntries(strict.rows.map((r) => [r.goal.id, r.converting_sessions]))).toMatchObject({
      goal_a: x(5),
      goal_b: hidden,
      goal_c: hidden,
    });
  });
});

describe("page goals", () => {
  it("hides a page goal whose difference from another singles out a page the pages report hid", async () => {
    // /home 10, /sale 6, /secret 1 sessions (k = 5): the pages report hides /secret and its cover /sale.
    const site = "site_page_goals";
    const c = db.client;
    await addSite(c, site);
    for (const [i, [id, match]] of [
      ["goal_sale", "/sale"],
      ["goal_s", "/s*"],
    ].entries())
      await c.execute({
        sql: "INSERT INTO goals (id, site_id, name, kind, match, created_at) VALUES (?, ?, ?, 'page', ?, ?)",
        args: [id!, site, id!, match!, 1_000 + i],
      });
    const day = "2026-11-06";
    const groups: [string, number][] = [
      ["/home", 10],
      ["/sale", 6],
      ["/secret", 1],
    ];
    const visits = groups.flatMap(([path, n]) =>
      sessions(path.slice(1), n).map((session) => ({ site, session, path, ts: at(day, 12) })),
    );
    await addEvents(c, visits);
    // As the collector converts page goals: once per session, at its first matching pageview.
    await addConversions(c, [
      ...visits.filter((v) => v.path === "/sale").map((v) => ({ site, goal: "goal_sale", session: v.session, ts: v.ts })),
      ...visits.filter((v) => v.path.startsWith("/s")).map((v) => ({ site, goal: "goal_s", session: v.session, ts: v.ts })),
    ]);
    await catchUp(c as never);
    const scope = { siteId: site, from: day, to: day, timeZone: "UTC", k: 5 };
    const pages = await pagesReport(db.reader, scope);
    // /sale and /secret are hidden: one `other` row (key "null") names neither.
    expect(Object.fromEntries(pages.rows.map((r) => [r.path, r.visitors]))).toEqual({
      "/home": x(10),
      null: hidden,
    });
    // /sale alone is one page-day of 6: shown. /s* (7) − /sale (6) would be the 1 session on /secret.
    const conversions = await conversionsReport(db.reader, scope);
    expect(Object.fromEntries(conversions.rows.map((r) => [r.goal.id, r.converting_sessions]))).toEqual({
      goal_sale: x(6),
      goal_s: hidden,
    });
    // The same atoms everywhere: the timeseries counts the shown goal only (a lower bound), and a
    // funnel from /s* starts from nothing.
    expect((await timeseriesReport(db.reader, scope, "day")).points[0]!.conversions).toEqual(est(6));
    expect((await funnelReport(db.reader, scope, ["goal_s", "goal_sale"])).map((s) => s.sessions)).toEqual([hidden, hidden]);
  });
});

describe("funnels", () => {
  it("counts steps in order and hides a step that differs from a coarser funnel by a small group", async () => {
    // S(a) = 5, S(a→b) = 2, S(a→c) = 3, S(a→b→c) = 2. At k = 2, a→b→c differs from a→c by 1.
    const abc = await funnelReport(db.reader, scope("2026-11-04", "2026-11-04", 2), ["goal_a", "goal_b", "goal_c"]);
    expect(abc.map((s) => [s.goal.id, s.sessions, s.dropoff, s.rate])).toEqual([
      ["goal_a", x(5), x(0), x(1)],
      ["goal_b", x(2), x(3), x(0.4)],
      ["goal_c", hidden, hidden, hidden],
    ]);
    const ac = await funnelReport(db.reader, scope("2026-11-04", "2026-11-04", 2), ["goal_a", "goal_c"]);
    expect(ac.map((s) => s.sessions)).toEqual([x(5), x(3)]);
    // Order matters: nobody did c before a.
    const ca = await funnelReport(db.reader, scope("2026-11-04", "2026-11-04", 2), ["goal_c", "goal_a"]);
    expect(ca.map((s) => s.sessions)).toEqual([x(3), x(0)]);
  });

  it("matches the conversions report on step 1, and hides a step 1 drop-off below k", async () => {
    const steps = await funnelReport(db.reader, scope("2026-11-02"), ["goal_signup", "goal_buy"]);
    // 6 signed up, 4 of them bought after: 4 < k.
    expect(steps.map((s) => s.sessions)).toEqual([x(6), hidden]);
  });
});

describe("vitals", () => {
  it("p75 from the histogram, shares on the thresholds and the sample count", async () => {
    const rows = await vitalsReport(db.reader, scope("2026-11-03"));
    const lcp = rows.find((r) => r.metric === "LCP" && r.path === "/")!;
    // Sorted samples 1000 … 6500 ms, one per session and bucket; rank 0.75 · 12 = 9 → 5000 ms. No
    // bucket holds k sessions' samples, so p75 is the range of the smallest grid block around
    // bucket 75 (5000 ms) that does: buckets 72–79 (3.1–7.7 s), holding 6 samples of 12 units.
    expect(lcp).toEqual({
      path: "/",
      other: false,
      metric: "LCP",
      unit: "ms",
      p75: hidden,
      p75_low: est(3122),
      p75_high: est(7731),
      // 4 good (1000–2500 ms) and 3 needing improvement: groups of fewer than k sessions, and the
      // two hold 7 together, so the 5 poor ones can be shown beside them.
      good: hidden,
      needs_improvement: hidden,
      poor: est(0.4167),
      samples: x(12),
    });
    // "/x" is hidden on that day (the cover), so its vitals are too: not listed, only as CLS's `other` row.
    expect(rows.find((r) => r.path === "/x")).toBeUndefined();
    expect(rows.at(-1)).toEqual({
      path: null,
      other: true,
      metric: "CLS",
      unit: "score",
      p75: hidden,
      p75_low: hidden,
      p75_high: hidden,
      good: hidden,
      needs_improvement: hidden,
      poor: hidden,
      samples: hidden,
    });
  });

  it("hides a small rating group, covers it, and counts a group's sessions, not its samples", async () => {
    const rows = await vitalsReport(db.reader, scope("2026-11-03"));
    const shares = (metric: string) => {
      const r = rows.find((row) => row.metric === metric && row.path === "/")!;
      return [r.good, r.needs_improvement, r.poor, r.samples];
    };
    // INP: 2 + 1 sessions need improvement or are poor (3 < k): good (9) is hidden too, or 12 − 9 = 3.
    expect(shares("INP")).toEqual([hidden, hidden, hidden, x(12)]);
    // FCP: 5 poor samples, but from one session (12 units, 17 samples: at least 12 − 17 + 5 = 0
    // sessions are sure), so poor is hidden, and good with it (17 − 12 = 5 samples would be its).
    // No sample needs improvement: an exact 0.
    expect(shares("FCP")).toEqual([hidden, x(0), hidden, x(17)]);
  });

  it("filters by metric and page", async () => {
    // "/" has no CLS and "/x" is hidden: never matched; CLS's `other` row is there whatever the pattern.
    const cls = await vitalsReport(db.reader, scope("2026-11-03"), { metric: "CLS", page: "/" });
    expect(cls.map((r) => [r.path, r.metric, r.other])).toEqual([[null, "CLS", true]]);
    expect(await vitalsReport(db.reader, scope("2026-11-03"), { page: "/x*" })).toEqual(cls);
    expect(await vitalsReport(db.reader, scope("2026-11-03"), { page: "/nothing" })).toEqual(cls);
    expect(await vitalsReport(db.reader, scope("2026-11-03"), { metric: "LCP", page: "/x*" })).toEqual([]);
  });
});
