/**
 * The rollups: folding in pieces, in small chunks or concurrently gives exactly what one fold
 * of everything gives (nothing counted twice or lost); local days and hours follow the
 * site's time zone, DST included; a site's rollups can be rebuilt after its zone changes.
 */
import { createClient, type Client } from "@libsql/client";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startHranaServer } from "../../server/hrana/index";
import { pagesReport } from "../../worker/reports/pages";
import { unitKey } from "../../worker/reports/noise";
import { catchUp, rebuildSiteRollups, ROLLUP_TABLES } from "../../worker/reports/rollup";
import { timeseriesReport } from "../../worker/reports/timeseries";
import {
  addConversions,
  addEvents,
  addGoal,
  addSite,
  addVitals,
  openTestDb,
  type RawConversion,
  type RawEvent,
  type RawVital,
  type TestDb,
} from "./helpers";

const open: TestDb[] = [];
async function fresh(): Promise<TestDb> {
  const db = await openTestDb();
  open.push(db);
  return db;
}
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

/**
 * Every rollup row, without the units tables' ids, sorted: what two folds must agree on. A
 * sessionless row's unit names its raw row id, which depends on the order rows were written in.
 */
async function snapshot(client: Client): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of ROLLUP_TABLES) {
    if (table === "rollup_dimension_scratch") continue; // a fold's scratch
    const rs = await client.execute(`SELECT * FROM ${table}`);
    const value = (v: unknown) => (typeof v === "string" && /^[ecv]:\d+$/.test(v) ? `${v[0]}:…` : v);
    // Key sums depend on each database's secret (and sessionless units' row ids): checked by keySumsHold.
    out[table] = rs.rows.map((r) => JSON.stringify(rs.columns.filter((c) => !["id", "key_sum", "first_pageview_id", "last_pageview_id", ...ENGAGEMENT_KEYS].includes(c)).map((c) => value(r[c])))).sort();
  }
  return out;
}

/** The engagement rows' key columns (reports/engagement-fold.ts): checked by keySumMismatches too. */
const ENGAGEMENT_KEYS = ["unit_key", "visits_key_sum", "bounce_key_sum"];

/** Cells whose key sum is not the sum of their units' keys (noise.ts), computed here in TypeScript. */
async function keySumMismatches(client: Client): Promise<string[]> {
  const secret = Number((await client.execute("SELECT secret FROM rollup_cell_key")).rows[0]!.secret);
  const families: [string, string, string[]][] = [
    ["rollup_site_day", "rollup_site_day_units", ["site_id", "day"]],
    ["rollup_site_hour", "rollup_site_hour_units", ["site_id", "hour"]],
    ["rollup_page_day", "rollup_page_day_units", ["site_id", "day", "path"]],
    ["rollup_goal_day", "rollup_goal_day_units", ["site_id", "goal_id", "day"]],
    ["rollup_goal_hour", "rollup_goal_hour_units", ["site_id", "goal_id", "hour"]],
    ["rollup_vital_day", "rollup_vital_day_units", ["site_id", "day", "path", "metric"]],
  ];
  const wrong: string[] = [];
  for (const [cells, units, key] of families) {
    const sums = new Map<string, number>();
    for (const r of (await client.execute(`SELECT ${key.join(", ")}, unit FROM ${units}`)).rows) {
      const id = key.map((c) => String(r[c])).join("|");
      sums.set(id, (sums.get(id) ?? 0) + unitKey(String(r.unit), secret));
    }
    const rows = (await client.execute(`SELECT ${key.join(", ")}, key_sum FROM ${cells}`)).rows;
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      const id = key.map((c) => String(r[c])).join("|");
      if (Number(r.key_sum) !== (sums.get(id) ?? 0)) wrong.push(`${cells} ${id}: ${Number(r.key_sum)} ≠ ${sums.get(id)}`);
    }
  }
  // Session-days' unit keys, and the site-days' engagement key sums over their session-days.
  const days = new Map<string, { visits: number; bounces: number }>();
  for (const r of (await client.execute("SELECT site_id, day, unit, unit_key, pageviews FROM rollup_session_day")).rows) {
    const key = unitKey(String(r.unit), secret);
    if (Number(r.unit_key) !== key) wrong.push(`rollup_session_day ${String(r.unit)}: ${Number(r.unit_key)} ≠ ${key}`);
    const id = `${String(r.site_id)}|${String(r.day)}`;
    const sums = days.get(id) ?? { visits: 0, bounces: 0 };
    days.set(id, { visits: sums.visits + key, bounces: sums.bounces + (Number(r.pageviews) === 1 ? key : 0) });
  }
  for (const r of (await client.execute("SELECT site_id, day, visits_key_sum, bounce_key_sum FROM rollup_engagement_day")).rows) {
    const sums = days.get(`${String(r.site_id)}|${String(r.day)}`);
    if (Number(r.visits_key_sum) !== sums?.visits || Number(r.bounce_key_sum) !== sums.bounces)
      wrong.push(`rollup_engagement_day ${String(r.day)}`);
  }
  return wrong;
}

