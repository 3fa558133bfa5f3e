/**
 * The sessions list shows only figures the reports show: per published day, the daily
 * timeseries' sessions, the hourly timeseries' shown hours and the entry-page breakdown's shown
 * cells, each figure as that report gives it (perturbed unless noise is off); nothing of today,
 * no per-session row, no label of a hidden cell; a stable cursor by day. Real rollups in a real
 * libSQL database, the real publisher, an injectable clock.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpProblem } from "../../worker/lib/problem";
import { publishOnce } from "../../worker/reports/publisher";
import { breakdownReport } from "../../worker/reports/breakdown";
import type { Figure } from "../../worker/reports/figures";
import {
  decodeSessionCursor,
  listPublishedSessions,
  type ListedDay,
  type ListOptions,
  type SessionsPage,
} from "../../worker/reports/sessions-list";
import { timeseriesReport } from "../../worker/reports/timeseries";
import { addEvents, addSite, addVitals, at, noiseKey, openTestDb, sessions, type RawEvent, type TestDb } from "./helpers";

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
  await addEvents(
    db.client,
    ids.map((session) => ({ site, session, path, ts })),
  );
  await addSessions(ids.map((id) => ({ id, site, firstSeen: ts, entry: path })));
}

const list = (options: Partial<ListOptions> = {}, site = SITE): Promise<SessionsPage> =>
  listPublishedSessions(db.reader, site, { limit: 500, k: 5, retentionDays: 30, now: NOW, noise: false, ...options });

const hourOf = (day: string, hour: number) => new Date(at(day, hour)).toISOString();
const x = (value: number): Figure => ({ value, qualifier: "exact" });
const hidden: Figure = { value: null, qualifier: "suppressed" };

beforeAll(async () => {
  db = await openTestDb();
  await addSite(db.client, SITE);
  await addSite(db.client, INDIA, "Asia/Kolkata");

  // 2026-11-05, 25 sessions (x0 began the day before). Hours: 00 (x0), 09 (a×10, g0), 10 (b×6, h0), 11 (c×5), 12 (d0).
  // 09, 10 and 11 hold k units each: shown as they close; the small hours 00 and 12 hold 2
  // sessions, fewer than k, so the day hides. Pages: "/" 11, "/pricing" 6, "/docs" 5, "/secret" 1: "/docs" covers "/secret".
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
  // Hour 15 holds 5 of 6 (a complement of 1): the day hides; hour 23 holds 1.
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

/** The whole list, exactly (figures unperturbed): days newest first. */
const EXPECTED: ListedDay[] = [
  {
    day: "2026-11-05",
    // 00 and 12 hold 1 session each: the day minus its shown hours would be those 2, so the day
    // hides its own total and reads as the sum of its shown hours, 11 + 7 + 5 (its entry pages
    // keep a hidden remainder of k).
    sessions: { value: 23, qualifier: "estimated" },
    hours: [
      { hour: hourOf("2026-11-05", 9), sessions: x(11) },
      { hour: hourOf("2026-11-05", 10), sessions: x(7) },
      { hour: hourOf("2026-11-05", 11), sessions: x(5) },
    ],
    // "/" holds a×10 and x0 (whose day's first view was "/" after midnight); "/docs" (5) covers
    // "/secret" (1) and neither is named; h0 entered "/pricing" on the 6th, not on this day.
    entry_pages: [
      { path: "/", sessions: x(11) },
      { path: "/pricing", sessions: x(6) },
    ],
  },
  // Hour 15 holds 5 of 6, shown as it closed: the day (a complement of 1) reads as that hour's
  // 5, and "/", its only entry page, hides.
  {
    day: "2026-11-04",
    sessions: { value: 5, qualifier: "estimated" },
    hours: [{ hour: hourOf("2026-11-04", 15), sessions: x(5) }],
    entry_pages: [],
  },
  // A hidden day: listed, suppressed, nothing of it named.
  { day: "2026-11-03", sessions: hidden, hours: [], entry_pages: [] },
  {
    day: "2026-10-08",
    sessions: x(5),
    hours: [{ hour: hourOf("2026-10-08", 1), sessions: x(5) }],
    entry_pages: [{ path: "/", sessions: x(5) }],
  },
];

