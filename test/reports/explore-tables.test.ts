/**
 * The filtered reports (reports/explore, rule F in privacy/filtered.ts; docs/reports.md
 * "Filters"): the session-days matching every filter, grouped, each cell hidden below k (true or
 * perturbed) and shown as its perturbed counts, computed here from the database's own secrets.
 */
import { describe, expect, it } from "vitest";
import { filteredBreakdownReport, filteredPagesReport } from "../../worker/reports/explore/tables";
import { filteredConversionsReport, filteredTimeseriesReport } from "../../worker/reports/explore/series";
import { filteredFunnelReport } from "../../worker/reports/explore/funnels";
import { filteredVitalsReport } from "../../worker/reports/explore/vitals";
import { BUCKET_EDGES, bucketBounds } from "../../worker/reports/histogram";
import { filteredOverviewFigures, refuseMovingFilters } from "../../worker/reports/explore/overview";
import { overviewWindows } from "../../worker/reports/overview";
import { exactFiltered } from "../../worker/reports/privacy";
import { catchUp } from "../../worker/reports/rollup";
import type { ReportScope } from "../../worker/reports/scope";
import type { Figure } from "../../worker/reports/figures";
import {
  addConversions,
  addEvents,
  addGoal,
  addVitals,
  at,
  filteredExpected,
  filterOf,
  freshSiteDbs,
  noiseKey,
  sessions,
  type TestDb,
} from "./helpers";

const SITE = "site_explore";
const fresh = freshSiteDbs(SITE);
const DAY = "2026-11-20";
const DAY2 = "2026-11-21";
const K = 5;
const hidden: Figure = { value: null, qualifier: "suppressed" };

const f = filterOf;

async function scope(db: TestDb, from = DAY, to = DAY): Promise<ReportScope> {
  return { siteId: SITE, from, to, timeZone: "UTC", k: K, noise: true, noiseKey: await noiseKey(db.client) };
}

/** What rule F shows for a cell of these units with these events (helpers.ts filteredExpected). */
const expected = (db: TestDb, ids: string[], events: number) => filteredExpected(db.client, ids, events, K);

/**
 * DAY: 12 sessions from DE (8 via Google, 4 via Bing), 7 from FR via Google, 3 from US via Bing.
 * Every session views "/" once; the DE-Google ones and 2 FR ones view "/pricing" too; 6 DE-Google
 * sessions convert on goal_signup. DAY2: 6 DE sessions via Google view "/".
 */
const de = sessions("de", 12);
const fr = sessions("fr", 7);
const us = sessions("us", 3);
const deGoogle = de.slice(0, 8);
const later = sessions("dd", 6);

async function seed(db: TestDb) {
  await addGoal(db.client, SITE, "goal_signup", "Signup");
  const view = (session: string, path: string, country: string, source: string, minute: number, day = DAY) => ({
    site: SITE,
    session,
    path,
    ts: at(day, 10, minute),
    dims: { country, source },
  });
  await addEvents(db.client, [
    ...de.map((s, i) => view(s, "/", "DE", i < 8 ? "Google" : "Bing", 1)),
    ...fr.map((s) => view(s, "/", "FR", "Google", 1)),
    ...us.map((s) => view(s, "/", "US", "Bing", 1)),
    ...deGoogle.map((s) => view(s, "/pricing", "DE", "Google", 5)),
    ...fr.slice(0, 2).map((s) => view(s, "/pricing", "FR", "Google", 5)),
    ...later.map((s) => view(s, "/", "DE", "Google", 1, DAY2)),
  ]);
  await addConversions(
    db.client,
    deGoogle.slice(0, 6).map((session) => ({ site: SITE, goal: "goal_signup", session, ts: at(DAY, 10, 9) })),
  );
  await catchUp(db.client as never);
}