/** A deterministic mess: 3 sites, 2 zones, 40 sessions over 3 days, goals, vitals, sessionless rows. */
function data(): { events: RawEvent[]; conversions: RawConversion[]; vitals: RawVital[] } {
  const events: RawEvent[] = [];
  const conversions: RawConversion[] = [];
  const vitals: RawVital[] = [];
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  for (let i = 0; i < 40; i++) {
    const site = ["site_a", "site_b", "site_c"][i % 3]!;
    const start = Date.parse("2026-11-02T00:00:00Z") + rand(3 * 86_400_000);
    const session = rand(10) === 0 ? null : `s${i}`;
    for (let j = 0; j < 1 + rand(4); j++) {
      const ts = start + j * 600_000;
      events.push({
        site,
        session,
        path: `/p${rand(4)}`,
        ts,
        kind: (["pageview", "pageview", "event", "engagement"] as const)[rand(4)],
      });
      if (rand(3) === 0)
        conversions.push({ site, goal: `goal_${site}_${rand(2)}`, session: rand(5) === 0 ? null : session, ts: ts + 1000 });
      if (rand(2) === 0)
        vitals.push({
          site,
          session,
          path: `/p${rand(4)}`,
          metric: ["LCP", "INP", "CLS", "FCP", "TTFB"][rand(5)]!,
          value: rand(5000) / (rand(2) ? 1 : 1000),
          ts,
        });
    }
  }
  return { events, conversions, vitals };
}

async function seedSites(client: Client): Promise<void> {
  await addSite(client, "site_a");
  await addSite(client, "site_b", "Europe/Berlin");
  await addSite(client, "site_c", "Asia/Kolkata");
  for (const site of ["site_a", "site_b", "site_c"]) for (const g of [0, 1]) await addGoal(client, site, `goal_${site}_${g}`);
}

async function loadAll(client: Client, d: ReturnType<typeof data>, parts = 1, fold?: () => Promise<unknown>): Promise<void> {
  for (let p = 0; p < parts; p++) {
    const slice = <T>(rows: T[]) => rows.filter((_, i) => i % parts === p);
    await addEvents(client, slice(d.events));
    await addConversions(client, slice(d.conversions));
    await addVitals(client, slice(d.vitals));
    await fold?.();
  }
}

describe("catch-up", () => {
  it("folds the same rollups in one go, in pieces between writes, and in tiny chunks", async () => {
    const d = data();
    const once = await fresh();
    await seedSites(once.client);
    await loadAll(once.client, d);
    const folded = await catchUp(once.client as never);
    expect(folded).toBe(d.events.length + d.conversions.length + d.vitals.length);
    const expected = await snapshot(once.client);
    expect(expected.rollup_page_day!.length).toBeGreaterThan(10);
    expect(await keySumMismatches(once.client)).toEqual([]);

    const pieces = await fresh();
    await seedSites(pieces.client);
    await loadAll(pieces.client, d, 5, () => catchUp(pieces.client as never));
    expect(await snapshot(pieces.client)).toEqual(expected);

    const chunks = await fresh();
    await seedSites(chunks.client);
    await loadAll(chunks.client, d);
    expect(await catchUp(chunks.client as never, 7)).toBe(folded);
    expect(await snapshot(chunks.client)).toEqual(expected);
    expect(await keySumMismatches(chunks.client)).toEqual([]);
    // Nothing left: a second catch-up folds nothing.
    expect(await catchUp(chunks.client as never)).toBe(0);
  });

  it("never counts twice when catch-ups race through the libSQL server", async () => {
    const d = data();
    const reference = await fresh();
    await seedSites(reference.client);
    await loadAll(reference.client, d);
    await catchUp(reference.client as never);

    const db = await fresh();
    await seedSites(db.client);
    const server = await startHranaServer({ file: join(db.dir, "wren.db"), port: 0, authToken: "" });
    const clients = Array.from({ length: 4 }, () => createClient({ url: server.url }));
    try {
      // Writers and folders interleave: 5 slices written while 4 clients keep catching up.
      await loadAll(db.client, d, 5, () => Promise.all(clients.map((c) => catchUp(c as never, 11))));
      await Promise.all(clients.map((c) => catchUp(c as never)));
      expect(await snapshot(db.client)).toEqual(await snapshot(reference.client));
    } finally {
      for (const c of clients) c.close();
      await server.close();
    }
  });

  it("skips rows of a site that no longer exists", async () => {
    const db = await fresh();
    await addSite(db.client, "site_a");
    // Foreign-key enforcement varies between Hrana servers: rows may outlive their site.
    await db.client.execute("PRAGMA foreign_keys = OFF");
    await addEvents(db.client, [{ site: "site_gone", session: "x", path: "/", ts: Date.parse("2026-11-02T12:00:00Z") }]);
    expect(await catchUp(db.client as never)).toBe(1);
    expect((await snapshot(db.client)).rollup_site_day).toEqual([]);
  });
});

