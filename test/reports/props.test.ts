/**
 * Custom properties in the reports (issue 39): the fold's per-unit rows (rollup_prop_day_units)
 * from the events' props — the same rows however the events arrive and are folded — deleted by
 * retention and with the site; and the engine's `prop:NAME` key and filters, each cell through
 * rule F with its exact perturbed figures, computed here from the database's own secrets.
 */
import type { Client } from "@libsql/client";
import { describe, expect, it } from "vitest";
import { parseFilter } from "../../worker/reports/explore/filters";
import { filteredBreakdownReport, filteredPagesReport } from "../../worker/reports/explore/tables";
import type { Figure } from "../../worker/reports/figures";
import { runQuery } from "../../worker/reports/query/run";
import { queryBody } from "../../worker/reports/query/schema";
import { applyRetention } from "../../worker/reports/retention";
import { catchUp, deleteSiteRollupsStatements } from "../../worker/reports/rollup";
import type { ReportScope } from "../../worker/reports/scope";
import { addGoal, at, filteredExpected, filterOf, freshSiteDbs, noiseKey, sessions, type TestDb } from "./helpers";

const SITE = "site_props";
const fresh = freshSiteDbs(SITE);
const DAY = "2026-11-20";
const K = 5;
const hidden: Figure = { value: null, qualifier: "suppressed" };

const f = filterOf;

interface PropEvent {
  session: string | null;
  kind?: "pageview" | "event";
  path?: string;
  ts: number;
  props?: Record<string, string>;
}

/** Raw events with props, as the collector stores them (collector/rows.ts). */
async function addPropEvents(client: Client, events: PropEvent[]): Promise<void> {
  await client.batch(
    events.map((e) => ({
      sql: "INSERT INTO events (site_id, session_id, kind, name, path, ts, props) VALUES (?, ?, ?, ?, ?, ?, ?)",
      args: [
        SITE,
        e.session,
        e.kind ?? "pageview",
        e.kind === "event" ? "signup" : null,
        e.path ?? "/",
        e.ts,
        e.props ? JSON.stringify(e.props) : null,
      ],
    })),
    "write",
  );
}

const propRows = async (client: Client) =>
  (
    await client.execute("SELECT day, name, value, unit, events FROM rollup_prop_day_units ORDER BY day, unit, name, value")
  ).rows.map((r) => ({
    ...r,
  }));

async function scope(db: TestDb, from = DAY, to = DAY): Promise<ReportScope> {
  return { siteId: SITE, from, to, timeZone: "UTC", k: K, noise: true, noiseKey: await noiseKey(db.client) };
}

/** What rule F shows for a cell of these units with these events (helpers.ts filteredExpected). */
const expected = (db: TestDb, ids: string[], events: number) => filteredExpected(db.client, ids, events, K);