describe("filtered breakdowns", () => {
  it("break the visitors from Germany down by source: each value a cell of its own, totals a cell too", async () => {
    const db = await fresh();
    await seed(db);
    const report = await filteredBreakdownReport(db.reader, await scope(db), [f("country:DE")], "source");
    const google = await expected(db, deGoogle, 16);
    const bing = await expected(db, de.slice(8), 4);
    const total = await expected(db, de, 20);
    expect(bing.shown).toBe(false); // 4 sessions: fewer than k
    expect(total.shown).toBe(true); // 12: never below k
    expect(report.rows).toEqual([
      ...(google.shown ? [{ value: "Google", other: false, visitors: google.units, pageviews: google.events }] : []),
      { value: null, other: true, visitors: hidden, pageviews: hidden },
    ]);
    expect(report.totals).toEqual({ visitors: total.units, pageviews: total.events });
  });

  it("combine filters (AND), `is not` keeps what lacks the value, and a goal's converting sessions per value", async () => {
    const db = await fresh();
    await seed(db);
    const s = await scope(db);
    const report = await filteredBreakdownReport(db.reader, s, [f("source:Google"), f("country!:FR")], "country", "goal_signup");
    const deg = await expected(db, deGoogle, 16);
    const conv = await expected(db, deGoogle.slice(0, 6), 6);
    const converting = { converting_sessions: conv.units, conversions: conv.events };
    const rate = conv.shown
      ? // The shown converting sessions may read above the shown visitors: a rate is capped at 1 (figures.ts ratio).
        { value: Math.round(Math.min(1, conv.units.value! / deg.units.value!) * 1e4) / 1e4, qualifier: "estimated" }
      : hidden;
    expect(report.rows).toEqual(
      deg.shown
        ? [{ value: "DE", other: false, visitors: deg.units, pageviews: deg.events, ...converting, rate }]
        : [
            {
              value: null,
              other: true,
              visitors: hidden,
              pageviews: hidden,
              converting_sessions: hidden,
              conversions: hidden,
              rate: hidden,
            },
          ],
    );
    expect(report.totals).toEqual({ visitors: deg.units, pageviews: deg.events, ...converting });
  });

  it("with the rule taken out, reads exact counts (what the attack test attacks)", async () => {
    const db = await fresh();
    await seed(db);
    const report = await filteredBreakdownReport(db.reader, await scope(db), [f("page:/pricing")], "country", undefined, {
      rule: exactFiltered,
    });
    expect(report.rows).toEqual([
      { value: "DE", other: false, visitors: { value: 8, qualifier: "exact" }, pageviews: { value: 16, qualifier: "exact" } },
      { value: null, other: true, visitors: hidden, pageviews: hidden },
    ]);
    expect(report.totals).toEqual({ visitors: { value: 10, qualifier: "exact" }, pageviews: { value: 20, qualifier: "exact" } });
  });
});

describe("filtered pages", () => {
  it("list the pages the filtered visitors viewed, by goal completed", async () => {
    const db = await fresh();
    await seed(db);
    const report = await filteredPagesReport(db.reader, await scope(db), [f("country:DE"), f("source:Google")], undefined, {
      rule: exactFiltered,
    });
    expect(report.rows).toEqual([
      { path: "/", other: false, visitors: { value: 8, qualifier: "exact" }, pageviews: { value: 8, qualifier: "exact" } },
      { path: "/pricing", other: false, visitors: { value: 8, qualifier: "exact" }, pageviews: { value: 8, qualifier: "exact" } },
    ]);
    const converted = await filteredPagesReport(db.reader, await scope(db), [f("goal:goal_signup")], undefined, {
      rule: exactFiltered,
    });
    expect(converted.rows.map((r) => [r.path, r.visitors.value])).toEqual([
      ["/", 6],
      ["/pricing", 6],
    ]);
    expect(converted.totals).toEqual({ pageviews: { value: 12, qualifier: "exact" } });
  });
});

describe("filtered timeseries and conversions", () => {
  it("give a point per day, suppressed where the site had visitors but too few matched, exact 0 where it had none", async () => {
    const db = await fresh();
    await seed(db);
    const s = await scope(db, "2026-11-19", DAY2);
    const report = await filteredTimeseriesReport(db.reader, s, [f("country:DE")], "day");
    const day1 = await expected(db, de, 20);
    const day2 = await expected(db, later, 6);
    const all = await expected(db, [...de, ...later], 26);
    const conv = await expected(db, deGoogle.slice(0, 6), 6);
    expect(report.points.map((p) => [p.local, p.visitors, p.pageviews, p.conversions])).toEqual([
      ["2026-11-19", { value: 0, qualifier: "exact" }, { value: 0, qualifier: "exact" }, { value: 0, qualifier: "exact" }],
      [DAY, day1.units, day1.events, conv.events],
      [DAY2, day2.units, day2.events, hidden],
    ]);
    expect(report.totals).toEqual({ visitors: all.units, pageviews: all.events, conversions: conv.events });
    const fr = await filteredTimeseriesReport(db.reader, s, [f("country:FR"), f("page:/pricing")], "day");
    expect(fr.points.map((p) => p.visitors)).toEqual([{ value: 0, qualifier: "exact" }, hidden, hidden]);
  });

  it("read a conversions report of the filtered visitors: the rate's denominator is their own cell", async () => {
    const db = await fresh();
    await seed(db);
    const report = await filteredConversionsReport(db.reader, await scope(db), [f("source:Google")], { rule: exactFiltered });
    expect(report.rows).toEqual([
      {
        goal: { id: "goal_signup", name: "Signup", kind: "event" },
        conversions: { value: 6, qualifier: "exact" },
        converting_sessions: { value: 6, qualifier: "exact" },
        sessions: { value: 15, qualifier: "exact" },
        rate: { value: 0.4, qualifier: "exact" },
      },
    ]);
  });
});