describe("listPublishedSessions", () => {
  it("lists published days with the figures the timeseries and the entry-page breakdown show, and nothing of hidden cells", async () => {
    expect(await list()).toEqual({
      days: EXPECTED,
      next: null,
      publishedThrough: "2026-11-05",
      timeZone: "UTC",
      dayEnd: Date.parse("2026-11-07T00:00:00.000Z"),
    });
  });

  it("shows the reports' own perturbed figures", async () => {
    const page = await list({ noise: true });
    for (const day of page.days) {
      const scope = {
        siteId: SITE,
        from: day.day,
        to: day.day,
        timeZone: "UTC",
        k: 5,
        noise: true,
        noiseKey: await noiseKey(db.client),
      };
      const daily = await timeseriesReport(db.reader, scope, "day");
      expect(day.sessions).toEqual(daily.points[0]!.visitors);
      const hourly = await timeseriesReport(db.reader, scope, "hour");
      expect(day.hours).toEqual(
        hourly.points.filter((p) => p.visitors.value).map((p) => ({ hour: p.start, sessions: p.visitors })),
      );
      const entries = await breakdownReport(db.reader, scope, "entry_page");
      expect(day.entry_pages).toEqual(
        entries.rows
          .filter((r) => r.value !== null && r.visitors.value !== null)
          .map((r) => ({ path: r.value!, sessions: r.visitors }))
          .sort((a, b) => a.path.localeCompare(b.path)),
      );
    }
    expect(page.days.map((d) => d.sessions.qualifier)).toEqual(["estimated", "estimated", "suppressed", "estimated"]);
  });

  it("cuts hours in the site's zone", async () => {
    expect((await list({}, INDIA)).days).toEqual([
      {
        day: "2026-11-05",
        sessions: x(5),
        hours: [{ hour: "2026-11-05T04:30:00.000Z", sessions: x(5) }],
        entry_pages: [{ path: "/", sessions: x(5) }],
      },
    ]);
  });

  it("pages by day with a cursor that neither skips nor repeats", async () => {
    const first = await list({ limit: 1 });
    expect(first).toEqual({
      days: EXPECTED.slice(0, 1),
      next: "2026-11-04",
      publishedThrough: "2026-11-05",
      timeZone: "UTC",
      dayEnd: Date.parse("2026-11-07T00:00:00.000Z"),
    });
    for (const limit of [1, 2, 3, 4]) {
      const walked: ListedDay[] = [];
      let after: string | undefined;
      for (let page = 0; page < 10; page++) {
        const result = await list({ limit, after });
        walked.push(...result.days);
        if (!result.next) break;
        expect(result.days).toHaveLength(limit);
        after = result.next;
      }
      expect(walked).toEqual(EXPECTED);
    }
    expect((await list({ limit: 4 })).next).toBeNull();
  });

  it("starts a cursor beyond the published days at the last published day", async () => {
    expect((await list({ after: "2026-11-06" })).days).toEqual(EXPECTED);
  });

  it("takes k and the retention window from the settings", async () => {
    const days = (page: SessionsPage) => page.days.map((d) => [d.day, d.sessions.value]);
    // With k = 2 the 3rd shows its 4 sessions, and the 5th its 25 (its small hours' 2 sessions
    // are a group of k); the 4th still reads as its 15:00 (its 23:00 holds 1).
    expect(days(await list({ k: 2 }))).toEqual([
      ["2026-11-05", 25],
      ["2026-11-04", 5],
      ["2026-11-03", 4],
      ["2026-10-08", 5],
    ]);
    expect(days(await list({ retentionDays: 29 }))).toEqual([
      ["2026-11-05", 23],
      ["2026-11-04", 5],
      ["2026-11-03", null],
    ]);
    expect(days(await list({ now: NOW + 12.5 * 3_600_000 }))).toEqual(days(await list({ retentionDays: 29 })));
  });

  it("lists nothing before the first publication, and refuses an unknown site", async () => {
    const empty = await openTestDb();
    try {
      await addSite(empty.client, SITE);
      await addEvents(empty.client, [{ site: SITE, session: "s", path: "/", ts: at("2026-11-05") }]);
      expect(await listPublishedSessions(empty.reader, SITE, { limit: 10, k: 5, retentionDays: 30, now: NOW })).toEqual({
        days: [],
        next: null,
        publishedThrough: null,
        timeZone: "UTC",
        dayEnd: null,
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
  it("is a day, and nothing else decodes", () => {
    expect(decodeSessionCursor("2026-11-05")).toBe("2026-11-05");
    for (const bad of ["", "2026-11-05.4", "2026-02-31", "2026-13-01", "17", "2026-1-05", " 2026-11-05"]) {
      expect(decodeSessionCursor(bad), bad).toBeNull();
    }
  });
});
