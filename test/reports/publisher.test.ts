/**
 * The publisher on a real libSQL database with an injectable clock: it folds up to the head
 * it saw at the cut, publishes what ended a grace period before, stays bounded per run,
 * resumes after a restart without counting twice, and never changes a published cell.
 */
import { createClient } from "@libsql/client";
import { describe, expect, it } from "vitest";
import { PUBLICATION_SQL, publicationOf, type Publication } from "../../worker/reports/publication";
import { PUBLISH_GRACE_MS, publishIntervalMs, publishOnce, publisherStatus } from "../../worker/reports/publisher";

import { lastCompleteDay, resolvePeriod } from "../../worker/reports/period";
import { pagesReport } from "../../worker/reports/pages";
import { catchUp } from "../../worker/reports/rollup";
import { addEvents, at, freshSiteDbs, sessions, type TestDb } from "./helpers";

const SITE = "site_pub";
const fresh = freshSiteDbs(SITE);

/** A clock the test moves by hand. */
function clock(start: number) {
  let now = start;
  return { now: () => now, set: (ms: number) => (now = ms) };
}

async function publication(db: TestDb): Promise<Publication | null> {
  return publicationOf(await db.client.execute(PUBLICATION_SQL));
}

async function pageviews(db: TestDb, day: string): Promise<number> {
  const rs = await db.client.execute({ sql: "SELECT coalesce(sum(pageviews), 0) AS n FROM rollup_site_day WHERE site_id = ? AND day = ?", args: [SITE, day] });
  return Number(rs.rows[0]!.n);
}

const views = (n: number, ts: number, prefix = "s") => sessions(prefix, n).map((session) => ({ site: SITE, session, path: "/", ts }));