describe("filtered vitals, funnels and hours", () => {
  it("read the vitals of the filtered visitors only: samples, shares and p75 from their own samples", async () => {
    const db = await fresh();
    await seed(db);
    // Every DE session sends an LCP on "/": the Google ones 1.2 s, the Bing ones 5 s; FR 3 s.
    await addVitals(db.client, [
      ...de.map((session, i) => ({
        site: SITE,
        session,
        path: "/",
        metric: "LCP",
        value: i < 8 ? 1200 : 5000,
        ts: at(DAY, 10, 2),
      })),
      ...fr.map((session) => ({ site: SITE, session, path: "/", metric: "LCP", value: 3000, ts: at(DAY, 10, 2) })),
    ]);
    await catchUp(db.client as never);
    const rows = await filteredVitalsReport(db.reader, await scope(db), [f("country:DE")], {}, { rule: exactFiltered });
    expect(rows.map((r) => [r.path, r.metric, r.samples, r.good, r.poor])).toEqual([
      ["/", "LCP", { value: 12, qualifier: "exact" }, { value: 0.6667, qualifier: "estimated" }, hidden],
    ]);
    // The rank (the 9th of 12 samples) lies in the 5 s bucket, which holds 4 sessions' samples: no block
    // around it up to the widest holds k sessions' alone, so p75 is hidden, range and all.
    expect([rows[0]!.p75, rows[0]!.p75_low, rows[0]!.p75_high]).toEqual([hidden, hidden, hidden]);
    const all = await filteredVitalsReport(db.reader, await scope(db), [f("source:Google")], {}, { rule: exactFiltered });
    expect(all.map((r) => r.samples.value)).toEqual([15]);
    expect(all[0]!.good).toEqual({ value: 0.5333, qualifier: "estimated" });
    // 8 samples at 1.2 s, 7 at 3 s: the rank (11.25th) lies in the 3 s bucket, 7 sessions' samples: a value.
    const { p75, p75_low, p75_high } = all[0]!;
    expect(p75.qualifier).toBe("estimated");
    expect(p75_low.value! <= 3000 && 3000 <= p75_high.value!).toBe(true);
    expect(p75_low.value! <= p75.value! && p75.value! <= p75_high.value!).toBe(true);
  });

  it("show p75 as a range when the rank's bucket alone holds fewer than k sessions but its block of two holds k", async () => {
    const db = await fresh();
    await seed(db);
    // An odd bucket r near 5 s and its block mate r − 1: 6 DE sessions at 1.2 s, 2 at r − 1's top, 4 at r's top.
    // The rank (9th of 12) lies in r: 4 sessions (< k), with r − 1 6 sessions: level 1, a range without a value.
    const edges = BUCKET_EDGES.LCP;
    const near = edges.findIndex((e) => e >= 5000);
    const r = near % 2 === 1 ? near : near + 1;
    const valueOf = (i: number) => (i < 6 ? 1200 : i < 8 ? edges[r - 1]! : edges[r]!);
    await addVitals(
      db.client,
      de.map((session, i) => ({ site: SITE, session, path: "/", metric: "LCP", value: valueOf(i), ts: at(DAY, 10, 2) })),
    );
    await catchUp(db.client as never);
    const [row] = await filteredVitalsReport(db.reader, await scope(db), [f("country:DE")], {}, { rule: exactFiltered });
    expect([row!.samples, row!.p75, row!.p75_low, row!.p75_high]).toEqual([
      { value: 12, qualifier: "exact" },
      hidden,
      { value: Math.round(bucketBounds("LCP", r - 1).lower), qualifier: "estimated" },
      { value: Math.round(bucketBounds("LCP", r).upper), qualifier: "estimated" },
    ]);
  });

  it("count a funnel's steps among the filtered visitors, in the order of each session's first completions", async () => {
    const db = await fresh();
    await seed(db);
    await addGoal(db.client, SITE, "goal_buy", "Buy");
    // 5 of the 6 converting DE-Google sessions buy after signing up; one buys before (it does not count in step 2).
    await addConversions(db.client, [
      ...deGoogle.slice(0, 5).map((session) => ({ site: SITE, goal: "goal_buy", session, ts: at(DAY, 11) })),
      { site: SITE, goal: "goal_buy", session: deGoogle[5]!, ts: at(DAY, 10, 8) },
    ]);
    await catchUp(db.client as never);
    const steps = await filteredFunnelReport(db.reader, await scope(db), [f("country:DE")], ["goal_signup", "goal_buy"], {
      rule: exactFiltered,
    });
    expect(steps.map((s) => [s.step, s.goal.id, s.sessions, s.dropoff])).toEqual([
      [1, "goal_signup", { value: 6, qualifier: "exact" }, { value: 0, qualifier: "exact" }],
      [2, "goal_buy", { value: 5, qualifier: "exact" }, { value: 1, qualifier: "exact" }],
    ]);
    const fromBing = await filteredFunnelReport(db.reader, await scope(db), [f("source:Bing")], ["goal_signup", "goal_buy"], {
      rule: exactFiltered,
    });
    expect(fromBing.map((s) => s.sessions)).toEqual([hidden, hidden]);
  });

  it("give hourly points of the filtered visitors: each hour's cell, hidden below k", async () => {
    const db = await fresh();
    await seed(db);
    const report = await filteredTimeseriesReport(db.reader, await scope(db), [f("country:DE")], "hour", undefined, {
      rule: exactFiltered,
    });
    expect(report.points).toHaveLength(24);
    const shown = report.points.filter((p) => p.visitors.value !== null && p.visitors.value > 0);
    expect(shown.map((p) => [p.local, p.visitors])).toEqual([[`${DAY}T10:00`, { value: 12, qualifier: "exact" }]]);
    // Their pageviews of the hour: "/" for all 12, "/pricing" for the 8 from Google.
    expect(shown.map((p) => p.pageviews)).toEqual([{ value: 20, qualifier: "exact" }]);
    expect(report.points[9]!.visitors).toEqual(hidden); // the site had visitors that day, nobody from DE at 09:00: hidden, not 0
  });
});