describe("the fold", () => {
  /** Two units, one with two events carrying plan=pro, a pageview and an event each. */
  const events: PropEvent[] = [
    { session: "a", ts: at(DAY, 10, 1), props: { plan: "pro", method: "google" } },
    { session: "a", kind: "event", ts: at(DAY, 10, 2), props: { plan: "pro" } },
    { session: "b", ts: at(DAY, 10, 3) },
    { session: "b", kind: "event", ts: at(DAY, 10, 4), props: { plan: "free" } },
    { session: null, kind: "event", ts: at(DAY, 10, 5), props: { plan: "free" } },
    { session: "a", ts: at("2026-11-21", 0, 30), props: { plan: "pro" } },
  ];
  const want = (eventId: number) => [
    { day: DAY, name: "plan", value: "pro", unit: "a", events: 2 },
    { day: DAY, name: "method", value: "google", unit: "a", events: 1 },
    { day: DAY, name: "plan", value: "free", unit: "b", events: 1 },
    { day: DAY, name: "plan", value: "free", unit: `e:${eventId}`, events: 1 },
    { day: "2026-11-21", name: "plan", value: "pro", unit: "a", events: 1 },
  ];
  const sorted = (list: Record<string, unknown>[]) =>
    [...list].sort((x, y) =>
      JSON.stringify([x.day, x.unit, x.name, x.value]).localeCompare(JSON.stringify([y.day, y.unit, y.name, y.value])),
    );

  it("keeps each unit's values of each day with the events that carried them", async () => {
    const db = await fresh();
    await addPropEvents(db.client, events);
    await catchUp(db.client as never);
    expect(await propRows(db.client)).toEqual(sorted(want(5)));
  });

  it("gives the same rows when the events arrive late, out of order and split across folds", async () => {
    const db = await fresh();
    // Folded one event at a time, the day's last first: every row is added up per key.
    const order = [5, 1, 3, 0, 4, 2];
    for (const i of order) {
      await addPropEvents(db.client, [events[i]!]);
      await catchUp(db.client as never);
    }
    // The id-keyed unit is the sessionless event's own row id: 5th stored here.
    expect(await propRows(db.client)).toEqual(sorted(want(order.indexOf(4) + 1)));
    const again = await fresh();
    await addPropEvents(
      again.client,
      order.map((i) => events[i]!),
    );
    await catchUp(again.client as never, 2);
    expect(await propRows(again.client)).toEqual(await propRows(db.client));
  });

  it("adds a server-to-server conversion's props to its unit, and not a beacon conversion's (its event's are counted)", async () => {
    const db = await fresh();
    const goal = "purchase";
    await addGoal(db.client, SITE, goal);
    await addPropEvents(db.client, [{ session: "a", ts: at(DAY, 10, 1), props: { plan: "pro" } }]);
    const conversion = (session: string | null, source: string, minute: number, props: object) => ({
      sql: "INSERT INTO conversions (site_id, goal_id, session_id, source, ts, props) VALUES (?, ?, ?, ?, ?, ?)",
      args: [SITE, goal, session, source, at(DAY, 11, minute), JSON.stringify(props)],
    });
    await db.client.batch(
      [
        conversion("a", "s2s", 1, { plan: "pro", tier: "gold" }),
        conversion("a", "beacon", 2, { plan: "pro" }),
        conversion(null, "s2s", 3, { plan: "free", seats: 3 }),
      ],
      "write",
    );
    await catchUp(db.client as never);
    expect(await propRows(db.client)).toEqual(
      sorted([
        { day: DAY, name: "plan", value: "pro", unit: "a", events: 2 },
        { day: DAY, name: "tier", value: "gold", unit: "a", events: 1 },
        // A sessionless conversion is a unit of its own; a non-text value is not a label.
        { day: DAY, name: "plan", value: "free", unit: "c:3", events: 1 },
      ]),
    );
  });

  it("are deleted by retention with the other per-session rows, and with the site", async () => {
    const db = await fresh();
    await addPropEvents(db.client, [
      { session: "old", ts: at("2026-09-01", 10), props: { plan: "pro" } },
      { session: "new", ts: at(DAY, 10), props: { plan: "pro" } },
    ]);
    await catchUp(db.client as never);
    const run = await applyRetention(db.client as never, { now: at("2026-11-25"), days: 30 });
    expect(run.deleted.rollup_prop_day_units).toBe(1);
    expect((await propRows(db.client)).map((r) => r.unit)).toEqual(["new"]);
    await db.client.batch(deleteSiteRollupsStatements(SITE), "write");
    expect(await propRows(db.client)).toEqual([]);
  });
});

/**
 * DAY: 9 sessions with plan=pro (pageview props, 2 events each: a pageview and an event), 3
 * with plan=free (one event), 8 without props. The pro ones and 2 without view /pricing too.
 */
const pro = sessions("pro", 9);
const free = sessions("free", 3);
const none = sessions("none", 8);

async function seed(db: TestDb) {
  await addGoal(db.client, SITE, "goal_signup", "Signup");
  await addPropEvents(db.client, [
    ...pro.flatMap((s): PropEvent[] => [
      { session: s, ts: at(DAY, 10, 1), props: { plan: "pro" } },
      { session: s, kind: "event", ts: at(DAY, 10, 2), props: { plan: "pro" } },
      { session: s, path: "/pricing", ts: at(DAY, 10, 3) },
    ]),
    ...free.map((s): PropEvent => ({ session: s, ts: at(DAY, 10, 1), props: { plan: "free" } })),
    ...none.map((s): PropEvent => ({ session: s, ts: at(DAY, 10, 1) })),
    ...none.slice(0, 2).map((s): PropEvent => ({ session: s, path: "/pricing", ts: at(DAY, 10, 3) })),
  ]);
  await catchUp(db.client as never);
}

