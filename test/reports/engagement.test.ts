/**
 * The engagement figures (reports/engagement.ts) on a real libSQL database: the fold keeps each
 * session-day's span (first_ts, last_ts, whatever order its pageviews arrive in), its unit key
 * and each unit's pageviews of a page; the figures read exact values through the exact rule and
 * the cell-key-perturbed values through Rule F; retention archives a day's figures before it
 * deletes its session-days, and a period reads exactly the same before and after.
 */
import type { Client } from "@libsql/client";
import { describe, expect, it } from "vitest";
import {
  engagementFigures,
  siteSessionDays,
  type EngagementOptions,
  type EngagementSource,
} from "../../worker/reports/engagement";
import { DURATION_EDGES, durationBucketSql } from "../../worker/reports/histogram";
import { unitKey } from "../../worker/reports/noise";
import { filteredRule } from "../../worker/reports/privacy";
import { exactFiltered } from "../../worker/reports/privacy/filtered";
import { applyRetention } from "../../worker/reports/retention";
import { catchUp } from "../../worker/reports/rollup";
import { addDays } from "../../worker/reports/timezone";
import { addEvents, at, freshSiteDbs, noiseKey, sessions, type RawEvent } from "./helpers";

const SITE = "site_engage";
const fresh = freshSiteDbs(SITE);
const DAY = "2026-11-02";

const pv = (session: string | null, path: string, minute: number, second = 0, day = DAY): RawEvent => ({
  site: SITE,
  session,
  path,
  ts: at(day, 10, minute) + second * 1000,
});

/**
 * One day: "a" views /, then (arriving later, stamped earlier) /pricing, and / again: 3
 * pageviews over 10:01–10:09 (480 s); b0–b3 and a pageview without a session bounce (0 s);
 * c0–c2 view two pages 60 s apart. 9 visits, 5 bounces, 14 pageviews.
 */
async function seedDay(client: Client, day = DAY): Promise<void> {
  await addEvents(client, [pv("a", "/", 5, 0, day)]);
  await catchUp(client as never);
  await addEvents(client, [
    pv("a", "/pricing", 1, 0, day),
    pv("a", "/", 9, 0, day),
    ...sessions("b", 4).map((s) => pv(s, "/", 20, 0, day)),
    pv(null, "/", 21, 0, day),
    ...sessions("c", 3).flatMap((s) => [pv(s, "/", 30, 0, day), pv(s, "/docs", 31, 0, day)]),
  ]);
  await catchUp(client as never);
}

async function secretOf(client: Client): Promise<number> {
  return Number((await client.execute("SELECT secret FROM rollup_cell_key")).rows[0]!.secret);
}

const bucketOf = (seconds: number) => DURATION_EDGES.findIndex((edge) => seconds <= edge);
const VISITS = ["a", ...sessions("b", 4), ...sessions("c", 3)];
const BOUNCES = sessions("b", 4);

describe("the fold", () => {
  it("keeps a session-day's earliest and latest pageview instants, its unit key and each page's pageviews, in any arrival order", async () => {
    const { client } = await fresh();
    await seedDay(client);
    const secret = await secretOf(client);
    const rs = await client.execute({
      sql: "SELECT unit, first_ts, last_ts, unit_key, pageviews FROM rollup_session_day WHERE site_id = ? AND unit IN ('a', 'b0', 'c0') ORDER BY unit",
      args: [SITE],
    });
    expect(rs.rows.map((r) => ({ ...r }))).toEqual([
      { unit: "a", first_ts: at(DAY, 10, 1), last_ts: at(DAY, 10, 9), unit_key: unitKey("a", secret), pageviews: 3 },
      { unit: "b0", first_ts: at(DAY, 10, 20), last_ts: at(DAY, 10, 20), unit_key: unitKey("b0", secret), pageviews: 1 },
      { unit: "c0", first_ts: at(DAY, 10, 30), last_ts: at(DAY, 10, 31), unit_key: unitKey("c0", secret), pageviews: 2 },
    ]);
    const pages = await client.execute({
      sql: "SELECT path, pageviews FROM rollup_page_day_units WHERE site_id = ? AND unit = 'a' ORDER BY path",
      args: [SITE],
    });
    expect(pages.rows.map((r) => ({ ...r }))).toEqual([
      { path: "/", pageviews: 2 },
      { path: "/pricing", pageviews: 1 },
    ]);
    // The site-day's engagement moved with "a" (a bounce after the first fold, 3 pageviews over 480 s after the second).
    const e = await client.execute({ sql: "SELECT * FROM rollup_session_day WHERE unit LIKE 'e:%'", args: [] });
    const keys = (units: string[]) => units.reduce((sum, u) => sum + unitKey(u, secret), 0);
    const bounceKeys = keys([...BOUNCES, String(e.rows[0]!.unit)]);
    const row = await client.execute(
      "SELECT site_id, day, visits, visits_key_sum, pageviews, bounces, bounce_key_sum FROM rollup_engagement_day",
    );
    expect(row.rows.map((r) => ({ ...r }))).toEqual([
      {
        site_id: SITE,
        day: DAY,
        visits: 9,
        visits_key_sum: bounceKeys + keys(["a", ...sessions("c", 3)]),
        pageviews: 14,
        bounces: 5,
        bounce_key_sum: bounceKeys,
      },
    ]);
    const histogram = await client.execute("SELECT bucket, units FROM rollup_duration_histogram ORDER BY bucket");
    expect(histogram.rows.map((r) => [Number(r.bucket), Number(r.units)])).toEqual([
      [0, 5],
      [bucketOf(60), 3],
      [bucketOf(480), 1],
    ]);
  });
});

