/**
 * A site's time zone may change only while none of its cells with data is published: a
 * published cut is final (re-cutting published days in another zone would let a reader
 * subtract the two cuts). Real libSQL, the real publisher, an injectable clock.
 */
import { describe, expect, it } from "vitest";
import { publishOnce } from "../../worker/reports/publisher";
import { changeSiteZone } from "../../worker/reports/zone-change";
import { addEvents, addVitals, at, freshSiteDbs, sessions, type TestDb } from "./helpers";

const SITE = "site_zone";
const fresh = freshSiteDbs(SITE);

const views = (n: number, ts: number, prefix = "s") => sessions(prefix, n).map((session) => ({ site: SITE, session, path: "/", ts }));

async function state(db: TestDb) {
  const zone = await db.client.execute({ sql: "SELECT timezone FROM sites WHERE id = ?", args: [SITE] });
  const days = await db.client.execute({ sql: "SELECT day, visitors FROM rollup_site_day WHERE site_id = ? ORDER BY day", args: [SITE] });
  return { zone: String(zone.rows[0]!.timezone), days: days.rows.map((r) => [String(r.day), Number(r.visitors)]) };
}

describe("changing a site's time zone", () => {
  it("is allowed while nothing of the site is published", async () => {
    const db = await fresh();
    expect(await changeSiteZone(db.client as never, SITE, "Europe/Berlin")).toBe("changed");
    // Data in the hour not yet published (the publication is at 12:29:45).
    await addEvents(db.client, views(2, at("2026-11-02", 12, 10)));
    await publishOnce(db.client as never, { now: () => at("2026-11-02", 12, 30) });
    expect(await changeSiteZone(db.client as never, SITE, "Asia/Tokyo")).toBe("changed");
    expect(await state(db)).toMatchObject({ zone: "Asia/Tokyo" });
    expect(await changeSiteZone(db.client as never, "site_none", "Asia/Tokyo")).toBe("missing");
  });

  it("is refused, changing nothing, once an hour with data is published", async () => {
    const db = await fresh();
    await addEvents(db.client, views(6, at("2026-11-02", 23, 30)));
    await publishOnce(db.client as never, { now: () => at("2026-11-03", 0, 30) });
    const before = await state(db);
    expect(before).toEqual({ zone: "UTC", days: [["2026-11-02", 6]] });
    expect(await changeSiteZone(db.client as never, SITE, "Europe/Berlin")).toBe("refused");
    expect(await state(db)).toEqual(before);
  });

  it("counts vitals days too", async () => {
    const db = await fresh();
    await addVitals(db.client, [{ site: SITE, session: "v", path: "/", metric: "LCP", value: 1200, ts: at("2026-11-02", 9) }]);
    await publishOnce(db.client as never, { now: () => at("2026-11-02", 23) });
    // Not yet: the vitals' day has not ended.
    expect(await changeSiteZone(db.client as never, SITE, "Europe/Berlin")).toBe("changed");
    await publishOnce(db.client as never, { now: () => at("2026-11-03", 23) });
    expect(await changeSiteZone(db.client as never, SITE, "UTC")).toBe("refused");
  });

  it("is refused when the publisher publishes the first hour between the check and the write", async () => {
    const db = await fresh();
    await addEvents(db.client, views(3, at("2026-11-02", 10)));
    await publishOnce(db.client as never, { now: () => at("2026-11-02", 10, 30) });
    const client = db.client;
    let raced = false;
    const racing = Object.assign(Object.create(client), {
      async batch(statements: never, mode: "read" | "write") {
        if (mode === "write" && !raced) {
          raced = true;
          await publishOnce(client as never, { now: () => at("2026-11-02", 12) });
        }
        return client.batch(statements, mode);
      },
    });
    expect(await changeSiteZone(racing as never, SITE, "Europe/Berlin")).toBe("refused");
    expect((await state(db)).zone).toBe("UTC");
  });
});
