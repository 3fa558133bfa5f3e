/**
 * The sessions list shows nothing the reports hide: published, visible days only; a session's
 * hour and entry page only where it is counted in a cell the timeseries and the pages report
 * show; nothing of today, nothing finer than the hour, no id, no pageview count; a stable
 * cursor. Real rollups in a real libSQL database, the real publisher, an injectable clock.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpProblem } from "../../worker/lib/problem";
import { publishOnce } from "../../worker/reports/publisher";
import { decodeSessionCursor, encodeSessionCursor, listPublishedSessions, type ListOptions, type SessionsPage } from "../../worker/reports/sessions-list";
import { shownSiteHours, timeseriesReport } from "../../worker/reports/timeseries";
import { addEvents, addSite, addVitals, at, openTestDb, sessions, type RawEvent, type TestDb } from "./helpers";

const SITE = "site_list";
const INDIA = "site_india";
/** Noon on 2026-11-06: published through 11:59:45, so 2026-11-05 is the last published day. */
const NOW = at("2026-11-06", 12);

let db: TestDb;

/** Sessions rows as the collector writes them (first_seen, entry_path), beside their events. */
async function addSessions(rows: { id: string; site?: string; firstSeen: number; entry: string | null }[]): Promise<void> {
  await db.client.batch(
    rows.map((r) => ({
      sql: "INSERT INTO sessions (id, site_id, first_seen, last_seen, entry_path) VALUES (?, ?, ?, ?, ?)",
      args: [r.id, r.site ?? SITE, r.firstSeen, r.firstSeen, r.entry],
    })),
    "write",
  );
}

/** Sessions that each view one path once, at `ts`, entering there. */
async function entering(ids: string[], path: string, ts: number, site = SITE): Promise<void> {
  await addEvents(db.client, ids.map((session) => ({ site, session, path, ts })));
  await addSessions(ids.map((id) => ({ id, site, firstSeen: ts, entry: path })));
}

const list = (options: Partial<ListOptions> = {}, site = SITE): Promise<SessionsPage> =>
  listPublishedSessions(db.reader, site, { limit: 500, k: 5, retentionDays: 30, now: NOW, ...options });

const row = (day: string, hour: number | null, entry: string | null) => ({
  day,
  hour: hour === null ? null : new Date(at(day, hour)).toISOString(),
  entry_path: entry,
});

beforeAll(async () => {
  db = await openTestDb();
  await addSite(db.client, SITE);
  await addSite(db.client, INDIA, "Asia/Kolkata");

  // 2026-11-05, 25 sessions (x0 began the day before). Hours: 00 (x0), 09 (a×10, g0), 10 (b×6, h0), 11 (c×5), 12 (d0).
  // 09 is the day's first hour of k units, its cover: the hidden hours 00 and 12 hold 2
  // sessions, fewer than k, so it stays hidden; 10 and 11 are shown. Pages: "/" 11, "/pricing" 6, "/docs" 5, "/secret" 1: "/docs" covers "/secret".
  await entering(sessions("a", 10), "/", at("2026-11-05", 9, 10) + 123);
  await entering(sessions("b", 6), "/pricing", at("2026-11-05", 10, 20) + 456);
  await entering(sessions("c", 5), "/docs", at("2026-11-05", 11, 30) + 789);
  await entering(["d0"], "/secret", at("2026-11-05", 12, 40) + 1);
  // g0 sent only engagement: counted in the day and the hour, no entry page.
  await addEvents(db.client, [{ site: SITE, session: "g0", path: "/", kind: "engagement", ts: at("2026-11-05", 9, 15) }]);
  await addSessions([{ id: "g0", firstSeen: at("2026-11-05", 9, 15), entry: null }]);
  // h0 sent engagement on the 5th and its first pageview (/pricing) today: its entry path is
  // not a page it viewed on its day, so the list must not show it there.
  const h0: RawEvent[] = [
    { site: SITE, session: "h0", path: "/pricing", kind: "engagement", ts: at("2026-11-05", 10, 30) },
    { site: SITE, session: "h0", path: "/pricing", ts: at("2026-11-06", 10) },
  ];
  await addEvents(db.client, h0);
  await addSessions([{ id: "h0", firstSeen: at("2026-11-05", 10, 30), entry: "/pricing" }]);
  // m0 sent only a vital on the 5th: in no site-day, so not listed.
  await addVitals(db.client, [{ site: SITE, session: "m0", path: "/", metric: "LCP", value: 1200, ts: at("2026-11-05", 13) }]);
  await addSessions([{ id: "m0", firstSeen: at("2026-11-05", 13), entry: "/" }]);

  // 2026-11-04, 6 sessions: e×5 at 15:00, x0 at 23:50 (and again after midnight, on the 5th).
  // Hour 15 holds 5 of 6 (a complement of 1): hidden; hour 23 holds 1. "/" holds all 6: shown.
  await entering(sessions("e", 5), "/", at("2026-11-04", 15));
  await entering(["x0"], "/", at("2026-11-04", 23, 50));
  await addEvents(db.client, [{ site: SITE, session: "x0", path: "/", ts: at("2026-11-05", 0, 10) }]);

  // 2026-11-03, 4 sessions: a hidden day.
  await entering(sessions("f", 4), "/", at("2026-11-03", 12));
  // 2026-10-08 starts after the retention cutoff (30 days before NOW): listed. 2026-10-07 starts
  // before it, so some of its sessions may be gone: not listed, though these came after it.
  await entering(sessions("p", 5), "/", at("2026-10-08", 1));
  await entering(sessions("o", 5), "/", at("2026-10-07", 13));
  // Today: 8 sessions in an hour that is published, on a day that is not.
  await entering(sessions("t", 8), "/", at("2026-11-06", 10) + 123);

  // Asia/Kolkata (+05:30): 5 sessions at 10:10 local on the 5th, in the hour starting 04:30 UTC.
  await entering(sessions("i", 5), "/", Date.parse("2026-11-05T04:40:00.250Z"), INDIA);

  await publishOnce(db.client as never, { now: () => NOW });
}, 60_000);
afterAll(() => db?.close());