const options_ = async (client: Client): Promise<EngagementOptions> => ({ k: 3, noiseKey: await noiseKey(client) });

describe("the figures", () => {
  const options = async (client: Client, k: number, exact = true): Promise<EngagementOptions> => ({
    k,
    noiseKey: await noiseKey(client),
    ...(exact ? { rule: exactFiltered } : {}),
  });

  it("read visits, bounces, their rate, views per visit and the median duration exactly without noise", async () => {
    const db = await fresh();
    await seedDay(db.client);
    const figures = await engagementFigures(
      db.reader,
      { sessionDays: siteSessionDays(SITE, DAY, DAY) },
      await options(db.client, 3),
    );
    const x = (value: number) => ({ value, qualifier: "exact" });
    expect(figures).toEqual({
      visits: x(9),
      bounces: x(5),
      bounce_rate: { value: 0.5556, qualifier: "estimated" },
      views_per_visit: { value: 1.56, qualifier: "estimated" },
      // 5 of 9 visits last 0 s: the median's bucket (0 s) alone holds k = 3 visits.
      visit_duration: { value: 0, qualifier: "estimated" },
      visit_duration_low: { value: 0, qualifier: "estimated" },
      visit_duration_high: { value: 0, qualifier: "estimated" },
    });
  });

  it("show the median as the smallest fixed block of k visits, and nothing when visits are hidden", async () => {
    const db = await fresh();
    await seedDay(db.client);
    // k = 6: the 0 s bucket holds 5; blocks of 2…32 buckets add none; 64 buckets (0 s … the 63rd edge) hold all 9.
    const six = await engagementFigures(db.reader, { sessionDays: siteSessionDays(SITE, DAY, DAY) }, await options(db.client, 6));
    expect([six.visit_duration, six.visit_duration_low, six.visit_duration_high]).toEqual([
      { value: null, qualifier: "suppressed" },
      { value: 0, qualifier: "estimated" },
      { value: DURATION_EDGES[63], qualifier: "estimated" },
    ]);
    expect(six.bounces).toEqual({ value: null, qualifier: "suppressed" });
    expect(six.bounce_rate).toEqual({ value: null, qualifier: "suppressed" });
    // k = 10: 9 visits are hidden, and so is everything drawn from them.
    const ten = await engagementFigures(
      db.reader,
      { sessionDays: siteSessionDays(SITE, DAY, DAY) },
      await options(db.client, 10),
    );
    expect(Object.values(ten).every((f) => f.value === null && f.qualifier === "suppressed")).toBe(true);
  });

  it("read exact zeros for a period without a visit, from the session-days and from the site-days alike", async () => {
    const db = await fresh();
    await seedDay(db.client);
    const empty = "2026-11-05";
    const zero = { value: 0, qualifier: "exact" };
    const all = {
      visits: zero,
      bounces: zero,
      bounce_rate: zero,
      views_per_visit: zero,
      visit_duration: zero,
      visit_duration_low: zero,
      visit_duration_high: zero,
    };
    const options = await options_(db.client);
    expect(await engagementFigures(db.reader, { sessionDays: siteSessionDays(SITE, empty, empty) }, options)).toEqual(all);
    expect(await engagementFigures(db.reader, { site: { siteId: SITE, from: empty, to: empty } }, options)).toEqual(all);
  });

  it("perturb visits and bounces by their units' key sums (Rule F), the pageviews with the visits", async () => {
    const db = await fresh();
    await seedDay(db.client);
    const secret = await secretOf(db.client);
    const key = await noiseKey(db.client);
    const e = (await db.client.execute({ sql: "SELECT id FROM events WHERE session_id IS NULL", args: [] })).rows[0]!.id;
    const keys = (units: string[]) => units.reduce((sum, u) => sum + unitKey(u, secret), 0);
    // Rule F's own reading of each cell (privacy/filtered.ts): the noisy threshold can hide one now and then.
    const visits = filteredRule.shown({ units: 9, events: 14, keySum: keys([...VISITS, `e:${String(e)}`]) }, key, 3, true);
    const bounces = filteredRule.shown({ units: 5, events: 0, keySum: keys([...BOUNCES, `e:${String(e)}`]) }, key, 3, false);
    const figures = await engagementFigures(
      db.reader,
      { sessionDays: siteSessionDays(SITE, DAY, DAY) },
      await options(db.client, 3, false),
    );
    if (!visits) return expect(figures.visits).toEqual({ value: null, qualifier: "suppressed" });
    expect(figures.visits).toEqual({ value: visits.units, qualifier: "estimated" });
    expect(figures.views_per_visit).toEqual({
      value: Math.round((visits.events / visits.units) * 100) / 100,
      qualifier: "estimated",
    });
    if (!bounces)
      return expect([figures.bounces, figures.bounce_rate.value]).toEqual([{ value: null, qualifier: "suppressed" }, null]);
    expect(figures.bounces).toEqual({ value: bounces.units, qualifier: "estimated" });
    expect(figures.bounce_rate.value).toBe(Math.round(Math.min(1, bounces.units / visits.units) * 10_000) / 10_000);
  });
});