describe("the filtered Overview", () => {
  it("compares the filtered visitors of the window since a marker with the window before it", async () => {
    const db = await fresh();
    await seed(db);
    // A marker at 09:30: the current window is 10:00–11:00 (the DAY's traffic), the previous 08:00–09:00 (nobody).
    const windows = overviewWindows("UTC", at(DAY, 9, 30), at(DAY, 11));
    const figures = await filteredOverviewFigures(db.reader, await scope(db), windows, [f("country:DE")], {
      rule: exactFiltered,
    });
    const zero = { value: 0, qualifier: "exact" };
    expect(figures.visitors).toEqual({
      current: { value: 12, qualifier: "exact" },
      previous: zero,
      delta: { absolute: { value: 12, qualifier: "exact" }, relative: null },
    });
    // 12 pageviews of "/" and the 8 DE-Google ones of "/pricing".
    expect(figures.pageviews.current).toEqual({ value: 20, qualifier: "exact" });
    expect(figures.goals.map((g) => [g.goal.id, g.converting_sessions.current, g.conversions.current, g.rate.current])).toEqual([
      ["goal_signup", { value: 6, qualifier: "exact" }, { value: 6, qualifier: "exact" }, { value: 0.5, qualifier: "exact" }],
    ]);
    // From France: 7, and none converted (the site had visitors: hidden, not 0).
    const fr = await filteredOverviewFigures(db.reader, await scope(db), windows, [f("country:FR")], { rule: exactFiltered });
    expect(fr.visitors.current).toEqual({ value: 7, qualifier: "exact" });
    expect(fr.goals[0]!.converting_sessions.current).toEqual(hidden);
  });

  it("refuses filters a later pageview of the running day can change: page, goal, exit page", () => {
    for (const text of ["page:/pricing", "goal:goal_signup", "exit_page:/"]) {
      expect(() => refuseMovingFilters([f(text)]), text).toThrow(/filter: .* is not offered on the Overview/);
    }
    expect(() => refuseMovingFilters([f("country:DE"), f("source!:Google")])).not.toThrow();
  });
});
