/**
 * GET /api/v1/sessions and GET /api/v1/sites/{id}/verification on the real stack: exact pages
 * of the sessions list (published days, each with the very figures the timeseries and the
 * entry-page breakdown show; WREN_K_ANONYMITY and WREN_RAW_RETENTION_DAYS applied), the day
 * cursor, every bad parameter as a problem naming it, and the documented shape: no per-session
 * row; a verification with the first beacon only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastCompleteDay } from "../../worker/reports/period";
import { addDays } from "../../worker/reports/timezone";
import { BROWSER_UA } from "../collector/helpers";
import { waitForPublication } from "../helpers/stack";
import { addEvents, sessions, shown } from "../reports/helpers";
import { apiFixture, type ApiFixture } from "./fixtures";

let f: ApiFixture;
let site: string;
const Y = lastCompleteDay("UTC", Date.now());
const Y1 = addDays(Y, -1);
const Y2 = addDays(Y, -2);
const at = (day: string, hour: number) => Date.parse(`${day}T${String(hour).padStart(2, "0")}:05:00.250Z`);

beforeAll(async () => {
  // k = 3; raw sessions kept 3 days, so Y2 (which began more than 3 days ago) is not listed.
  f = await apiFixture({ WREN_K_ANONYMITY: "3", WREN_RAW_RETENTION_DAYS: "3" });
  site = (await f.makeSite("sessions-api.example")).id;
  await f.seedHistory(async (history) => {
    const enter = async (ids: string[], path: string, ts: number) => {
      await addEvents(history, ids.map((session) => ({ site, session, path, ts })));
      for (const id of ids) {
        await history.execute({
          sql: "INSERT INTO sessions (id, site_id, first_seen, last_seen, entry_path) VALUES (?, ?, ?, ?, ?)",
          args: [id, site, ts, ts, path],
        });
      }
    };
    // Y: 6 sessions enter "/" at 10:05: the hour and the page hold all 6, shown.
    await enter(sessions("y", 6), "/", at(Y, 10));
    // Y1: 3 enter "/a" at 08:05, 1 "/b" at 09:05 (k = 3). 08:00 holds k: shown as it closed; the
    // day minus it would be the 1 of 09:00, so the day reads as 08:00 alone, and its entry pages
    // hide (3 of 4 leaves 1).
    await enter(sessions("y1a", 3), "/a", at(Y1, 8));
    await enter(["y1b0"], "/b", at(Y1, 9));
    // Y2: 5 sessions, a day the reports show, but older than the retention window.
    await enter(sessions("y2", 5), "/", at(Y2, 12));
  });
}, 120_000);
afterAll(() => f?.stack.stop());

const page = (query: string) => f.admin("GET", `/api/v1/sessions?site=${site}${query}`);

/** What the reports show of one day: the daily and hourly timeseries' visitors, and the entry-page breakdown. */
async function reportsOf(day: string) {
  const q = `site=${site}&period=day&date=${day}`;
  const [daily, hourly, entries] = await Promise.all([
    f.admin("GET", `/api/v1/timeseries?${q}`),
    f.admin("GET", `/api/v1/timeseries?${q}&interval=hour`),
    f.admin("GET", `/api/v1/breakdown?${q}&dimension=entry_page`),
  ]);
  type Point = { start: string; visitors: { value: number | null } };
  return {
    day,
    sessions: daily.body.points[0].visitors,
    hours: hourly.body.points.filter((p: Point) => p.visitors.value).map((p: Point) => ({ hour: p.start, sessions: p.visitors })),
    entry_pages: entries.body.rows
      .filter((r: { value: string | null; visitors: { value: number | null } }) => r.value !== null && r.visitors.value !== null)
      .map((r: { value: string; visitors: unknown }) => ({ path: r.value, sessions: r.visitors }))
      .sort((x: { path: string }, y: { path: string }) => x.path.localeCompare(y.path)),
  };
}

