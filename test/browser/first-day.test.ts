/**
 * A site's first day in real Chromium against the real stack: a verified site (Europe/Berlin, or
 * another zone when Berlin's day has just begun: see ZONE)
 * with six visitors in an hour that has closed and one beacon in the running hour shows the
 * Overview's first-day panel — the band of beacons, up to when it is counted, and when this
 * hour's and today's figures appear, in the site's zone — and every report screen starts with
 * its freshness line: the period it covers and when its next figures arrive. The hour's rows
 * are written an hour back (fixtures.seedHistory), so nothing waits for a real hour to pass.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDate, formatInstant, formatRange, formatTime } from "../../dashboard/src/ui/time";
import { addDays, localDate, localHourStart, startOfLocalDay } from "../../worker/reports/timezone";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { BROWSER_UA } from "../collector/helpers";
import { launchChromium } from "../helpers/browser";
import { openDashboardPage, signIn } from "../helpers/dashboard-page";
import { waitForPublication } from "../helpers/stack";
import { addEvents } from "../reports/helpers";

const DOMAIN = "first-day.wren.test";
/**
 * The site's zone: one where the seeded hour and the three before it lie in today, local — Berlin
 * unless its day began less than five hours ago (then a seeded hour yesterday reads by other rules,
 * and a CI run between 23:00 and 04:00 UTC failed), else New York or Tokyo.
 */
const ZONE = ["Europe/Berlin", "America/New_York", "Asia/Tokyo"].find((zone) => {
  const hour = Number(new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", hourCycle: "h23" }).format(new Date()));
  return hour >= 5 && hour <= 21;
})!;
const HOUR = 3_600_000;
const GRACE = 15_000;

let f: ApiFixture;
let browser: Browser;
let site = "";
/** When the seeded visitors came: in an hour that has closed. */
let seeded = 0;

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  browser = await launchChromium([`--user-agent=${BROWSER_UA}`]);
  site = (await f.admin("POST", "/api/v1/sites", { name: "First day", domain: DOMAIN, timezone: ZONE })).body.id;
  await f.makeGoal(site, { name: "Signed up", kind: "event", match: "signup" });
  seeded = Date.now() - 70 * 60_000;
  const visitors = ["fd-a1", "fd-b2", "fd-c3", "fd-d4", "fd-e5", "fd-f6"];
  await f.seedHistory(async (db) => {
    for (const id of visitors) {
      await db.execute({
        sql: "INSERT INTO sessions (id, site_id, first_seen, last_seen, entry_path) VALUES (?, ?, ?, ?, '/')",
        args: [id, site, seeded, seeded + 60_000],
      });
    }
    await db.execute({
      sql: "INSERT INTO site_beacons (site_id, origin, first_seen, path) VALUES (?, ?, ?, '/')",
      args: [site, `http://${DOMAIN}`, seeded],
    });
    // The site was made three hours before them, so the hours between read "< 5", not "no data".
    await db.execute({ sql: "UPDATE sites SET created_at = ? WHERE id = ?", args: [seeded - 3 * HOUR, site] });
    await addEvents(
      db,
      visitors.flatMap((session) => [0, 1].map((i) => ({ site, session, path: "/", ts: seeded + i * 1000 }))),
    );
  });
  // And one visitor now, through the collector: the running hour.
  const sent = await fetch(`${f.stack.url}/e`, {
    method: "POST",
    headers: { "content-type": "text/plain", origin: `http://${DOMAIN}`, "user-agent": BROWSER_UA },
    body: JSON.stringify({ site, session: "first-day-visitor-now", events: [{ type: "pageview", path: "/" }] }),
  });
  expect(sent.status, await sent.text()).toBe(202);
  await waitForPublication(f.stack.url);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await f?.close();
});

async function signedIn(): Promise<{ page: Page; done: () => Promise<void>; errors: string[] }> {
  const { page, context, errors } = await openDashboardPage(browser);
  await signIn(page, f.stack.url, f.stack.adminKey!);
  return { page, errors, done: () => context.close() };
}

/** The publication instant now, from /healthz. */
async function publishedThrough(): Promise<number> {
  return Date.parse((await f.admin("GET", "/healthz")).body.publisher.published_through);
}

/** When the running local hour's figures and today's are published (independently of worker/reports/freshness.ts). */
function expectedNext(through: number): { hour: string; day: string } {
  return {
    hour: new Date(localHourStart(ZONE, through) + HOUR + GRACE).toISOString(),
    day: new Date(startOfLocalDay(ZONE, addDays(localDate(ZONE, through), 1)) + GRACE).toISOString(),
  };
}