describe("the engine's prop:NAME", () => {
  it("breaks visitors down by a property's values: a row per value through rule F, hidden ones in `other`, totals all the units", async () => {
    const db = await fresh();
    await seed(db);
    const report = await filteredBreakdownReport(db.reader, await scope(db), [], "prop:plan");
    const proCell = await expected(db, pro, 18);
    const total = await expected(db, [...pro, ...free, ...none], 9 * 2 + 3 + 8 + 2);
    expect(proCell.shown).toBe(true);
    expect(report.rows).toEqual([
      { value: "pro", other: false, visitors: proCell.units, pageviews: proCell.events },
      // plan=free: 3 sessions, fewer than k: no label.
      { value: null, other: true, visitors: hidden, pageviews: hidden },
    ]);
    expect(report.totals).toEqual({ visitors: total.units, pageviews: total.events });
  });

  it("filters on a value (is, is not) in every report the engine answers", async () => {
    const db = await fresh();
    await seed(db);
    const s = await scope(db);
    const pages = await filteredPagesReport(db.reader, s, [f("prop:plan:pro")]);
    const home = await expected(db, pro, 9);
    const pricing = await expected(db, pro, 9);
    expect(pages.rows).toEqual([
      ...(home.shown ? [{ path: "/", other: false, visitors: home.units, pageviews: home.events }] : []),
      ...(pricing.shown ? [{ path: "/pricing", other: false, visitors: pricing.units, pageviews: pricing.events }] : []),
    ]);
    // `is not` keeps the units without the value, those without any value included: 3 free + 8 none.
    const not = await filteredPagesReport(db.reader, s, [f("prop:plan!:pro")]);
    const rest = await expected(db, [...free, ...none], 11);
    expect(not.rows[0]).toEqual(
      rest.shown ? { path: "/", other: false, visitors: rest.units, pageviews: rest.events } : expect.anything(),
    );
    expect(not.rows.some((r) => r.path === "/pricing")).toBe(false); // 2 sessions: hidden
  });

  it("answers event:props:NAME in the query API, as a dimension and as a filter", async () => {
    const db = await fresh();
    await seed(db);
    const s = await scope(db);
    const body = queryBody.parse({
      site_id: SITE,
      metrics: ["visitors", "events"],
      date_range: "day",
      dimensions: ["event:props:plan"],
    });
    const result = await runQuery(db.reader, s, body);
    const proCell = await expected(db, pro, 18);
    expect(result.rows).toEqual([
      {
        dimensions: ["pro"],
        metrics: [proCell.units.value, proCell.events.value],
        qualifiers: ["estimated", "estimated"],
        other: false,
      },
    ]);
    expect(result.hidden).toBe(true);
    const filtered = queryBody.parse({
      site_id: SITE,
      metrics: ["visitors"],
      date_range: "day",
      dimensions: ["event:page"],
      filters: [["is", "event:props:plan", ["pro"]]],
    });
    const byPage = await runQuery(db.reader, s, filtered);
    expect(byPage.rows.map((r) => [r.dimensions[0], r.metrics[0]])).toEqual([
      ["/", (await expected(db, pro, 9)).units.value],
      ["/pricing", (await expected(db, pro, 9)).units.value],
    ]);
    // A name off the pattern is no dimension; pageviews are not counted per property value (its events are).
    expect(() =>
      queryBody.parse({ site_id: SITE, metrics: ["visitors"], date_range: "day", dimensions: ["event:props:bad name"] }),
    ).toThrow();
    await expect(runQuery(db.reader, s, queryBody.parse({ ...body, metrics: ["pageviews"] }))).rejects.toMatchObject({
      status: 422,
    });
  });

  it("reads a filter's name up to its first `:` and refuses a malformed one", () => {
    expect(parseFilter("prop:plan:pro:max")).toEqual({ dimension: "prop:plan", negated: false, value: "pro:max" });
    expect(parseFilter("prop:plan!:pro")).toEqual({ dimension: "prop:plan", negated: true, value: "pro" });
    for (const bad of ["prop:plan", "prop::pro", "prop:bad name:x", "prop:plan:"])
      expect(parseFilter(bad)).toHaveProperty("error");
  });
});
