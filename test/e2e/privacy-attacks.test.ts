/**
 * The differencing attacks of the privacy issue, against the real stack (`wren start`: the
 * collector, the api, the publisher, the embedded libSQL server), each refused:
 *  1. a time-zone change re-cutting published days (11 − 10 = 1 session in one hour);
 *  2. late data changing a published day, read twice (backdated conversions);
 *  3. sybils: a client pads a small group over k with sessions of its own and subtracts them.
 * Attacks 7 (the sessions list) and 8 (polling the verification) are in privacy-sessions.test.ts,
 * attack 9 (raw event ids) in privacy-event-keys.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOISE_KEY_SQL, noiseKeyOf, shownCounts } from "../../worker/reports/noise";
import { lastCompleteDay } from "../../worker/reports/period";
import { addDays } from "../../worker/reports/timezone";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { waitForPublication } from "../helpers/stack";
import { addConversions, addEvents, sessions } from "../reports/helpers";
import { BROWSER_UA } from "../collector/helpers";

const Y = lastCompleteDay("UTC", Date.now());
const atY = (hour: number, minute = 0) => Date.parse(`${Y}T${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:00Z`);

let f: ApiFixture;
beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
}, 120_000);
afterAll(async () => {
  await f?.close();
});


describe("attack 1: a time-zone change", () => {
  it("is refused once a day is published, and the published days read as before", async () => {
    const site = (await f.makeSite("zone-attack.example")).id;
    const fresh = (await f.makeSite("zone-fresh.example")).id;
    // 10 sessions before 23:00 UTC, one more between 23:00 and 24:00: UTC and Berlin days differ by it.
    await f.seedHistory((history) =>
      addEvents(history, [
        ...sessions("z", 10).map((session) => ({ site, session, path: "/", ts: atY(12) })),
        { site, session: "z-late-evening", path: "/", ts: atY(23, 30) },
      ]),
    );
    const read = () => f.admin("GET", `/api/v1/timeseries?site=${site}&period=7d`);
    const before = await read();
    expect(before.status, before.text).toBe(200);

    const patch = await f.admin("PATCH", `/api/v1/sites/${site}`, { timezone: "Europe/Berlin" });
    expect(patch.status, patch.text).toBe(409);
    expect(patch.headers.get("content-type")).toBe("application/problem+json");
    expect(patch.body.field).toBe("timezone");
    expect((await f.admin("GET", `/api/v1/sites/${site}`)).body.timezone).toBe("UTC");
    expect((await read()).body).toEqual(before.body);
    // A site with nothing published yet may still choose its zone.
    const ok = await f.admin("PATCH", `/api/v1/sites/${fresh}`, { timezone: "Europe/Berlin" });
    expect([ok.status, ok.body.timezone]).toEqual([200, "Europe/Berlin"]);
  }, 120_000);
});

describe("attack 2: late data and re-reading", () => {
  it("a backdated conversion leaves the published day as it was and counts on the first day not yet published", async () => {
    const site = (await f.makeSite("late-attack.example")).id;
    const goal = (await f.makeGoal(site, { name: "Bought", kind: "event", match: "buy" })).id;
    await f.seedHistory(async (history) => {
      const s = sessions("b", 10);
      await addEvents(history, s.map((session) => ({ site, session, path: "/", ts: atY(10) })));
      await addConversions(history, s.slice(0, 5).map((session) => ({ site, goal, session, ts: atY(11) })));
    });
    const reads = () =>
      Promise.all([
        f.admin("GET", `/api/v1/conversions?site=${site}&period=day`),
        f.admin("GET", `/api/v1/timeseries?site=${site}&period=day&interval=hour`),
      ]).then((rs) => rs.map((r) => r.body));
    const before = await reads();
    expect(before[0].rows[0].conversions.qualifier).toBe("estimated");

    // Three conversions replayed with a timestamp of yesterday, inside the 24-hour window.
    const stamp = Math.max(atY(0), Date.now() - 24 * 3_600_000 + 10 * 60_000);
    for (let i = 0; i < 3; i++) {
      const res = await f.admin("POST", "/api/v1/events", { site, goal_id: goal, id: `late-${i}`, timestamp: stamp });
      expect(res.status, res.text).toBe(202);
    }
    await waitForPublication(f.stack.url);
    expect(await reads()).toEqual(before);
    const cells = await f.database().execute({ sql: "SELECT day, units FROM rollup_goal_day WHERE site_id = ? ORDER BY day", args: [site] });
    expect(cells.rows.map((r) => [r.day, Number(r.units)])).toEqual([
      [Y, 5],
      [addDays(Y, 1), 3],
    ]);
  }, 120_000);
});

describe("attack 3: sybils", () => {
  it("padding a small group with known sessions and subtracting them does not give the victims' number", async () => {
    const trials = 12;
    const sites: string[] = [];
    for (let t = 0; t < trials; t++) {
      const domain = `sybil-${t}.example`;
      const site = (await f.makeSite(domain)).id;
      sites.push(site);
      const beacon = (session: string, path: string) =>
        fetch(`${f.stack.url}/e`, {
          method: "POST",
          // The attacker forges the Origin of the site and a browser's User-Agent.
          headers: { "content-type": "text/plain", origin: `https://${domain}`, "user-agent": BROWSER_UA },
          body: JSON.stringify({ site, session: `${session}-${t}-abcdefghij`, events: [{ type: "pageview", path }] }),
        }).then((r) => expect(r.status).toBe(202));
      for (let i = 0; i < 10; i++) await beacon(`visitor-${i}`, "/home");
      // Two victims read /secret; the attacker adds three sessions of its own.
      for (const who of ["victim-a", "victim-b", "sybil-1", "sybil-2", "sybil-3"]) await beacon(who, "/secret");
    }
    // What came in today through the real collector, moved to yesterday so a report can read it.
    await f.rewindDays(1);
    const client = f.database();
    const guesses: number[] = [];
    const key = noiseKeyOf((await client.execute(NOISE_KEY_SQL)).rows[0] as never);
    for (const site of sites) {
      const res = await f.admin("GET", `/api/v1/pages?site=${site}&period=day&page=/secret`);
      expect(res.status, res.text).toBe(200);
      const secret = res.body.rows[0].visitors;
      const cell = await client.execute({ sql: "SELECT visitors, key_sum FROM rollup_page_day WHERE site_id = ? AND path = '/secret'", args: [site] });
      // The true count is 5; what is shown is its perturbation by the cell's key sum.
      expect(Number(cell.rows[0]!.visitors)).toBe(5);
      const perturbed = shownCounts({ units: 5, events: 0, keySum: Number(cell.rows[0]!.key_sum) }, key, 5, false).units;
      expect(secret).toEqual({ value: perturbed, qualifier: "estimated" });
      guesses.push(secret.value - 3);
    }
    // Without noise every guess is 2. With it (−5 … +5, never below k, docs/reports.md "Noise"),
    // 5 true sessions read 5 to 10: the guess is 2 to 7, right about 66 % of the time (that the
    // cell is shown already says "at least 2 victims"; the noise hides how many more).
    expect(Math.min(...guesses)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...guesses)).toBeLessThanOrEqual(7);
  }, 180_000);
});
