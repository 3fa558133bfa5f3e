/**
 * The filtered reports (reports/explore, rule F in privacy/filtered.ts; docs/reports.md
 * "Filters"): the session-days matching every filter, grouped, each cell hidden below k (true or
 * perturbed) and shown as its perturbed counts, computed here from the database's own secrets.
 */
import { describe, expect, it } from "vitest";
import { filteredBreakdownReport, filteredPagesReport } from "../../worker/reports/explore/tables";
import { filteredConversionsReport, filteredTimeseriesReport } from "../../worker/reports/explore/series";
import type { Filter } from "../../worker/reports/explore/filters";
import { parseFilter } from "../../worker/reports/explore/filters";
import { perturb, shownCounts, unitKey } from "../../worker/reports/noise";
import { exactFiltered } from "../../worker/reports/privacy";
import { catchUp } from "../../worker/reports/rollup";
import type { ReportScope } from "../../worker/reports/scope";
import { addConversions, addEvents, addGoal, at, freshSiteDbs, noiseKey, sessions, type TestDb } from "./helpers";

const SITE = "site_explore";
const fresh = freshSiteDbs(SITE);
const DAY = "2026-11-20";
const DAY2 = "2026-11-21";
const K = 5;
const est = (value: number) => ({ value, qualifier: "estimated" });
const hidden = { value: null, qualifier: "suppressed" };

const f = (text: string): Filter => {
  const parsed = parseFilter(text);
  if ("error" in parsed) throw new Error(parsed.error);
  return parsed;
};

async function scope(db: TestDb, from = DAY, to = DAY): Promise<ReportScope> {
  return { siteId: SITE, from, to, timeZone: "UTC", k: K, noise: true, noiseKey: await noiseKey(db.client) };
}

/** What rule F shows for a cell of these (day, session) units with these events, or null when hidden. */
async function expected(db: TestDb, ids: string[], events: number) {
  const key = await noiseKey(db.client);
  const keySum = ids.reduce((n, id) => n + unitKey(id, key.secret), 0);
  if (ids.length < K || perturb(ids.length, keySum, key) < K) return null;
  const s = shownCounts({ units: ids.length, events, keySum }, key, K, true);
  return { units: est(s.units), events: est(s.events) };
}

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
    const google = (await expected(db, deGoogle, 16))!;
    const bing = await expected(db, de.slice(8), 4);
    const total = (await expected(db, de, 20))!;
    expect(bing).toBeNull(); // 4 sessions: fewer than k
    expect(report.rows).toEqual([
      { value: "Google", other: false, visitors: google.units, pageviews: google.events },
      { value: null, other: true, visitors: hidden, pageviews: hidden },
    ]);
    expect(report.totals).toEqual({ visitors: total.units, pageviews: total.events });
  });

  it("combine filters (AND), `is not` keeps what lacks the value, and a goal's converting sessions per value", async () => {
    const db = await fresh();
    await seed(db);
    const s = await scope(db);
    const report = await filteredBreakdownReport(db.reader, s, [f("source:Google"), f("country!:FR")], "country", "goal_signup");
    const deg = (await expected(db, deGoogle, 16))!;
    const conv = (await expected(db, deGoogle.slice(0, 6), 6))!;
    expect(report.rows).toEqual([
      {
        value: "DE",
        other: false,
        visitors: deg.units,
        pageviews: deg.events,
        converting_sessions: conv.units,
        conversions: conv.events,
        rate: { value: Math.round((conv.units.value / deg.units.value) * 1e4) / 1e4, qualifier: "estimated" },
      },
    ]);
    expect(report.totals).toEqual({
      visitors: deg.units,
      pageviews: deg.events,
      converting_sessions: conv.units,
      conversions: conv.events,
    });
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
    const day1 = (await expected(db, de, 20))!;
    const day2 = (await expected(db, later, 6))!;
    const all = (await expected(db, [...de, ...later], 26))!;
    const conv = (await expected(db, deGoogle.slice(0, 6), 6))!;
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