describe("the duration grid", () => {
  it("puts a duration in SQL in the bucket of its edges: 0 s alone, then (edge before, edge], above the last one bucket", async () => {
    const { client } = await fresh();
    const values = [0, 0.001, 0.5, 1, 1.0001, 1.12, 1.121, 59.99, 60, 3600, 86_399.9, 93_540, 93_541, 200_000];
    const rs = await client.execute(`SELECT ${values.map((v, i) => `${durationBucketSql(String(v))} AS b${i}`).join(", ")}`);
    const expected = values.map((v) => {
      const i = DURATION_EDGES.findIndex((edge) => v <= edge);
      return i < 0 ? DURATION_EDGES.length : i;
    });
    expect(values.map((_, i) => Number(rs.rows[0]![`b${i}`]))).toEqual(expected);
    expect(expected.slice(0, 6)).toEqual([0, 1, 1, 1, 2, 2]);
  });
});

describe("retention", () => {
  it("keeps each day's figures when it deletes its session-days: a period reads exactly the same after, and as its session-days read", async () => {
    const db = await fresh();
    const recent = "2026-12-20";
    await seedDay(db.client);
    await seedDay(db.client, recent);
    const key = await noiseKey(db.client);
    const read = (source: EngagementSource, k: number, exact: boolean) =>
      engagementFigures(db.reader, source, { k, noiseKey: key, ...(exact ? { rule: exactFiltered } : {}) });
    const site: EngagementSource = { site: { siteId: SITE, from: DAY, to: recent } };
    const reads = async (source: EngagementSource) => [
      await read(source, 3, false),
      await read(source, 3, true),
      await read(source, 12, true),
    ];
    const before = await reads(site);
    // The site-days' rows read as their session-days do.
    expect(await reads({ sessionDays: siteSessionDays(SITE, DAY, recent) })).toEqual(before);
    const rows = async () => [
      (await db.client.execute("SELECT * FROM rollup_engagement_day ORDER BY day")).rows.map((r) => ({ ...r })),
      (await db.client.execute("SELECT * FROM rollup_duration_histogram ORDER BY day, bucket")).rows.map((r) => ({ ...r })),
    ];
    const kept = await rows();
    const now = Date.parse(`${addDays(recent, 2)}T00:00:00Z`);
    await applyRetention(db.client as never, { now, days: 30 });
    const left = await db.client.execute({ sql: "SELECT day, count(*) AS n FROM rollup_session_day GROUP BY day", args: [] });
    expect(left.rows.map((r) => ({ ...r }))).toEqual([{ day: recent, n: 9 }]);
    expect(await rows()).toEqual(kept);
    expect(await reads(site)).toEqual(before);
  });

  it("writes a day's figures that are missing before it deletes its session-days, and deletes only days so kept", async () => {
    const db = await fresh();
    await seedDay(db.client);
    const site: EngagementSource = { site: { siteId: SITE, from: DAY, to: DAY } };
    const options = { k: 3, noiseKey: await noiseKey(db.client) };
    const before = await engagementFigures(db.reader, site, options);
    const kept = (await db.client.execute("SELECT * FROM rollup_duration_histogram ORDER BY bucket")).rows.map((r) => ({ ...r }));
    // As a database migrated before the fold kept them might lack them.
    await db.client.batch(["DELETE FROM rollup_engagement_day", "DELETE FROM rollup_duration_histogram"], "write");
    await applyRetention(db.client as never, { now: Date.parse("2026-12-20T00:00:00Z"), days: 30 });
    expect((await db.client.execute("SELECT count(*) AS n FROM rollup_session_day")).rows[0]!.n).toBe(0);
    expect(
      (await db.client.execute("SELECT * FROM rollup_duration_histogram ORDER BY bucket")).rows.map((r) => ({ ...r })),
    ).toEqual(kept);
    expect(await engagementFigures(db.reader, site, options)).toEqual(before);
  });
});
