/**
 * Retention on the real stack (`wren start`, loopback only) with WREN_RAW_RETENTION_DAYS=2: the
 * publisher deletes folded raw rows and sessions past the period after it publishes, the reports
 * of those days read from the rollups as before, funnels cover the period and refuse older
 * days, and `wren start` refuses a period it cannot keep.
 */
import { createClient } from "@libsql/client";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastCompleteDay } from "../../worker/reports/period";
import { addDays } from "../../worker/reports/timezone";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { startStack } from "../helpers/stack";
import { addConversions, addEvents, sessions } from "../reports/helpers";

const Y = lastCompleteDay("UTC", Date.now());
const OLD = addDays(Y, -5);
const at = (day: string, hour: number) => Date.parse(`${day}T${String(hour).padStart(2, "0")}:00:00Z`);

let f: ApiFixture;
let site: string;
let goals: string[];
beforeAll(async () => {
  f = await apiFixture({ WREN_RAW_RETENTION_DAYS: "2" });
  site = (await f.makeSite("retention.example")).id;
  goals = [(await f.makeGoal(site)).id, (await f.makeGoal(site)).id];
}, 120_000);
afterAll(async () => {
  await f?.stack.stop();
});

async function count(sql: string, args: (string | number)[] = []): Promise<number> {
  const db = createClient({ url: `file:${join(f.stack.dataDir, "wren.db")}` });
  try {
    return Number((await db.execute({ sql, args })).rows[0]!.n);
  } finally {
    db.close();
  }
}

describe("WREN_RAW_RETENTION_DAYS", () => {
  it("the publisher deletes what is past the period once it is folded; reports of those days stay", async () => {
    await f.seedHistory(async (db) => {
      for (const day of [OLD, Y]) {
        const ids = sessions(`${day}-`, 6);
        await addEvents(
          db,
          ids.map((session) => ({ site, session, path: "/", ts: at(day, 10) })),
        );
        await addConversions(db, [
          ...ids.map((session) => ({ site, goal: goals[0]!, session, ts: at(day, 11) })),
          ...ids.map((session) => ({ site, goal: goals[1]!, session, ts: at(day, 12) })),
        ]);
        for (const id of ids) {
          await db.execute({
            sql: "INSERT INTO sessions (id, site_id, first_seen, last_seen, entry_path) VALUES (?, ?, ?, ?, '/')",
            args: [id, site, at(day, 10), at(day, 12)],
          });
        }
      }
    });
    // Retention runs right after the publication that folded the seeded rows.
    const deadline = Date.now() + 30_000;
    while ((await count("SELECT count(*) AS n FROM events WHERE site_id = ? AND ts < ?", [site, at(Y, 0)])) > 0) {
      if (Date.now() > deadline) throw new Error("retention did not delete the old day's events");
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await count("SELECT count(*) AS n FROM conversions WHERE site_id = ? AND ts < ?", [site, at(Y, 0)])).toBe(0);
    expect(await count("SELECT count(*) AS n FROM sessions WHERE site_id = ? AND last_seen < ?", [site, at(Y, 0)])).toBe(0);
    expect(await count("SELECT count(*) AS n FROM rollup_goal_day_units WHERE site_id = ? AND day = ?", [site, OLD])).toBe(0);
    // Yesterday is whole; the old day's cells are kept.
    expect(await count("SELECT count(*) AS n FROM events WHERE site_id = ?", [site])).toBe(6);
    expect(await count("SELECT count(*) AS n FROM rollup_site_day WHERE site_id = ? AND day = ?", [site, OLD])).toBe(1);

    const pages = await f.admin("GET", `/api/v1/pages?site=${site}&date=${OLD}&period=day`);
    expect(pages.status, pages.text).toBe(200);
    expect(pages.body.rows.map((r: { path: string; visitors: { qualifier: string } }) => [r.path, r.visitors.qualifier])).toEqual(
      [["/", "estimated"]],
    );
    const conversions = await f.admin("GET", `/api/v1/conversions?site=${site}&date=${OLD}&period=day`);
    expect(conversions.status, conversions.text).toBe(200);
    expect(conversions.body.rows.every((r: { conversions: { value: number | null } }) => r.conversions.value !== null)).toBe(
      true,
    );
  }, 120_000);

  it("funnels cover the period: yesterday is answered, a day past the period is refused naming the field", async () => {
    const funnel = (query: string) => f.admin("GET", `/api/v1/funnels?site=${site}&goals=${goals.join(",")}&${query}`);
    const yesterday = await funnel("period=day");
    expect(yesterday.status, yesterday.text).toBe(200);
    expect(yesterday.body.steps).toHaveLength(2);
    for (const [query, field] of [
      [`from=${OLD}&to=${Y}`, "from"],
      ["period=7d", "period"],
      [`period=day&date=${OLD}`, "date"],
    ] as const) {
      const refused = await funnel(query);
      expect(refused.status, query).toBe(422);
      expect(refused.headers.get("content-type")).toBe("application/problem+json");
      expect(refused.body.field).toBe(field);
      expect(refused.body.detail).toContain("WREN_RAW_RETENTION_DAYS (2 days)");
    }
  }, 60_000);

  it("is refused at start outside 2–36500 days", async () => {
    const refused = await startStack({ env: { WREN_RAW_RETENTION_DAYS: "1" } }).then(
      async (stack) => (await stack.stop(), null),
      (error: Error) => error.message,
    );
    expect(refused).toContain('WREN_RAW_RETENTION_DAYS must be a whole number of days from 2 to 36500, got "1"');
  }, 120_000);
});
