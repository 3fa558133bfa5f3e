/**
 * Attacks 7 and 8 of the privacy issue against the real stack (`wren start`: the collector, the
 * api, the publisher, the embedded libSQL server), each refused:
 *  7. the sessions list: today's visitors one by one, to the millisecond, with the page they
 *     entered on, though the reports hide them;
 *  8. polling the site's verification to follow visitors beacon by beacon (time and page).
 * Beacons come through the real collector over loopback, with a forged browser User-Agent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastCompleteDay } from "../../worker/reports/period";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { BROWSER_UA, sleep } from "../collector/helpers";
import type { Answer } from "../helpers/http";
import { waitForPublication } from "../helpers/stack";
import { addEvents, sessions } from "../reports/helpers";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let f: ApiFixture;
beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
}, 120_000);
afterAll(async () => {
  await f?.close();
});


/** One pageview beacon, as the tracker sends it from a page of `domain`. */
async function beacon(domain: string, site: string, session: string, path: string): Promise<void> {
  const res = await fetch(`${f.stack.url}/e`, {
    method: "POST",
    headers: { "content-type": "text/plain", origin: `https://${domain}`, "user-agent": BROWSER_UA },
    body: JSON.stringify({ site, session, events: [{ type: "pageview", path }] }),
  });
  expect(res.status, await res.text()).toBe(202);
}

type Listed = { day: string; hour: string | null; entry_path: string | null };

/** Every page of a site's sessions list, as a client walks it. */
async function listAll(site: string, limit = 5): Promise<{ sessions: Listed[]; publishedThrough: string; texts: string[] }> {
  const listed: Listed[] = [];
  const texts: string[] = [];
  let publishedThrough = "";
  let cursor: string | null = null;
  do {
    const page: Answer<{ sessions: Listed[]; next_cursor: string | null; published_through: string }> = await f.admin("GET", `/api/v1/sessions?site=${site}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(page.status, page.text).toBe(200);
    texts.push(page.text);
    publishedThrough = page.body.published_through;
    listed.push(...page.body.sessions);
    cursor = page.body.next_cursor;
  } while (cursor);
  return { sessions: listed, publishedThrough, texts };
}

const sorted = (rows: Listed[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe("attack 8: polling the verification endpoint", () => {
  it("says verified with the first beacon's time, origin and page, and nothing about later visitors, across a restart", async () => {
    const domain = "verify-poll.example";
    const site = (await f.makeSite(domain)).id;
    const poll = async () => {
      const res = await f.admin("GET", `/api/v1/sites/${site}/verification`);
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    expect(await poll()).toEqual({ site, verified: false, first_seen: null, origin: null, page: null });

    const seen: unknown[] = [];
    const sentAt: number[] = [];
    for (const [i, path] of ["/", "/pricing", "/account/delete", "/careers"].entries()) {
      sentAt.push(Date.now());
      await beacon(domain, site, `poll-visitor-${i}-abcdefgh`, path);
      await sleep(20);
      seen.push(await poll());
    }
    // A restart: a new collector isolate forgets which origins it has recorded; the database keeps the first.
    await f.seedHistory(async () => {});
    await beacon(domain, site, "poll-visitor-late-abcdefgh", "/after-restart");
    seen.push(await poll());

    const first = seen[0] as { first_seen: string };
    expect(Date.parse(first.first_seen)).toBeGreaterThanOrEqual(sentAt[0]!);
    expect(Date.parse(first.first_seen)).toBeLessThan(sentAt[1]!);
    // Every poll after the first beacon reads the same: its time, origin and page, no later time or page.
    expect(seen).toEqual(seen.map(() => ({ site, verified: true, first_seen: first.first_seen, origin: `https://${domain}`, page: "/" })));
    const stored = await f.database().execute({ sql: "SELECT * FROM site_beacons WHERE site_id = ?", args: [site] });
    expect(stored.columns).toEqual(["site_id", "origin", "first_seen", "path"]);
    expect(stored.rows.map((r) => ({ ...r }))).toEqual([{ site_id: site, origin: `https://${domain}`, first_seen: Date.parse(first.first_seen), path: "/" }]);
  }, 120_000);
});

