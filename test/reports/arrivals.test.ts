/**
 * The first day's arrivals (worker/reports/arrivals.ts) on a real libSQL database, with the
 * publication set by hand as the publisher's clock: the band moves only in steps of k
 * sessions, so an attacker polling at every hour cannot tell a quiet hour with one visitor
 * from an empty one; and the next publication times are the site's local hour and midnight.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ARRIVALS_WINDOW_MS, beaconBand, siteArrivals } from "../../worker/reports/arrivals";
import { nextFigures } from "../../worker/reports/freshness";
import { unitKey } from "../../worker/reports/noise";
import { publishStatement } from "../../worker/reports/publication";
import { addEvents, addSite, clearData, noiseKey, openTestDb, type TestDb } from "./helpers";

const K = 5;
const SITE = "site_firstday";
/** Berlin is UTC+1 in November: 14:02 local is 13:02Z. */
const ZONE = "Europe/Berlin";
const berlin = (hour: number, minute = 0, second = 0) =>
  Date.parse(
    `2026-11-26T${String(hour - 1).padStart(2, "0")}:${String(minute).padStart(2, "0")}:${String(second).padStart(2, "0")}Z`,
  );

let db: TestDb;

beforeAll(async () => {
  db = await openTestDb();
});
afterAll(() => db?.close());
beforeEach(async () => {
  await clearData(db.client);
  await addSite(db.client, SITE, ZONE);
});

/** The publisher's clock: every cell that ended 15 s before `cutMs` is published. */
async function publishAt(cutMs: number): Promise<void> {
  await db.client.execute("DELETE FROM rollup_publication");
  await db.client.batch([publishStatement(cutMs - 15_000, cutMs)], "write");
}

/** Sessions with `events` events each, all started at `ts`, and the site's first beacon at the earliest. */
async function visit(ids: string[], ts: number, eventsEach = 2): Promise<void> {
  for (const id of ids) {
    await db.client.execute({
      sql: "INSERT INTO sessions (id, site_id, first_seen, last_seen) VALUES (?, ?, ?, ?)",
      args: [id, SITE, ts, ts + 60_000],
    });
  }
  await db.client.execute({
    sql: "INSERT INTO site_beacons (site_id, origin, first_seen, path) VALUES (?, 'https://firstday.example', ?, '/') ON CONFLICT DO UPDATE SET first_seen = min(first_seen, excluded.first_seen)",
    args: [SITE, ts],
  });
  await addEvents(
    db.client,
    ids.flatMap((session) =>
      Array.from({ length: eventsEach }, (_, i) => ({ site: SITE, session, path: "/", ts: ts + i * 1000 })),
    ),
  );
}

/** The band the service must show for `events` events of these sessions. */
async function expectedBand(events: number, ids: string[]) {
  const key = await noiseKey(db.client);
  return beaconBand(
    events,
    ids.reduce((sum, id) => sum + unitKey(id, key.secret), 0),
    key,
    K,
  );
}

const read = () => siteArrivals(db.reader, SITE, K);

