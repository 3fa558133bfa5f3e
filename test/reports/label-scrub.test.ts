/**
 * The label scrub of retention (worker/reports/label-scrub.ts) on days built so that a decision
 * breaks a tie by label: the never-shown cover of a day is replaced by a token that must still be
 * the one picked, so every report of the day reads the same; shown labels and paths a page goal
 * matches are kept; a second run finds nothing to do.
 */
import { describe, expect, it } from "vitest";
import { breakdownReport } from "../../worker/reports/breakdown";
import { conversionsReport } from "../../worker/reports/conversions";
import { isToken, labelToken, scrubLabels } from "../../worker/reports/label-scrub";
import { pagesReport } from "../../worker/reports/pages";
import { catchUp } from "../../worker/reports/rollup";
import type { ReportScope } from "../../worker/reports/scope";
import { vitalsReport } from "../../worker/reports/vitals";
import { addConversions, addEvents, addVitals, at, freshSiteDbs, noiseKey, sessions } from "./helpers";

const SITE = "site_scrub";
const DAY = "2026-09-01";
const fresh = freshSiteDbs(SITE);
const scope: ReportScope = { siteId: SITE, from: DAY, to: DAY, timeZone: "UTC", k: 5, noise: true };
/** The scope with the database's noise secrets, as the API reads reports. */
const keyed = async (db: { client: Parameters<typeof noiseKey>[0] }): Promise<ReportScope> => ({
  ...scope,
  noiseKey: await noiseKey(db.client),
});

describe("label scrub", () => {
  it("tokens sort before every label, after the no-value key, in the order of their counter", () => {
    const tokens = [0, 1, 15, 16, 4095, 70_000].map(labelToken);
    expect([...tokens].sort()).toEqual(tokens);
    for (const t of tokens) {
      expect(isToken(t)).toBe(true);
      expect(t > "\u0000none" && t < " ").toBe(true);
    }
  });

  it("replaces a never-shown cover that ties with a shown label, and every report of the day reads the same", async () => {
    const db = await fresh();
    // /a and /b: 5 sessions and 5 pageviews each (a tie); /z: 2 (hidden). The hidden pages hold
    // fewer than k, so the smallest shown page is the cover: /a, by label. Same for utm_content
    // (a-team and b-team tie; z-team hidden) and the vitals of /a, /b.
    const group = (prefix: string, path: string, content: string) =>
      sessions(prefix, prefix === "z" ? 2 : 5).map((session) => ({
        site: SITE,
        session,
        path,
        ts: at(DAY, 10),
        dims: { utm_content: content },
      }));
    const events = [...group("a", "/a", "a-team"), ...group("b", "/b", "b-team"), ...group("z", "/z", "z-team")];
    await addEvents(db.client, events);
    await addVitals(
      db.client,
      events.map((e) => ({ site: SITE, session: e.session, path: e.path, metric: "LCP", value: 1200, ts: e.ts })),
    );
    await catchUp(db.client as never);
    const scope = await keyed(db);
    const read = async () => ({
      pages: await pagesReport(db.reader, scope),
      vitals: await vitalsReport(db.reader, scope),
      content: await breakdownReport(db.reader, scope, "utm_content"),
      entry: await breakdownReport(db.reader, scope, "entry_page"),
    });
    const before = await read();
    expect(before.pages.rows.map((r) => r.path)).toEqual(["/b", null]);
    expect(before.content.rows.map((r) => r.value)).toEqual(["b-team", null]);

    expect(await scrubLabels(db.client as never, { k: 5, before: "2026-09-02" })).toEqual({ scrubbed: 4, more: false });
    expect(await read()).toEqual(before);
    const labels = await db.client.execute(
      "SELECT path AS label FROM rollup_page_day UNION ALL SELECT value FROM rollup_dimension_day",
    );
    const texts = labels.rows.map((r) => String(r.label));
    for (const gone of ["/a", "/z", "a-team", "z-team"]) expect(texts).not.toContain(gone);
    expect(texts).toEqual(expect.arrayContaining(["/b", "b-team"]));
    // The vitals, histograms and entry pages of /a carry the same token as its page-day.
    const joined = await db.client.execute(
      "SELECT count(*) AS n FROM rollup_vital_histogram h JOIN rollup_page_day p ON p.site_id = h.site_id AND p.day = h.day AND p.path = h.path",
    );
    expect(Number(joined.rows[0]!.n)).toBe(3);
    // Done: the watermark has passed the day.
    expect(await scrubLabels(db.client as never, { k: 5, before: "2026-09-02" })).toEqual({ scrubbed: 0, more: false });
  });

  it("keeps the paths a page goal with an atom that day matches: its decision reads them", async () => {
    const db = await fresh();
    await db.client.execute({
      sql: "INSERT INTO goals (id, site_id, name, kind, match, created_at) VALUES ('g_reset', ?, 'reset', 'page', '/reset/*', 0)",
      args: [SITE],
    });
    const crowd = sessions("c", 6).map((session) => ({ site: SITE, session, path: "/", ts: at(DAY, 10) }));
    const reset = sessions("r", 2).map((session) => ({ site: SITE, session, path: "/reset/tok-1", ts: at(DAY, 11) }));
    const other = sessions("o", 5).map((session) => ({ site: SITE, session, path: "/u/alice", ts: at(DAY, 11) }));
    await addEvents(db.client, [...crowd, ...reset, ...other]);
    await addConversions(
      db.client,
      reset.map((e) => ({ site: SITE, goal: "g_reset", session: e.session, ts: e.ts })),
    );
    await catchUp(db.client as never);
    const scope = await keyed(db);
    const before = await conversionsReport(db.reader, scope);
    await scrubLabels(db.client as never, { k: 5, before: "2026-09-02" });
    expect(await conversionsReport(db.reader, scope)).toEqual(before);
    const paths = (await db.client.execute("SELECT path FROM rollup_page_day ORDER BY path")).rows.map((r) => String(r.path));
    expect(paths.filter((p) => !isToken(p))).toEqual(["/", "/reset/tok-1"]);
  });
});
