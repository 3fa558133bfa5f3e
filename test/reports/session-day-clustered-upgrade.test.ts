/**
 * Migration 0021 rebuilds rollup_session_day WITHOUT ROWID (its rows in key order: a filtered
 * report's range is one sequential read). On real libSQL: a folded table rebuilt by the
 * migration's own statements keeps every row and column, has no rowid, and the fold and
 * retention go on writing and deleting it.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { catchUp } from "../../worker/reports/rollup";
import { addEvents, at, freshSiteDbs } from "./helpers";

const SITE = "site_session_day_clustered";
const fresh = freshSiteDbs(SITE);
const MIGRATION = readFileSync(resolve(import.meta.dirname, "../../migrations/0021_session_day_clustered.sql"), "utf8")
  .split("--> statement-breakpoint")
  .map((s) => s.trim());

describe("migration 0021: rollup_session_day in key order", () => {
  it("keeps every session-day as it was, without a rowid, and the fold goes on upserting it", async () => {
    const db = await fresh();
    const day = "2026-11-02";
    await addEvents(db.client, [
      { site: SITE, session: "a", path: "/", ts: at(day, 9, 10), dims: { country: "DE", source: "Google" } },
      { site: SITE, session: "a", path: "/pricing", ts: at(day, 9, 20) },
      { site: SITE, session: "b", path: "/", ts: at(day, 10, 5), dims: { country: "FR" } },
      { site: SITE, session: "c", path: "/docs", ts: at("2026-11-03", 8, 0) },
    ]);
    await catchUp(db.client as never);
    const read = async () =>
      (await db.client.execute("SELECT * FROM rollup_session_day ORDER BY site_id, day, unit")).rows.map((r) => ({ ...r }));
    const folded = await read();
    expect(folded.map((r) => [r.day, r.unit, Number(r.pageviews), r.country])).toEqual([
      [day, "a", 2, "DE"],
      [day, "b", 1, "FR"],
      ["2026-11-03", "c", 1, null],
    ]);
    // The statements as the migrator runs them, on the folded table.
    for (const statement of MIGRATION) await db.client.execute(statement);
    expect(await read()).toEqual(folded);
    await expect(db.client.execute("SELECT rowid FROM rollup_session_day")).rejects.toThrow(/no such column: rowid/);
    const ddl = await db.client.execute("SELECT sql FROM sqlite_master WHERE name = 'rollup_session_day'");
    expect(String(ddl.rows[0]!.sql)).toMatch(/WITHOUT ROWID$/);
    // The fold's upsert by key goes on: b's second pageview that day, and a new session-day.
    await addEvents(db.client, [
      { site: SITE, session: "b", path: "/pricing", ts: at(day, 10, 9) },
      { site: SITE, session: "d", path: "/", ts: at(day, 11, 0) },
    ]);
    await catchUp(db.client as never);
    expect((await read()).map((r) => [r.day, r.unit, Number(r.pageviews), r.exit_page])).toEqual([
      [day, "a", 2, "/pricing"],
      [day, "b", 2, "/pricing"],
      [day, "d", 1, "/"],
      ["2026-11-03", "c", 1, "/docs"],
    ]);
  });
});
