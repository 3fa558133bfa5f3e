/**
 * The dimension cells (reports/dimension-fold.ts) on a real libSQL database: each session-day
 * counts once under the values of its first pageview that day (the exit page: its last), with
 * its pageviews, and its goals' converting units and conversions; a fold split anywhere gives
 * the same cells; unknown values are in no cell.
 */
import type { Client } from "@libsql/client";
import { describe, expect, it } from "vitest";
import { unitKey } from "../../worker/reports/noise";
import { catchUp, fold } from "../../worker/reports/rollup";
import { addConversions, addEvents, addGoal, at, freshSiteDbs, type RawEvent } from "./helpers";

const SITE = "site_dims";
const fresh = freshSiteDbs(SITE);
const DAY = "2026-11-02";

async function cells(client: Client, dimension: string) {
  const rs = await client.execute({
    sql: "SELECT day, value, visitors, pageviews, key_sum FROM rollup_dimension_day WHERE site_id = ? AND dimension = ? AND visitors <> 0 ORDER BY day, value",
    args: [SITE, dimension],
  });
  return rs.rows.map((r) => ({
    day: r.day,
    value: r.value,
    visitors: Number(r.visitors),
    pageviews: Number(r.pageviews),
    keySum: Number(r.key_sum),
  }));
}

async function goalCells(client: Client, dimension: string) {
  const rs = await client.execute({
    sql: "SELECT goal_id, day, value, units, conversions FROM rollup_goal_dimension_day WHERE site_id = ? AND dimension = ? AND units + conversions <> 0 ORDER BY goal_id, day, value",
    args: [SITE, dimension],
  });
  return rs.rows.map((r) => ({
    goal: r.goal_id,
    day: r.day,
    value: r.value,
    units: Number(r.units),
    conversions: Number(r.conversions),
  }));
}

const pv = (session: string, path: string, minute: number, dims: RawEvent["dims"] = {}, date = DAY): RawEvent => ({
  site: SITE,
  session,
  path,
  ts: at(date, 10, minute),
  dims,
});

const fixture: RawEvent[] = [
  pv("a", "/", 0, { country: "DE", browser: "Chrome 131", source: "Google" }),
  pv("a", "/pricing", 1, { country: "FR", browser: "Firefox 133", source: "Bing" }), // later pageviews do not change entry values
  pv("b", "/blog", 2, { country: "DE", browser: "Firefox 133", source: "Direct / None" }),
  pv("b", "/pricing", 3, { country: "DE", browser: "Firefox 133" }),
  pv("b", "/signup", 4, { country: "DE", browser: "Firefox 133" }),
  pv("c", "/", 5, {}), // no country known
  { site: SITE, session: "d", path: "/", ts: at(DAY, 10, 6), kind: "engagement" }, // no pageview that day: in no cell
];

describe("dimension cells", () => {
  it("count each session-day under its first pageview's values and its last pageview's exit page", async () => {
    const { client } = await fresh();
    await addEvents(client, fixture);
    await catchUp(client as never);
    const secret = Number((await client.execute("SELECT secret FROM rollup_cell_key")).rows[0]!.secret);
    const keys = (...units: string[]) => units.reduce((sum, u) => sum + unitKey(u, secret), 0);
    expect((await cells(client, "country")).map(({ keySum: _k, ...c }) => c)).toEqual([
      { day: DAY, value: "DE", visitors: 2, pageviews: 5 },
    ]);
    expect((await cells(client, "browser")).map(({ keySum: _k, ...c }) => c)).toEqual([
      { day: DAY, value: "Chrome 131", visitors: 1, pageviews: 2 },
      { day: DAY, value: "Firefox 133", visitors: 1, pageviews: 3 },
    ]);
    expect((await cells(client, "entry_page")).map(({ keySum: _k, ...c }) => c)).toEqual([
      { day: DAY, value: "/", visitors: 2, pageviews: 3 },
      { day: DAY, value: "/blog", visitors: 1, pageviews: 3 },
    ]);
    expect((await cells(client, "exit_page")).map(({ keySum: _k, ...c }) => c)).toEqual([
      { day: DAY, value: "/", visitors: 1, pageviews: 1 },
      { day: DAY, value: "/pricing", visitors: 1, pageviews: 2 },
      { day: DAY, value: "/signup", visitors: 1, pageviews: 3 },
    ]);
    // The cells' key sums are their units' keys, as every counted cell's (noise.ts).
    expect((await cells(client, "exit_page")).map((c) => c.keySum)).toEqual([keys("c"), keys("a"), keys("b")]);
    expect((await cells(client, "country")).map((c) => c.keySum)).toEqual([keys("a", "b")]);
  });

  it("give the same cells whichever chunks the pageviews fold in, and move a session's goals with its exit page", async () => {
    const whole = await fresh();
    const split = await fresh();
    for (const db of [whole, split]) await addGoal(db.client, SITE, "goal_signup");
    const conversions = [
      { site: SITE, goal: "goal_signup", session: "b", ts: at(DAY, 10, 4) },
      { site: SITE, goal: "goal_signup", session: "b", ts: at(DAY, 10, 5) },
      { site: SITE, goal: "goal_signup", session: "x", ts: at(DAY, 10, 5) }, // a session without pageviews
      { site: SITE, goal: "goal_signup", session: null, ts: at(DAY, 10, 5) },
    ];
    await addEvents(whole.client, fixture);
    await addConversions(whole.client, conversions);
    await catchUp(whole.client as never);

    // The conversions first, then the pageviews one at a time: every session-day moves as it grows.
    await addConversions(split.client, conversions);
    await catchUp(split.client as never);
    for (const event of fixture) {
      await addEvents(split.client, [event]);
      await fold(split.client as never, { chunkRows: 1 });
    }
    const withoutKeys = async (client: Client, dimension: string) =>
      (await cells(client, dimension)).map(({ keySum: _k, ...c }) => c);
    for (const dimension of ["country", "exit_page", "entry_page", "source"]) {
      expect(await withoutKeys(split.client, dimension)).toEqual(await withoutKeys(whole.client, dimension));
      expect(await goalCells(split.client, dimension)).toEqual(await goalCells(whole.client, dimension));
    }
    expect(await goalCells(whole.client, "exit_page")).toEqual([
      { goal: "goal_signup", day: DAY, value: "/signup", units: 1, conversions: 2 },
    ]);
    expect(await goalCells(whole.client, "country")).toEqual([
      { goal: "goal_signup", day: DAY, value: "DE", units: 1, conversions: 2 },
    ]);
  });
});