/** The whole list, exactly: days newest first, rows of a day in (stored) id order. */
const EXPECTED = [
  ...sessions("a", 10).map(() => row("2026-11-05", null, "/")),
  ...sessions("b", 6).map(() => row("2026-11-05", 10, "/pricing")),
  ...sessions("c", 5).map(() => row("2026-11-05", 11, null)),
  row("2026-11-05", null, null), // d0
  row("2026-11-05", null, null), // g0
  row("2026-11-05", 10, null), // h0
  ...sessions("e", 5).map(() => row("2026-11-04", null, "/")),
  row("2026-11-04", null, "/"), // x0, listed on the day it began only
  ...sessions("p", 5).map(() => row("2026-10-08", 1, "/")),
];

describe("listPublishedSessions", () => {
  it("lists published, visible days only, with the hour and entry page only where the reports show them", async () => {
    expect(await list()).toEqual({ sessions: EXPECTED, next: null, publishedThrough: "2026-11-05" });
  });

  it("names only hours the hourly timeseries shows (the same decision, not a copy)", async () => {
    const scope = { siteId: SITE, from: "2026-11-04", to: "2026-11-05", timeZone: "UTC", k: 5 };
    const series = await timeseriesReport(db.reader, scope, "hour");
    const visible = series.points.filter((p) => p.visitors.value !== null && p.visitors.value > 0).map((p) => Date.parse(p.start));
    expect(visible).toEqual([at("2026-11-05", 10), at("2026-11-05", 11)]);
    const shown = await shownSiteHours(db.reader, scope);
    expect([...shown.entries()].map(([day, hours]) => [day, [...hours].sort((x, y) => x - y)])).toEqual([
      ["2026-11-04", []],
      ["2026-11-05", visible],
    ]);
  });

  it("cuts hours in the site's zone", async () => {
    expect((await list({}, INDIA)).sessions).toEqual(sessions("i", 5).map(() => ({ day: "2026-11-05", hour: "2026-11-05T04:30:00.000Z", entry_path: "/" })));
  });

  it("pages with a cursor of day and position that neither skips nor repeats", async () => {
    const first = await list({ limit: 4 });
    expect(first.sessions).toEqual(EXPECTED.slice(0, 4));
    expect(first.next).toEqual({ day: "2026-11-05", offset: 4 });
    // A page that ends with its day points at the next day that has rows.
    const day = await list({ limit: 24 });
    expect(day.sessions).toEqual(EXPECTED.slice(0, 24));
    expect(day.next).toEqual({ day: "2026-11-04", offset: 0 });
    for (const limit of [1, 3, 7, 36]) {
      const walked: unknown[] = [];
      let after: ListOptions["after"];
      for (let page = 0; page < 40; page++) {
        const result = await list({ limit, after });
        walked.push(...result.sessions);
        if (!result.next) break;
        expect(result.sessions).toHaveLength(limit);
        after = result.next;
      }
      expect(walked).toEqual(EXPECTED);
    }
    expect((await list({ limit: 36 })).next).toBeNull();
  });

  it("starts a cursor beyond the published days at the last published day", async () => {
    expect((await list({ after: { day: "2026-11-06", offset: 3 } })).sessions).toEqual(EXPECTED);
  });

  it("takes k and the retention window from the settings", async () => {
    const days = (page: SessionsPage) => [...new Set(page.sessions.map((s) => s.day))];
    // With k = 2 the 3rd shows; every other day is as before.
    expect(days(await list({ k: 2 }))).toEqual(["2026-11-05", "2026-11-04", "2026-11-03", "2026-10-08"]);
    expect(days(await list({ retentionDays: 29 }))).toEqual(["2026-11-05", "2026-11-04"]);
    expect(days(await list({ now: NOW + 12.5 * 3_600_000 }))).toEqual(["2026-11-05", "2026-11-04"]);
  });

  it("lists nothing before the first publication, and refuses an unknown site", async () => {
    const empty = await openTestDb();
    try {
      await addSite(empty.client, SITE);
      await addEvents(empty.client, [{ site: SITE, session: "s", path: "/", ts: at("2026-11-05") }]);
      expect(await listPublishedSessions(empty.reader, SITE, { limit: 10, k: 5, retentionDays: 30, now: NOW })).toEqual({
        sessions: [],
        next: null,
        publishedThrough: null,
      });
    } finally {
      empty.close();
    }
    const missing = await list({}, "site_none").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(HttpProblem);
    expect((missing as HttpProblem).status).toBe(404);
  });
});

describe("the cursor", () => {
  it("is a day and a position, and nothing else decodes", () => {
    expect(encodeSessionCursor({ day: "2026-11-05", offset: 4 })).toBe("2026-11-05.4");
    expect(decodeSessionCursor("2026-11-05.4")).toEqual({ day: "2026-11-05", offset: 4 });
    for (const bad of ["", "2026-11-05", "2026-02-31.0", "2026-13-01.0", "2026-11-05.-1", "2026-11-05.1.2", "17", "2026-11-05.1234567890"]) {
      expect(decodeSessionCursor(bad), bad).toBeNull();
    }
  });
});