describe("time zones", () => {
  it("cuts days and hours in the site's zone, half-hour offsets included", async () => {
    const db = await fresh();
    await addSite(db.client, "site_in", "Asia/Kolkata");
    // 19:00 UTC is 00:30 on the next day in India; 18:00 UTC is 23:30 the same day.
    await addEvents(db.client, [
      { site: "site_in", session: "a", path: "/", ts: Date.parse("2026-11-02T19:00:00Z") },
      { site: "site_in", session: "b", path: "/", ts: Date.parse("2026-11-02T18:00:00Z") },
    ]);
    await catchUp(db.client as never);
    expect(
      (await db.client.execute("SELECT day, hour, visitors FROM rollup_site_hour ORDER BY hour")).rows.map((r) => [
        r.day,
        new Date(Number(r.hour)).toISOString(),
        r.visitors,
      ]),
    ).toEqual([
      ["2026-11-02", "2026-11-02T17:30:00.000Z", 1],
      ["2026-11-03", "2026-11-02T18:30:00.000Z", 1],
    ]);
    const report = await timeseriesReport(
      db.reader,
      { siteId: "site_in", from: "2026-11-03", to: "2026-11-03", timeZone: "Asia/Kolkata", k: 1 },
      "hour",
    );
    expect(report.points[0]).toMatchObject({
      start: "2026-11-02T18:30:00.000Z",
      local: "2026-11-03T00:00",
      visitors: { value: 1, qualifier: "exact" },
    });
  });

  it("gives the day DST ends 25 local hours, the repeated hour twice", async () => {
    const db = await fresh();
    await addSite(db.client, "site_de", "Europe/Berlin");
    // 2026-10-25: clocks go back from 03:00 CEST to 02:00 CET. 00:30 UTC = 02:30 CEST, 01:30 UTC = 02:30 CET.
    await addEvents(db.client, [
      { site: "site_de", session: "a", path: "/", ts: Date.parse("2026-10-25T00:30:00Z") },
      { site: "site_de", session: "b", path: "/", ts: Date.parse("2026-10-25T01:30:00Z") },
      { site: "site_de", session: "c", path: "/", ts: Date.parse("2026-10-25T01:40:00Z") },
    ]);
    await catchUp(db.client as never);
    const report = await timeseriesReport(
      db.reader,
      { siteId: "site_de", from: "2026-10-25", to: "2026-10-25", timeZone: "Europe/Berlin", k: 1 },
      "hour",
    );
    expect(report.points).toHaveLength(25);
    expect(report.points[0]!.start).toBe("2026-10-24T22:00:00.000Z");
    expect(report.points.filter((p) => p.local === "2026-10-25T02:00").map((p) => [p.start, p.visitors.value])).toEqual([
      ["2026-10-25T00:00:00.000Z", 1],
      ["2026-10-25T01:00:00.000Z", 2],
    ]);
  });

  it("rebuilds a site's rollups in its new zone", async () => {
    const db = await fresh();
    await addSite(db.client, "site_move");
    await addEvents(db.client, [{ site: "site_move", session: "a", path: "/", ts: Date.parse("2026-11-02T20:00:00Z") }]);
    await catchUp(db.client as never);
    const scope = (from: string, timeZone: string) => ({ siteId: "site_move", from, to: from, timeZone, k: 1 });
    expect((await pagesReport(db.reader, scope("2026-11-02", "UTC"))).rows).toHaveLength(1);

    await db.client.execute("UPDATE sites SET timezone = 'Asia/Tokyo' WHERE id = 'site_move'");
    await rebuildSiteRollups(db.client as never, "site_move");
    // 20:00 UTC is 05:00 the next day in Tokyo.
    expect((await pagesReport(db.reader, scope("2026-11-02", "Asia/Tokyo"))).rows).toEqual([]);
    expect((await pagesReport(db.reader, scope("2026-11-03", "Asia/Tokyo"))).rows).toEqual([
      { path: "/", other: false, visitors: { value: 1, qualifier: "exact" }, pageviews: { value: 1, qualifier: "exact" } },
    ]);
    // Later rows fold in the new zone too.
    await addEvents(db.client, [{ site: "site_move", session: "b", path: "/", ts: Date.parse("2026-11-02T20:30:00Z") }]);
    await catchUp(db.client as never);
    expect((await pagesReport(db.reader, scope("2026-11-03", "Asia/Tokyo"))).rows[0]!.visitors).toEqual({
      value: 2,
      qualifier: "exact",
    });
  });
});
