/**
 * Upgrading to hourly pageviews per unit (migration 0020): rollup_site_hour_units gains each
 * unit's pageviews of the hour, which a filtered report's hourly points and the filtered Overview
 * read (reports/explore). The migration's backfill must give exactly what the fold now writes:
 * here the fold's values are wiped to the old state (0) and the migration's own UPDATE is run
 * again, on real libSQL, in a zone whose local hours are not UTC's.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { catchUp } from "../../worker/reports/rollup";
import { addEvents, at, freshSiteDbs } from "./helpers";

const SITE = "site_hour_units_upgrade";
const fresh = freshSiteDbs(SITE);
const BACKFILL = readFileSync(resolve(import.meta.dirname, "../../migrations/0020_per_unit_pages_and_hours.sql"), "utf8")
  .split("--> statement-breakpoint")
  .map((s) => s.trim())
  .find((s) => s.includes("UPDATE"))!;

describe("migration 0020: each unit's pageviews of the hour", () => {
  it("backfills exactly what the fold writes, sessionless pageviews and other kinds included", async () => {
    const db = await fresh();
    await db.client.execute({ sql: "UPDATE sites SET timezone = 'Asia/Kolkata' WHERE id = ?", args: [SITE] });
    const day = "2026-11-02";
    await addEvents(db.client, [
      { site: SITE, session: "a", path: "/", ts: at(day, 9, 10) },
      { site: SITE, session: "a", path: "/pricing", ts: at(day, 9, 20) },
      { site: SITE, session: "a", path: "/", ts: at(day, 9, 40) }, // 09:40 UTC is 15:10 IST: the next local hour (Kolkata is UTC+5:30)
      { site: SITE, session: "a", path: "/", kind: "engagement", ts: at(day, 9, 41) },
      { site: SITE, session: "b", path: "/", ts: at(day, 10, 5) },
      { site: SITE, session: null, path: "/", ts: at(day, 11, 0) },
    ]);
    await catchUp(db.client as never);
    const read = async () =>
      (await db.client.execute("SELECT hour, unit, pageviews FROM rollup_site_hour_units ORDER BY hour, unit")).rows.map((r) => [
        Number(r.hour),
        String(r.unit).startsWith("e:") ? "e:" : String(r.unit),
        Number(r.pageviews),
      ]);
    const folded = await read();
    // Local hours start at :30 UTC: 14:00 IST (08:30 UTC) holds a's first two pageviews; 15:00 IST (09:30 UTC) its third, its
    // engagement ping (no pageview) and b's; 16:00 IST the sessionless one.
    expect(folded).toEqual([
      [at(day, 8, 30), "a", 2],
      [at(day, 9, 30), "a", 1],
      [at(day, 9, 30), "b", 1],
      [at(day, 10, 30), "e:", 1],
    ]);
    await db.client.execute("UPDATE rollup_site_hour_units SET pageviews = 0");
    await db.client.execute(BACKFILL);
    expect(await read()).toEqual(folded);
  });
});
