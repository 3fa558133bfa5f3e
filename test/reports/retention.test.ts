/**
 * Retention (worker/reports/retention.ts) on a real libSQL database with an injectable clock:
 * raw rows, sessions and units rows go once folded and past the period, rollups stay, reports
 * of the old days read the same, and idempotency keys go when the event window closes.
 */
import { afterEach, describe, expect, it } from "vitest";
import { applyRetention, retentionDays } from "../../worker/reports/retention";
import { pagesReport } from "../../worker/reports/pages";
import { conversionsReport } from "../../worker/reports/conversions";
import { funnelReport } from "../../worker/reports/funnels";
import { catchUp } from "../../worker/reports/rollup";
import { addConversions, addEvents, addGoal, addSite, at, openTestDb, sessions, type TestDb } from "./helpers";

const SITE = "site_keep";
const DAY = 86_400_000;
let open: TestDb[] = [];
afterEach(() => {
  for (const db of open) db.close();
  open = [];
});

async function count(db: TestDb, table: string): Promise<number> {
  return Number((await db.client.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
}

describe("retention", () => {
  it("reads WREN_RAW_RETENTION_DAYS: whole days of at least 2, else 30", () => {
    expect([retentionDays(undefined), retentionDays(""), retentionDays("7"), retentionDays("1"), retentionDays("2.5")]).toEqual([30, 30, 7, 30, 30]);
  });

  it("deletes folded raw rows, sessions and units rows past the period; rollups, funnel rows and reports stay", async () => {
    const db = await openTestDb();
    open.push(db);
    await addSite(db.client, SITE);
    await addGoal(db.client, SITE, "goal_a");
    await addGoal(db.client, SITE, "goal_b");
    const old = sessions("old", 6);
    await addEvents(db.client, old.map((session) => ({ site: SITE, session, path: "/", ts: at("2026-10-01", 10) })));
    await addConversions(db.client, [
      ...old.map((session) => ({ site: SITE, goal: "goal_a", session, ts: at("2026-10-01", 11) })),
      ...old.map((session) => ({ site: SITE, goal: "goal_b", session, ts: at("2026-10-01", 12) })),
    ]);
    await db.client.execute({
      sql: "INSERT INTO sessions (id, site_id, first_seen, last_seen, entry_path, pageviews) VALUES ('old0', ?, ?, ?, '/', 1), ('new0', ?, ?, ?, '/', 1)",
      args: [SITE, at("2026-10-01", 10), at("2026-10-01", 10), SITE, at("2026-11-02", 10), at("2026-11-02", 10)],
    });
    await catchUp(db.client as never);
    // A row not yet folded is kept, however old its stamp.
    await addEvents(db.client, [{ site: SITE, session: "unfolded", path: "/", ts: at("2026-10-01", 13) }]);
    await addEvents(db.client, [{ site: SITE, session: "recent", path: "/", ts: at("2026-11-02", 10) }]);

    const scope = { siteId: SITE, from: "2026-10-01", to: "2026-10-01", timeZone: "UTC", k: 5 };
    const before = [await pagesReport(db.reader, scope), await conversionsReport(db.reader, scope), await funnelReport(db.reader, scope, ["goal_a", "goal_b"])];
    const rollupCells = await count(db, "rollup_site_day");

    // 30 days after 2026-11-02 nothing of 2026-10-01 has a reader left.
    const run = await applyRetention(db.client as never, { now: at("2026-11-03", 0), days: 30 });
    expect(await count(db, "events")).toBe(2);
    expect((await db.client.execute("SELECT session_id FROM events ORDER BY id")).rows.map((r) => r.session_id)).toEqual(["unfolded", "recent"]);
    expect(await count(db, "conversions")).toBe(0);
    expect((await db.client.execute("SELECT id FROM sessions")).rows.map((r) => r.id)).toEqual(["new0"]);
    expect(await count(db, "rollup_site_day_units")).toBe(0);
    expect(await count(db, "rollup_page_day_units")).toBe(0);
    expect(await count(db, "rollup_site_hour_units")).toBe(0);
    expect(run.deleted).toBe(6 + 12 + 1 + 6 + 6 + 6 + 12);
    // Rollups and the funnel rows stay, so the old day reads exactly as before.
    expect(await count(db, "rollup_site_day")).toBe(rollupCells);
    expect(await count(db, "rollup_goal_day_units")).toBe(12);
    expect(await count(db, "rollup_session_goals")).toBe(12);
    expect([await pagesReport(db.reader, scope), await conversionsReport(db.reader, scope), await funnelReport(db.reader, scope, ["goal_a", "goal_b"])]).toEqual(before);
  });

  it("drops conversion keys once the event window has closed", async () => {
    const db = await openTestDb();
    open.push(db);
    await addSite(db.client, SITE);
    await addGoal(db.client, SITE, "goal_a");
    const now = at("2026-11-03", 12);
    await db.client.batch(
      [
        { sql: "INSERT INTO conversions (site_id, goal_id, source, event_key, ts) VALUES (?, 'goal_a', 's2s', 'id:old', ?)", args: [SITE, now - DAY - 1] },
        { sql: "INSERT INTO conversions (site_id, goal_id, source, event_key, ts) VALUES (?, 'goal_a', 's2s', 'id:new', ?)", args: [SITE, now - DAY + 60_000] },
      ],
      "write",
    );
    expect(await applyRetention(db.client as never, { now, days: 30 })).toEqual({ deleted: 0, keysDropped: 1 });
    expect((await db.client.execute("SELECT event_key FROM conversions ORDER BY id")).rows.map((r) => r.event_key)).toEqual([null, "id:new"]);
    // Bounded: a backlog goes in passes of batchRows.
    await db.client.execute({ sql: "UPDATE conversions SET ts = ?, event_key = 'id:' || id", args: [now - 2 * DAY] });
    expect((await applyRetention(db.client as never, { now, days: 30, batchRows: 1 })).keysDropped).toBe(1);
    expect((await applyRetention(db.client as never, { now, days: 30, batchRows: 1 })).keysDropped).toBe(1);
    expect((await applyRetention(db.client as never, { now, days: 30, batchRows: 1 })).keysDropped).toBe(0);
  });
});
