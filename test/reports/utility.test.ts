/**
 * Utility of the privacy filter on hand-made days, with exact outputs: cells that no attacker
 * can derive a small group from stay shown (issue 36, "hide no more than the guarantee needs"),
 * and each big cell a rule still hides names the small group it protects (privacy/explain.ts).
 * Real rollups in a real libSQL database.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { breakdownReport } from "../../worker/reports/breakdown";
import type { Dimension } from "../../worker/reports/dimensions";
import { pagesReport } from "../../worker/reports/pages";
import { explainHiddenPages } from "../../worker/reports/privacy/explain";
import { catchUp } from "../../worker/reports/rollup";
import type { ReportScope } from "../../worker/reports/scope";
import { addEvents, addSite, at, openTestDb, sessions, type RawEvent, type TestDb } from "./helpers";

const SITE = "site_utility";
const DAY = "2026-11-02";
const COVER_DAY = "2026-11-03";
const PAIR_DAY = "2026-11-04";
let db: TestDb;
const scope = (day = DAY): ReportScope => ({ siteId: SITE, from: day, to: day, timeZone: "UTC", k: 5 });
const x = (value: number) => ({ value, qualifier: "exact" });
const hidden = { value: null, qualifier: "suppressed" };
/** Every page hidden over the period, as one row that names none of them. */
const other = { path: null, other: true, visitors: hidden, pageviews: hidden };
const GOOGLE_IPHONE = { source: "Google", browser: "Safari", os: "iOS", device: "mobile", country: "DE" } as const;

beforeAll(async () => {
  db = await openTestDb();
  await addSite(db.client, SITE);
  const view = (day: string, session: string, path: string, minute: number, dims = {}): RawEvent => ({
    site: SITE,
    session,
    path,
    ts: at(day, 12, minute),
    dims,
  });
  // The day: 18 visitors. "/" 7, "/pricing" 6, "/blog" 6 (six visitors from Google on
  // iPhones, who went on to "/") and five pages of one visitor each, who saw nothing else.
  await addEvents(db.client, [
    ...sessions("b", 6).flatMap((s) => [view(DAY, s, "/blog", 0, GOOGLE_IPHONE), view(DAY, s, "/", 1, GOOGLE_IPHONE)]),
    view(DAY, "h0", "/", 0),
    ...sessions("p", 6).map((s) => view(DAY, s, "/pricing", 0)),
    ...sessions("x", 5).map((s, i) => view(DAY, s, `/x${i}`, 0)),
  ]);
  // A day where the cover is still needed: 20 visitors all on "/", 10 of them on "/x", and one
  // who went from "/" on to "/y": the day's pageviews − the shown pages' would be that one's.
  const t = sessions("t", 20);
  await addEvents(db.client, [
    ...t.map((s) => view(COVER_DAY, s, "/", 0)),
    ...t.slice(0, 10).map((s) => view(COVER_DAY, s, "/x", 1)),
    view(COVER_DAY, "t19", "/y", 2),
  ]);
  // Two pages and five sessions that sent no pageview (an engagement beacon only): /a 6, /b 6, one
  // session on both, the day 16. |/a| + |/b| − the day is −4, but the day minus the entry
  // breakdown's rest (5) is who viewed a page: 6 + 6 − 11 = the 1 session that viewed both.
  await addEvents(db.client, [
    ...sessions("a", 5).map((s) => view(PAIR_DAY, s, "/a", 0, { country: "DE" })),
    ...sessions("b", 5).map((s) => view(PAIR_DAY, s, "/b", 0, { country: "DE" })),
    view(PAIR_DAY, "ab", "/a", 0, { country: "DE" }),
    view(PAIR_DAY, "ab", "/b", 1, { country: "DE" }),
    ...sessions("e", 5).map((session) => ({
      site: SITE,
      session,
      path: "/a",
      kind: "engagement" as const,
      ts: at(PAIR_DAY, 12),
    })),
  ]);
  await catchUp(db.client as never);
});
afterAll(() => db?.close());

describe("the filter hides no more than the guarantee needs", () => {
  it("shows /blog beside five one-visitor pages: who entered on them are k sessions, so the remainder is a group of k", async () => {
    expect((await pagesReport(db.reader, scope())).rows).toEqual([
      { path: "/", other: false, visitors: x(7), pageviews: x(7) },
      { path: "/blog", other: false, visitors: x(6), pageviews: x(6) },
      { path: "/pricing", other: false, visitors: x(6), pageviews: x(6) },
      // The five one-visitor pages are the one `other` row (hidden-rows.ts).
      other,
    ]);
    expect(await explainHiddenPages(db.reader, scope())).toEqual([]);
  });

  it("shows the six Google iPhone visitors in every breakdown", async () => {
    const rows = async (dimension: Dimension) =>
      (await breakdownReport(db.reader, scope(), dimension)).rows.map((r) => [r.other ? "other" : r.value, r.visitors.value]);
    for (const [dimension, value] of Object.entries(GOOGLE_IPHONE))
      expect(await rows(dimension as Dimension), dimension).toEqual([
        [value, 6],
        [null, 12],
      ]);
    // Entered on /blog 6, on /pricing 6; on "/" 1 and each /x 1: the hidden cells hold 6 together.
    expect(await rows("entry_page")).toEqual([
      ["/blog", 6],
      ["/pricing", 6],
      ["other", null],
    ]);
    expect(await rows("exit_page")).toEqual([
      ["/", 7],
      ["/pricing", 6],
      ["other", null],
    ]);
  });

  it("still covers a remainder of fewer than k sessions, and names it", async () => {
    expect((await pagesReport(db.reader, scope(COVER_DAY))).rows).toEqual([
      { path: "/", other: false, visitors: x(20), pageviews: x(20) },
      other,
    ]);
    expect(await explainHiddenPages(db.reader, scope(COVER_DAY))).toEqual([
      {
        day: COVER_DAY,
        cell: "/x",
        units: 10,
        rule: "cover",
        group: { what: "the sessions with a pageview on /y", atLeast: 1, atMost: 1 },
        because:
          "hides /x (10) because the day's pageviews − the shown pages' would be the pageviews of the sessions on /y: 1 to 1 sessions, not shown to be 5",
      },
    ]);
  });

  it("hides one of two pages whose overlap the breakdowns' rest gives away, though the day has sessions without a pageview", async () => {
    // Country DE 11 and the rest 5 (0 pageviews): 11 sessions viewed a page, so /a 6 + /b 6 − 11 = 1.
    expect((await breakdownReport(db.reader, scope(PAIR_DAY), "country")).rows.map((r) => [r.value, r.visitors.value])).toEqual([
      ["DE", 11],
      [null, 5],
    ]);
    expect((await pagesReport(db.reader, scope(PAIR_DAY))).rows).toEqual([
      { path: "/b", other: false, visitors: x(6), pageviews: x(6) },
      other,
    ]);
  });
});