describe("the site's arrivals", () => {
  it("before any beacon: waiting, an exact 0, and the next hour's and midnight's publication in the site's zone", async () => {
    await publishAt(berlin(14, 59, 50));
    expect(await read()).toEqual({
      site: SITE,
      timezone: ZONE,
      k: K,
      status: "waiting",
      first_beacon: null,
      window_end: null,
      counted_through: null,
      beacons: { low: 0, high: 0, qualifier: "exact" },
      // 15:00 and midnight Berlin (14:00Z, 23:00Z), each plus the publisher's 15 s grace.
      next_figures: { hour: "2026-11-26T14:00:15.000Z", day: "2026-11-26T23:00:15.000Z" },
    });
  });

  it("fewer than k sessions: the beacons are hidden, however many they sent", async () => {
    await visit(["own-check", "visitor-a", "visitor-b"], berlin(14, 2), 8);
    await publishAt(berlin(17, 0, 30));
    const answer = await read();
    expect(answer).toMatchObject({
      status: "first_day",
      first_beacon: "2026-11-26T13:02:00.000Z",
      window_end: "2026-11-27T13:02:00.000Z",
      counted_through: null,
      beacons: { low: null, high: null, qualifier: "suppressed" },
      next_figures: { hour: "2026-11-26T17:00:15.000Z", day: "2026-11-26T23:00:15.000Z" },
    });
  });

  it("counts in steps of k sessions: a visitor in a quiet hour changes nothing an attacker polling every hour can see", async () => {
    const first = ["pad-0a", "pad-1b", "pad-2c", "pad-3d", "pad-4e"];
    await visit(first, berlin(14, 2), 3); // 5 sessions, 15 events in the 14:00 hour: a step ends at 15:00
    await publishAt(berlin(16, 10));
    const before = await read();

    // The victim: one session, 4 events at 16:20, in an hour nobody else came.
    await visit(["victim"], berlin(16, 20), 4);
    await publishAt(berlin(17, 0, 30)); // the 16:00 hour has closed and is published
    const after = await read();
    // The attacker's two readings are the same: without the steps, the count would reach 17:00 and hold the victim's 4 events.
    expect(after.counted_through).toBe(before.counted_through);
    expect(after.beacons).toEqual(before.beacons);
    expect(before.counted_through).toBe("2026-11-26T14:00:00.000Z"); // 15:00 Berlin
    expect(before.beacons).toEqual(await expectedBand(15, first));
    expect(before.beacons!.high! - before.beacons!.low!).toBe(K - 1);
    expect(before.beacons!.low! % K).toBe(0);
    expect(after.next_figures.hour).toBe("2026-11-26T17:00:15.000Z");

    // Four more sessions make a group of k with the victim: the step moves, by a band over all 5.
    const later = ["late-0f", "late-1g", "late-2h", "late-3i"];
    await visit(later, berlin(17, 30), 1);
    await publishAt(berlin(18, 0, 30));
    const moved = await read();
    expect(moved.counted_through).toBe("2026-11-26T17:00:00.000Z"); // 18:00 Berlin
    expect(moved.beacons).toEqual(await expectedBand(15 + 4 + 4, [...first, "victim", ...later]));
  });

  it("stops counting 24 hours after the first beacon: the reports have the site then", async () => {
    await visit(["a-0", "a-1", "a-2", "a-3", "a-4"], berlin(14, 2), 1);
    await publishAt(berlin(14, 2) + ARRIVALS_WINDOW_MS + 20_000);
    expect(await read()).toMatchObject({
      status: "ended",
      counted_through: null,
      beacons: null,
      first_beacon: "2026-11-26T13:02:00.000Z",
    });
  });

  it("an unknown site is a 404 naming the id", async () => {
    await publishAt(berlin(15));
    await expect(siteArrivals(db.reader, "site_nobody", K)).rejects.toMatchObject({
      status: 404,
      message: "No site site_nobody.",
    });
  });
});

describe("next figures", () => {
  it("the running local hour's end and the next local midnight, plus the grace, across a DST change and in a half-hour zone", () => {
    // 25 Oct 2026, Berlin goes from CEST to CET at 03:00 local: the day is 25 hours long.
    expect(nextFigures("Europe/Berlin", Date.parse("2026-10-25T00:30:00Z"))).toEqual({
      hour: "2026-10-25T01:00:15.000Z",
      day: "2026-10-25T23:00:15.000Z",
    });
    // India is UTC+5:30: local hours end at :30 UTC.
    expect(nextFigures("Asia/Kolkata", Date.parse("2026-11-26T09:45:00Z"))).toEqual({
      hour: "2026-11-26T10:30:15.000Z",
      day: "2026-11-26T18:30:15.000Z",
    });
  });
});