describe("attack 7: the sessions list", () => {
  it("shows a published day's sessions to the hour only where the timeseries shows the hour, entry pages only where the pages report does", async () => {
    const site = (await f.makeSite("sessions-history.example")).id;
    const Y = lastCompleteDay("UTC", Date.now());
    const atY = (hour: number, ms = 0) => Date.parse(`${Y}T${String(hour).padStart(2, "0")}:07:00Z`) + ms;
    // Yesterday: 10 sessions enter "/" at 12:07, 6 "/pricing" at 13:07, 5 "/docs" at 14:07, 1 "/secret" at 15:07.
    const groups: [string, number, number][] = [
      ["/", 12, 10],
      ["/pricing", 13, 6],
      ["/docs", 14, 5],
      ["/secret", 15, 1],
    ];
    await f.seedHistory(async (history) => {
      for (const [path, hour, n] of groups) {
        const ids = sessions(`hist${path.replace("/", "-")}-`, n);
        await addEvents(history, ids.map((session) => ({ site, session, path, ts: atY(hour, 123) })));
        for (const id of ids) {
          await history.execute({
            sql: "INSERT INTO sessions (id, site_id, first_seen, last_seen, entry_path) VALUES (?, ?, ?, ?, ?)",
            args: [id, site, atY(hour, 123), atY(hour, 123), path],
          });
        }
      }
    });
    const { sessions: listed, publishedThrough, texts } = await listAll(site);
    expect(publishedThrough).toBe(Y);
    // "/secret" and its hour are hidden. Pages: "/docs" is hidden with "/secret" as its cover.
    // Hours: 12:00, the day's first hour of k, is the hours' cover, hidden with 15:00.
    const hour = (h: number) => new Date(Date.parse(`${Y}T${String(h).padStart(2, "0")}:00:00Z`)).toISOString();
    const expected: Listed[] = [
      ...Array.from({ length: 10 }, () => ({ day: Y, hour: null, entry_path: "/" })),
      ...Array.from({ length: 6 }, () => ({ day: Y, hour: hour(13), entry_path: "/pricing" })),
      ...Array.from({ length: 5 }, () => ({ day: Y, hour: hour(14), entry_path: null })),
      { day: Y, hour: null, entry_path: null },
    ];
    expect(sorted(listed)).toEqual(sorted(expected));
    // The same cells the reports show: the hours and pages the list names are the visible ones.
    const series = await f.admin("GET", `/api/v1/timeseries?site=${site}&period=day&interval=hour`);
    expect(series.body.points.filter((p: { visitors: { value: number | null } }) => p.visitors.value).map((p: { start: string }) => p.start)).toEqual([hour(13), hour(14)]);
    const pages = await f.admin("GET", `/api/v1/pages?site=${site}&period=day`);
    expect(pages.body.rows.filter((r: { visitors: { value: number | null } }) => r.visitors.value !== null).map((r: { path: string }) => r.path).sort()).toEqual(["/", "/pricing"]);
    // Nothing finer than the hour, nothing of the stored ids.
    expect(texts.join("")).not.toMatch(/:07:00|\.123Z|hist-/);
  }, 120_000);

  it("lists none of today's sessions, and once their day is published no millisecond time and no entry page of a hidden page", async () => {
    const domain = "sessions-live.example";
    const site = (await f.makeSite(domain)).id;
    // All beacons in one hour (and one day): wait if the hour ends within the next minute.
    const left = HOUR - (Date.now() % HOUR);
    if (left < 60_000) await sleep(left + 1_000);
    const sent = Date.now();
    // Today: 10 visitors enter on "/", 6 on "/pricing", 5 on "/docs", 1 on "/secret".
    const groups: [string, number][] = [
      ["/", 10],
      ["/pricing", 6],
      ["/docs", 5],
      ["/secret", 1],
    ];
    for (const [path, n] of groups) {
      for (const id of sessions(`live${path.replace("/", "-")}-`, n)) await beacon(domain, site, `${id}-abcdefghij`, path);
    }
    await waitForPublication(f.stack.url);
    const client = f.database();
    const stored = await client.execute({ sql: "SELECT first_seen, entry_path FROM sessions WHERE site_id = ?", args: [site] });
    expect(stored.rows).toHaveLength(22);
    const times = stored.rows.map((r) => Number(r.first_seen));
    // What the old list gave away: each visitor's arrival to the millisecond, minutes ago.
    expect(Math.min(...times)).toBeGreaterThanOrEqual(sent);

    const today = await listAll(site);
    expect(today).toEqual({ sessions: [], publishedThrough: lastCompleteDay("UTC", Date.now()), texts: expect.any(Array) });

    // The same visitors a day earlier, as if their day had ended: a published day, listed.
    await f.rewindDays(1);
    const Y = lastCompleteDay("UTC", Date.now());
    const hourStart = new Date(sent - (sent % HOUR) - DAY).toISOString();
    expect(Y).toBe(hourStart.slice(0, 10));
    const { sessions: listed, publishedThrough, texts } = await listAll(site);
    expect(publishedThrough).toBe(Y);
    // One hour of 22 visitors: shown. "/secret" (1) is hidden and "/docs" (5) covers it: null.
    const expected: Listed[] = [
      ...Array.from({ length: 10 }, () => ({ day: Y, hour: hourStart, entry_path: "/" })),
      ...Array.from({ length: 6 }, () => ({ day: Y, hour: hourStart, entry_path: "/pricing" })),
      ...Array.from({ length: 6 }, () => ({ day: Y, hour: hourStart, entry_path: null })),
    ];
    expect(sorted(listed)).toEqual(sorted(expected));
    expect(listed.every((s) => Object.keys(s).sort().join() === "day,entry_path,hour")).toBe(true);
    // No stored time appears, and every time in the answers is a whole hour.
    const shifted = times.map((t) => new Date(t - DAY).toISOString());
    for (const text of texts) {
      for (const t of shifted) expect(text).not.toContain(t);
      for (const [instant] of text.matchAll(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g)) expect(instant).toMatch(/T\d{2}:00:00\.000Z$/);
      expect(text).not.toContain("/secret");
      expect(text).not.toContain("/docs");
    }
  }, 180_000);
});