const freshness = (page: Page) => page.getByTestId("freshness");

/** The reasons the lead's hour rule names (worker/reports/privacy), as the dashboard words them. */
const REASONS: Record<string, string> = {
  quiet_hours: "The day has not yet had 5 sessions in one hour, so quiet hours are not told apart from empty ones.",
  small_group: "Fewer than 5 sessions.",
  day_protection: "Hidden so that the day's total cannot be subtracted down to a few people.",
};

describe("the first day", () => {
  it("shows what arrived as a band, up to when, and when this hour's and today's figures appear, in the site's zone", async () => {
    const arrivals = (await f.admin("GET", `/api/v1/sites/${site}/arrivals`)).body;
    expect(arrivals).toMatchObject({ status: "first_day", timezone: ZONE, k: 5, first_beacon: new Date(seeded).toISOString() });
    expect(arrivals.counted_through).toBe(new Date(localHourStart(ZONE, seeded) + HOUR).toISOString());
    expect(arrivals.beacons.qualifier).toBe("estimated");
    expect(arrivals.beacons.high - arrivals.beacons.low).toBe(4);
    expect(arrivals.next_figures).toEqual(expectedNext(await publishedThrough()));

    const { page, done, errors } = await signedIn();
    await page.goto(`${f.stack.url}/dashboard/s/${site}/overview?period=today`);
    const panel = page.getByTestId("first-day");
    await panel.waitFor();
    expect(await panel.getByRole("heading").textContent()).toBe("First day");
    expect(await panel.locator("p").first().textContent()).toBe(
      `The snippet works: the first beacon arrived at ${formatInstant(arrivals.first_beacon, ZONE)}.`,
    );
    expect(await page.getByTestId("first-day-arrived").textContent()).toBe(
      `Beacons arrived since ${formatTime(arrivals.first_beacon, ZONE)}: ${arrivals.beacons.low}–${arrivals.beacons.high} (counted up to ${formatTime(arrivals.counted_through, ZONE)}).`,
    );
    expect(await page.getByTestId("first-day-appear").textContent()).toBe(
      `This hour's figures appear at ${formatTime(arrivals.next_figures.hour, ZONE)} (${ZONE}); its pages and sources join today's ranges then; vitals and funnels at ${formatInstant(arrivals.next_figures.day, ZONE)}, when the day ends.`,
    );
    // The local time, in the site's zone: "15:00 CET" for an hour that ends at 14:00 UTC.
    expect(formatTime(arrivals.next_figures.hour, ZONE)).toMatch(/^\d{2}:00 (?:[A-Z]{3,5}|GMT[+-]\d{1,2})$/);
    expect(errors).toEqual([]);
    await done();
  }, 60_000);

  it("starts every report screen with the period it covers and when its next figures arrive", async () => {
    const { page, done, errors } = await signedIn();
    const read = async (path: string) => (await f.admin("GET", path)).body;

    // Overview, today: closed hours so far, and the running hour's end.
    const today = await read(`/api/v1/timeseries?site=${site}&period=today&interval=hour`);
    expect(today.next_figures).toEqual(expectedNext(await publishedThrough()));
    await page.goto(`${f.stack.url}/dashboard/s/${site}/overview?period=today`);
    const hourly =
      today.points.length === 0
        ? `No hour of this period has closed yet: the first figures arrive at ${formatTime(today.next_figures.hour, ZONE)} (${ZONE}).`
        : `Covers ${formatRange(today.period.start, today.period.end, ZONE)} (${ZONE}). Next figures at ${formatTime(today.next_figures.hour, ZONE)} (${ZONE}).`;
    await expect.poll(() => freshness(page).first().textContent()).toBe(hourly);

    // Whole-day screens over 7 days: from–to in the site's zone, and the next local midnight.
    const week = await read(`/api/v1/pages?site=${site}&period=7d`);
    const { from, to } = week.period;
    const nextDay = `${formatInstant(week.next_figures.day, ZONE)} (${ZONE}), when today ends`;
    const covers = `Covers ${formatDate(from)} – ${formatDate(to)} (${ZONE}). Next figures at ${nextDay}.`;
    expect(week.next_figures.day).toBe(expectedNext(await publishedThrough()).day);
    expect(to).toBe(addDays(localDate(ZONE, Date.now() - GRACE), -1));
    for (const screen of ["overview", "sources", "goals"]) {
      await page.goto(`${f.stack.url}/dashboard/s/${site}/${screen}?period=7d`);
      await expect.poll(() => freshness(page).first().textContent(), { message: screen }).toBe(covers);
    }
    // Pages and Vitals with nothing yet (the visitors came today) say when there will be something.
    for (const screen of ["pages", "vitals"]) {
      const rows = (await read(`/api/v1/${screen}?site=${site}&period=7d`)).rows.length;
      await page.goto(`${f.stack.url}/dashboard/s/${site}/${screen}?period=7d`);
      const expected = rows === 0 ? `Nothing in this period yet. The next figures arrive at ${nextDay}.` : covers;
      await expect.poll(() => freshness(page).first().textContent(), { message: screen }).toBe(expected);
    }
    expect((await read(`/api/v1/vitals?site=${site}&period=7d`)).rows).toEqual([]);
    // Sessions: the published days, and when the next one is listed.
    await page.goto(`${f.stack.url}/dashboard/s/${site}/sessions`);
    await expect
      .poll(() => freshness(page).first().textContent())
      .toBe(
        `Covers the published days through ${formatDate(to)} (${ZONE}). Next day at ${formatInstant(week.next_figures.day, ZONE)} (${ZONE}), when today ends.`,
      );
    expect(errors).toEqual([]);
    await done();
  }, 120_000);

  it("says why each hidden hour is hidden, in the table's tooltips and the chart's legend, from points[].hidden", async () => {
    // The reasons the API gives (the hours before the day's first hour of k read as quiet hours).
    const series = (await f.admin("GET", `/api/v1/timeseries?site=${site}&period=24h`)).body;
    const given = new Map<string, string>(
      series.points
        .filter((p: { hidden?: string }) => p.hidden)
        .map((p: { start: string; hidden: string }) => [p.start, p.hidden]),
    );
    expect(given.size).toBeGreaterThan(0);
    expect([...given.values()].every((reason) => reason in REASONS)).toBe(true);
    const { page, done, errors } = await signedIn();
    await page.goto(`${f.stack.url}/dashboard/s/${site}/overview?period=24h`);
    const rows = page.locator("table.overview-points tbody tr");
    await expect.poll(() => rows.locator("td [data-qualifier=suppressed]").count()).toBeGreaterThan(0);
    // Each hidden hour's cells (visitors, pageviews, conversions) carry its point's own reason.
    const cells = await rows.evaluateAll((trs) =>
      trs.flatMap((tr) =>
        [...tr.querySelectorAll("td [data-qualifier=suppressed]")].map((cell) => [
          tr.querySelector("time")!.getAttribute("datetime")!,
          cell.getAttribute("title")!,
        ]),
      ),
    );
    // (Hours before the site existed read "no data" instead, not as a hidden figure.)
    expect(cells.length).toBeGreaterThan(0);
    for (const [start, title] of cells) expect(title, start).toBe(REASONS[given.get(start)!]);
    // The chart's legend names the reason where the cursor stands on a gap.
    const all = await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelector("time")!.getAttribute("datetime")!));
    const gap = all.findIndex((start) => cells.some(([s]) => s === start));
    const plot = page.locator(".chart .u-over");
    const box = (await plot.boundingBox())!;
    await plot.hover({ position: { x: Math.round((box.width * gap) / (all.length - 1)), y: Math.round(box.height / 2) } });
    const short: Record<string, string> = {
      small_group: "small group",
      quiet_hours: "quiet hours",
      day_protection: "protects the day",
    };
    const legend = page.locator(".chart .u-legend");
    await expect.poll(() => legend.textContent()).toMatch(/Visitors< 5: /);
    // The legend's time is the site's clock ("2026-11-26 2:00pm"): the hidden hour the cursor is on.
    const text = (await legend.textContent())!;
    const [, date, hour, minute, half] = /(\d{4}-\d{2}-\d{2}) (\d{1,2}):(\d{2})(am|pm)/.exec(text)!;
    const local = (Number(hour) % 12) + (half === "pm" ? 12 : 0);
    const at = new Date(startOfLocalDay(ZONE, date!) + local * HOUR + Number(minute) * 60_000).toISOString();
    const label = `< 5: ${short[given.get(at)!]}`;
    expect(text).toContain(`Visitors${label}Pageviews${label}Conversions${label}`);
    expect(errors).toEqual([]);
    await done();
  }, 60_000);
});