describe("the publisher", () => {
  it("publishes a day only once it ended a grace period before the run", async () => {
    const db = await fresh();
    await addEvents(db.client, views(6, at("2026-11-02", 23, 59)));
    const c = clock(at("2026-11-03", 0, 0) + 5_000);

    const early = await publishOnce(db.client as never, c);
    expect(early).toEqual({ folded: 6, throughMs: at("2026-11-03", 0, 0) + 5_000 - PUBLISH_GRACE_MS, behind: false });
    // Folded, but the day ended only 5 s ago: the latest published day is the one before.
    expect(await pageviews(db, "2026-11-02")).toBe(6);
    expect(lastCompleteDay("UTC", (await publication(db))!.throughMs)).toBe("2026-11-01");

    c.set(at("2026-11-03", 0, 0) + PUBLISH_GRACE_MS);
    await publishOnce(db.client as never, c);
    const published = (await publication(db))!;
    expect(published).toMatchObject({ throughMs: at("2026-11-03", 0, 0), publishedAt: at("2026-11-03", 0, 0) + PUBLISH_GRACE_MS });
    expect(resolvePeriod({ period: "day" }, "UTC", published.throughMs)).toMatchObject({ from: "2026-11-02", to: "2026-11-02" });
    expect((await pagesReport(db.reader, { siteId: SITE, from: "2026-11-02", to: "2026-11-02", timeZone: "UTC", k: 5 })).totals.pageviews).toEqual({
      value: 6,
      qualifier: "exact",
    });
  });

  it("folds only up to the head it saw at the cut; rows that land meanwhile wait for the next run", async () => {
    const db = await fresh();
    await addEvents(db.client, views(5, at("2026-11-02", 10)));
    const c = clock(at("2026-11-02", 12));
    // Three rows land right after the run has read the head (its first read).
    const client = db.client;
    let landed = false;
    const racing = Object.assign(Object.create(client), {
      async batch(statements: never, mode: never) {
        const result = await client.batch(statements, mode);
        if (!landed) {
          landed = true;
          await addEvents(client, views(3, at("2026-11-02", 11), "late"));
        }
        return result;
      },
    });
    expect(await publishOnce(racing as never, c)).toMatchObject({ folded: 5, behind: false });
    expect(await pageviews(db, "2026-11-02")).toBe(5);
    expect(await publishOnce(db.client as never, c)).toMatchObject({ folded: 3, behind: false });
    expect(await pageviews(db, "2026-11-02")).toBe(8);
  });

  it("stays bounded per run and says it is behind; the runs that follow finish and publish", async () => {
    const db = await fresh();
    await addEvents(db.client, views(25, at("2026-11-02", 9)));
    const c = clock(at("2026-11-03", 1));
    const options = { now: c.now, chunkRows: 4, maxRowsPerRun: 10 };

    const first = await publishOnce(db.client as never, options);
    expect(first).toEqual({ folded: 12, throughMs: null, behind: true });
    expect(await publication(db)).toBeNull();

    const runs = [first];
    while (runs.at(-1)!.behind) runs.push(await publishOnce(db.client as never, options));
    expect(runs.map((r) => r.folded)).toEqual([12, 12, 1]);
    expect((await publication(db))!.throughMs).toBe(at("2026-11-03", 1) - PUBLISH_GRACE_MS);
    expect(await pageviews(db, "2026-11-02")).toBe(25);
  });

  it("resumes after a restart without counting a row twice", async () => {
    const db = await fresh();
    await addEvents(db.client, views(30, at("2026-11-02", 9)));
    const c = clock(at("2026-11-03", 1));
    // A run cut short: it folded one bounded part and the process went away.
    await publishOnce(db.client as never, { now: c.now, chunkRows: 7, maxRowsPerRun: 7 });
    db.client.close();

    // A new process on the same file carries on from the watermarks in the database.
    const again = createClient({ url: `file:${db.dir}/wren.db` });
    try {
      const run = await publishOnce(again as never, { now: c.now });
      expect(run).toEqual({ folded: 23, throughMs: at("2026-11-03", 1) - PUBLISH_GRACE_MS, behind: false });
      const rs = await again.execute({ sql: "SELECT visitors, pageviews FROM rollup_site_day WHERE site_id = ?", args: [SITE] });
      expect(rs.rows.map((r) => [Number(r.visitors), Number(r.pageviews)])).toEqual([[30, 30]]);
    } finally {
      again.close();
    }
  });

  it("keeps every published cell final: a late row folds into the first hour not yet published", async () => {
    const db = await fresh();
    await addEvents(db.client, views(6, at("2026-11-02", 10)));
    const c = clock(at("2026-11-03", 1));
    await publishOnce(db.client as never, c);
    const first = (await publication(db))!;
    expect(first.throughMs).toBe(at("2026-11-03", 1) - PUBLISH_GRACE_MS);

    // A conversion replayed with an old timestamp, a beacon committed past the grace: stamped
    // in hours already published (10:00 yesterday, 00:00–00:59 today is not: it ends at 01:00).
    await addEvents(db.client, [
      ...views(2, at("2026-11-02", 10), "late"),
      ...views(1, at("2026-11-03", 0, 30), "inside"),
    ]);
    c.set(at("2026-11-03", 3));
    await publishOnce(db.client as never, c);
    expect(await pageviews(db, "2026-11-02")).toBe(6);
    expect(await pageviews(db, "2026-11-03")).toBe(3);
    const hours = await db.client.execute({ sql: "SELECT hour, visitors, pageviews FROM rollup_site_hour WHERE site_id = ? ORDER BY hour", args: [SITE] });
    expect(hours.rows.map((r) => [new Date(Number(r.hour)).toISOString(), Number(r.visitors), Number(r.pageviews)])).toEqual([
      ["2026-11-02T10:00:00.000Z", 6, 6],
      ["2026-11-03T00:00:00.000Z", 3, 3],
    ]);
    // Nothing a reader saw changed, so readers' caches stay valid.
    expect((await publication(db))!.version).toBe(first.version);
    // The same holds for a fold outside the publisher (a full catch-up).
    await addEvents(db.client, views(1, at("2026-11-02", 11), "later"));
    await catchUp(db.client as never);
    expect(await pageviews(db, "2026-11-02")).toBe(6);
    expect(await pageviews(db, "2026-11-03")).toBe(4);
  });

  it("never moves the publication back, whatever a clock says", async () => {
    const db = await fresh();
    const c = clock(at("2026-11-03", 12));
    await publishOnce(db.client as never, c);
    c.set(at("2026-11-03", 11));
    await publishOnce(db.client as never, c);
    expect((await publication(db))!.throughMs).toBe(at("2026-11-03", 12) - PUBLISH_GRACE_MS);
  });
});

describe("the publisher's schedule and status", () => {
  it("runs every WREN_PUBLISH_INTERVAL seconds, 1 to 60, 10 by default", () => {
    expect(publishIntervalMs(undefined)).toBe(10_000);
    expect(publishIntervalMs("")).toBe(10_000);
    expect(publishIntervalMs("nonsense")).toBe(10_000);
    expect(publishIntervalMs("2")).toBe(2_000);
    expect(publishIntervalMs("0.1")).toBe(1_000);
    expect(publishIntervalMs("600")).toBe(60_000);
  });

  it("reports starting, current and behind in /healthz", () => {
    const now = at("2026-11-03", 12);
    expect(publisherStatus(null, {}, now)).toEqual({ status: "starting", published_through: null, lag_seconds: null });
    const current = { throughMs: now - 20_000, publishedAt: now - 5_000, version: 3, hourRuleFrom: 0 };
    expect(publisherStatus(current, {}, now)).toEqual({
      status: "current",
      published_through: "2026-11-03T11:59:40.000Z",
      lag_seconds: 20,
    });
    // Grace 15 s + interval 10 s + 60 s.
    expect(publisherStatus({ ...current, throughMs: now - 86_000 }, {}, now).status).toBe("behind");
    expect(publisherStatus({ ...current, throughMs: now - 86_000 }, { WREN_PUBLISH_INTERVAL: "60" }, now).status).toBe("current");
  });
});