describe("GET /api/v1/sessions", () => {
  it("pages through published days by a day cursor, each with the figures the reports show", async () => {
    const [y, y1] = [await reportsOf(Y), await reportsOf(Y1)];
    // Y: 6 sessions, all in 10:00 and on "/": the day, its hour and its entry page are shown, perturbed.
    const perturbed = await shown(f.database(), "rollup_site_day", { site_id: site, day: Y }, 6, "units", 3);
    expect(y.sessions).toEqual({ value: perturbed, qualifier: "estimated" });
    expect(y.hours.map((h: { hour: string }) => h.hour)).toEqual([new Date(Date.parse(`${Y}T10:00:00Z`)).toISOString()]);
    expect(y.entry_pages.map((e: { path: string }) => e.path)).toEqual(["/"]);
    // Y1: 4 sessions (k = 3): 08:00 shown, the day read as it (a lower bound), every entry page hidden, none named.
    expect(y1).toEqual({
      day: Y1,
      sessions: { value: expect.any(Number), qualifier: "estimated" },
      hours: [{ hour: new Date(Date.parse(`${Y1}T08:00:00Z`)).toISOString(), sessions: { value: expect.any(Number), qualifier: "estimated" } }],
      entry_pages: [],
    });
    const first = await page("&limit=1");
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ days: [y], k: 3, next_cursor: Y1, published_through: Y, timezone: "UTC", next_day_at: `${addDays(Y, 2)}T00:00:00.000Z` });
    const second = await page(`&limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body).toEqual({ days: [y1], k: 3, next_cursor: null, published_through: Y, timezone: "UTC", next_day_at: `${addDays(Y, 2)}T00:00:00.000Z` });
    // Y2 is older than the retention window: not listed. Today (UTC) ends at the next midnight.
    expect((await page("")).body).toEqual({ days: [y, y1], k: 3, next_cursor: null, published_through: Y, timezone: "UTC", next_day_at: `${addDays(Y, 2)}T00:00:00.000Z` });
  });

  it("refuses a malformed cursor or limit and an unknown site, naming the field", async () => {
    for (const cursor of ["17", `${Y}.4`, "2026-02-31", `${Y}x`, "bogus"]) {
      const res = await page(`&cursor=${cursor}`);
      expect([res.status, res.headers.get("content-type"), res.body.field], cursor).toEqual([400, "application/problem+json", "cursor"]);
    }
    expect((await page("&limit=501")).body).toMatchObject({ status: 400, field: "limit" });
    const missing = await f.admin("GET", "/api/v1/sessions?site=site_AAAAAAAAAAAAAAAA");
    expect([missing.status, missing.body.field]).toEqual([404, "site"]);
  });

  it("documents a day as its sessions, shown hours and shown entry pages only", async () => {
    const doc = (await f.admin("GET", "/api/v1/openapi.json")).body;
    const day = doc.components.schemas.SessionDay;
    expect(Object.keys(day.properties).sort()).toEqual(["day", "entry_pages", "hours", "sessions"]);
    expect([...day.required].sort()).toEqual(["day", "entry_pages", "hours", "sessions"]);
    expect(doc.components.schemas.Session).toBeUndefined();
    const list = doc.paths["/api/v1/sessions"].get.responses["200"].content["application/json"].schema;
    expect(Object.keys(list.properties).sort()).toEqual(["days", "k", "next_cursor", "next_day_at", "published_through", "timezone"]);
    expect(Object.keys(doc.components.schemas.SiteVerification.properties).sort()).toEqual(["first_seen", "origin", "page", "site", "verified"]);
  });
});

describe("GET /api/v1/sites/{id}/verification", () => {
  it("names the first beacon's time, origin and page, and nothing of a later one", async () => {
    const domain = "verify-api.example";
    const id = (await f.makeSite(domain)).id;
    const send = async (session: string, path: string) => {
      const res = await fetch(`${f.stack.url}/e`, {
        method: "POST",
        headers: { "content-type": "text/plain", origin: `https://${domain}`, "user-agent": BROWSER_UA },
        body: JSON.stringify({ site: id, session, events: [{ type: "pageview", path }] }),
      });
      expect(res.status).toBe(202);
    };
    const before = Date.now();
    await send("verify-api-first-visitor", "/welcome");
    const between = Date.now();
    const first = await f.admin("GET", `/api/v1/sites/${id}/verification`);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(["first_seen", "origin", "page", "site", "verified"]);
    expect(first.body).toMatchObject({ site: id, verified: true, origin: `https://${domain}`, page: "/welcome" });
    expect(Date.parse(first.body.first_seen)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(first.body.first_seen)).toBeLessThanOrEqual(between);
    await new Promise((r) => setTimeout(r, 5));
    await send("verify-api-later-visitor", "/private/page");
    await waitForPublication(f.stack.url);
    expect((await f.admin("GET", `/api/v1/sites/${id}/verification`)).body).toEqual(first.body);
  });
});
