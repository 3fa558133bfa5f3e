/**
 * Exploring with filters, in real Chromium (Debian's, via playwright-core) on the real stack
 * (`wren start`): on seeded days within the raw retention, a country's row on the Sources
 * screen adds `country:DE`, shown as a chip above every screen and kept in the address; the
 * Overview's trend, the Pages table and the Sources panels then draw exactly what the API answers
 * for the same filters. A source's row, chosen with the keyboard, adds a second filter; both
 * survive a reload; a chip flips to "is not" and is removed, the figures following each time, and
 * back and forward too. A
 * goal's row adds a third filter named by the goal, a fourth is refused in words, Today explains
 * that filters read whole days instead of failing, so does a period before the raw retention, and
 * "Clear filters" brings back every visitor.
 * A filtered figure of fewer than k sessions reads "< 5" with the words of every hidden figure.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { addConversions, addEvents, type RawEvent } from "../reports/helpers";
import { launchChromium } from "../helpers/browser";
import {
  drawsAsAnswered as follows,
  filterChips as chips,
  openDashboardPage,
  signIn,
  tableRows as rowsOf,
} from "../helpers/dashboard-page";

type Figure = { value: number | null; qualifier: string };

let f: ApiFixture;
let browser: Browser;
let site = "";
let checkout = "";

/** The general sentence of a hidden figure (dashboard/src/ui/hidden.ts), k = 5. */
const HIDDEN = "Hidden: fewer than 5 sessions, or hiding it keeps a small group from being worked out from the figures shown.";

const DAY_MS = 86_400_000;
/** A day `back` days before today (UTC, the site's zone), as YYYY-MM-DD. */
const day = (back: number) => new Date(Date.now() - back * DAY_MS).toISOString().slice(0, 10);
const at = (date: string, hour: number, minute = 0) =>
  Date.parse(`${date}T${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:00Z`);

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  browser = await launchChromium();
  site = (await f.makeSite("explore.wren.test", "Explore shop")).id;
  checkout = (await f.makeGoal(site, { name: "Checkout", kind: "event", match: "checkout" })).id;
  // Two full days 2 and 3 days ago, and 4 days ago two German visitors from Google only: within
  // the raw retention (30 days), so every filter reads them.
  const events: RawEvent[] = [];
  const conversions: { site: string; goal: string; session: string; ts: number }[] = [];
  for (const [back, n] of [
    [2, 40],
    [3, 36],
    [4, 2],
  ] as const) {
    const date = day(back);
    for (let i = 0; i < n; i++) {
      const session = `explore-${date}-${i}`;
      const country = i < 20 ? "DE" : i < 30 ? "FR" : i < 34 ? "US" : undefined;
      const dims = {
        ...(country ? { country } : {}),
        source: i % 2 === 0 ? "Google" : "Newsletter",
        browser: i < 24 ? "Chrome 131" : "Firefox 133",
        os: i < 20 ? "Windows" : i < 32 ? "macOS" : "Android",
        device: i < 30 ? "desktop" : "mobile",
      };
      events.push({ site, session, path: i < 25 ? "/" : "/pricing", ts: at(date, 10), dims });
      if (i % 3 === 0) events.push({ site, session, path: "/pricing", ts: at(date, 11) });
      if (i % 5 === 0) events.push({ site, session, path: "/blog/a", ts: at(date, 11, 30) });
      if (i % 4 === 0) conversions.push({ site, goal: checkout, session, ts: at(date, 12) });
    }
  }
  await f.seedHistory(async (db) => {
    await addEvents(db, events);
    await addConversions(db, conversions);
    // Registered and verified ten days ago: the seeded days are the site's own (not "no data"),
    // and the Overview shows its reports rather than "No data yet".
    await db.execute({ sql: "UPDATE sites SET created_at = ? WHERE id = ?", args: [Date.now() - 10 * DAY_MS, site] });
    await db.execute({
      sql: "INSERT INTO site_beacons (site_id, origin, first_seen, path) VALUES (?, ?, ?, ?)",
      args: [site, "http://explore.wren.test", at(day(4), 10), "/"],
    });
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await f?.close();
});

/** A figure as the dashboard draws it: "< 5" when suppressed (k = 5), "≈ n" when estimated. */
function shown(figure: Figure): string {
  if (figure.qualifier === "suppressed" || figure.value === null) return "< 5";
  return figure.qualifier === "estimated" ? `≈ ${figure.value}` : String(figure.value);
}

/** The API's answer to a report read with these filters (the admin key). */
async function report(path: string, filters: readonly string[]) {
  const search = filters.map((filter) => `&filter=${encodeURIComponent(filter)}`).join("");
  const res = await f.admin("GET", `${path}${search}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

type Point = { start: string; visitors: Figure; pageviews: Figure; conversions: Figure };

/** The Overview's trend as the API answers it: each day's figures and the totals, as drawn. */
async function trendOf(filters: readonly string[]) {
  const body = await report(`/api/v1/timeseries?site=${site}&period=7d&interval=day`, filters);
  const points: Point[] = body.points;
  return {
    points: points.map((p) => [p.start, shown(p.visitors), shown(p.pageviews), shown(p.conversions)]),
    totals: [shown(body.totals.visitors), shown(body.totals.pageviews), shown(body.totals.conversions)],
  };
}

/** The Overview's trend as the page draws it. */
async function drawnTrend(page: Page) {
  const table = page.locator("table.overview-points");
  return {
    points: await table
      .locator("tbody tr")
      .evaluateAll((trs) =>
        trs.map((tr) => [
          tr.querySelector("time")?.getAttribute("datetime"),
          ...[...tr.querySelectorAll("td")].map((td) => td.textContent),
        ]),
      ),
    totals: await table.locator("tfoot td").allTextContents(),
  };
}

type PageRow = { path: string | null; other: boolean; visitors: Figure; pageviews: Figure };

async function pagesOf(filters: readonly string[]) {
  const body = await report(`/api/v1/pages?site=${site}&period=7d&sort=visitors&order=desc`, filters);
  return (body.rows as PageRow[]).map((r) => [
    r.other ? "Other pages (fewer than 5 each)" : r.path,
    shown(r.visitors),
    shown(r.pageviews),
  ]);
}

type BreakdownRow = { value: string | null; other: boolean; visitors: Figure; pageviews: Figure };
const COUNTRIES: Record<string, string> = { DE: "Germany", FR: "France", US: "United States" };

/** A breakdown panel's rows as the API answers them, the filtered value marked "✓". */
async function breakdownOf(dimension: string, filters: readonly string[]) {
  const body = await report(
    `/api/v1/breakdown?site=${site}&period=7d&dimension=${dimension}&sort=visitors&order=desc&limit=10`,
    filters,
  );
  return (body.rows as BreakdownRow[]).map((r) => {
    const name = r.other
      ? "Other values (fewer than 5 each)"
      : r.value === null
        ? "(none)"
        : dimension === "country"
          ? `${r.value} ${COUNTRIES[r.value]}`
          : r.value;
    const marked = r.value !== null && filters.includes(`${dimension}:${r.value}`);
    return [marked ? `✓ ${name}` : name, shown(r.visitors), shown(r.pageviews)];
  });
}

const urlFilters = (page: Page) => new URL(page.url()).searchParams.getAll("filter");
const tab = (page: Page, name: string) =>
  page.getByRole("navigation", { name: "Site" }).getByRole("link", { name, exact: true }).click();

describe("filters in the dashboard", () => {
  it("follow a country then a source on every screen, survive a reload, flip, go, and refuse a fourth", async () => {
    const { page, context, errors } = await openDashboardPage(browser);
    const requests: URL[] = [];
    page.on("request", (request) => requests.push(new URL(request.url())));
    await signIn(page, f.stack.url, f.stack.adminKey!);

    // Unfiltered, the Overview's trend is the site's.
    await page.goto(`${f.stack.url}/dashboard/s/${site}/overview?period=7d`);
    await follows(
      () => drawnTrend(page),
      () => trendOf([]),
    );
    const everyone = await trendOf([]);
    expect(await page.locator(".filter-bar .chip").count()).toBe(0);

    // A country's row on the Sources screen adds its filter: a chip, the address, and the panels follow.
    await tab(page, "Sources");
    await follows(
      () => rowsOf(page, /^Countries/),
      () => breakdownOf("country", []),
    );
    // Visitors without a country (the "(none)" row) and the hidden ones ("Other values") name no value: no button, and a click adds nothing.
    const countries = page.getByRole("table", { name: /^Countries/ });
    const unnamed = countries.locator("tbody tr", { hasText: /^\(none\)|^Other values/ });
    expect(await unnamed.count()).toBe(2);
    expect(await unnamed.locator("button").count()).toBe(0);
    await unnamed.first().locator("td").first().click();
    await unnamed.last().locator("td").first().click();
    expect(urlFilters(page)).toEqual([]);
    await countries.getByRole("button", { name: "DE Germany" }).click();
    await expect.poll(() => chips(page)).toEqual(["Country is Germany"]);
    expect(urlFilters(page)).toEqual(["country:DE"]);
    await follows(
      () => rowsOf(page, /^Countries/),
      () => breakdownOf("country", ["country:DE"]),
    );
    await follows(
      () => rowsOf(page, /^Sources \(referrers\)/),
      () => breakdownOf("source", ["country:DE"]),
    );

    // The chips are above every report screen, the tabs keep the filter, and each screen follows.
    await tab(page, "Overview");
    await expect.poll(() => chips(page)).toEqual(["Country is Germany"]);
    await follows(
      () => drawnTrend(page),
      () => trendOf(["country:DE"]),
    );
    const germans = await trendOf(["country:DE"]);
    expect(germans.totals).not.toEqual(everyone.totals);
    // The chart is drawn from the same filtered read.
    expect(
      requests.some((url) => url.pathname === "/api/v1/timeseries" && url.searchParams.getAll("filter").join() === "country:DE"),
    ).toBe(true);
    expect(
      await page.locator("#overview-trend ~ .chart canvas, section[aria-labelledby=overview-trend] canvas").count(),
    ).toBeGreaterThan(0);
    // The deployment comparison follows too (a country is decided by the first pageview); the live counter says it does not.
    await expect
      .poll(() =>
        requests.some((url) => url.pathname === "/api/v1/overview" && url.searchParams.getAll("filter").join() === "country:DE"),
      )
      .toBe(true);
    expect(await page.getByRole("note").filter({ hasText: "The comparison is not filtered" }).count()).toBe(0);
    await page.getByRole("note").filter({ hasText: "The live counter is not filtered" }).waitFor();
    await tab(page, "Pages");
    await expect.poll(() => chips(page)).toEqual(["Country is Germany"]);
    await follows(
      () => rowsOf(page, /^Pages by path/),
      () => pagesOf(["country:DE"]),
    );
    expect(await pagesOf(["country:DE"])).not.toEqual(await pagesOf([]));
    await tab(page, "Vitals");
    // Vitals follow too: the screen reads the vitals report with the filter (no "not filtered" note).
    await expect.poll(() => page.getByRole("note").filter({ hasText: "not filtered" }).count()).toBe(0);

    // A source's row, with the keyboard: Enter on it adds the second filter.
    await tab(page, "Sources");
    const google = page
      .getByRole("table", { name: /^Sources \(referrers\)/ })
      .getByRole("button", { name: "Google", exact: true });
    await google.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => chips(page)).toEqual(["Country is Germany", "Source is Google"]);
    expect(urlFilters(page)).toEqual(["country:DE", "source:Google"]);
    const both = ["country:DE", "source:Google"];
    await follows(
      () => rowsOf(page, /^Countries/),
      () => breakdownOf("country", both),
    );
    await tab(page, "Pages");
    await follows(
      () => rowsOf(page, /^Pages by path/),
      () => pagesOf(both),
    );
    await tab(page, "Overview");
    await follows(
      () => drawnTrend(page),
      () => trendOf(both),
    );
    const germansFromGoogle = await trendOf(both);
    expect(germansFromGoogle.totals).not.toEqual(germans.totals);

    // Four days ago two Germans came from Google: fewer than k, the day reads "< 5" as any hidden figure does, never 0.
    const fourDaysAgo = (await report(`/api/v1/timeseries?site=${site}&period=7d&interval=day`, both)).points.find(
      (p: Point & { local: string }) => p.local.startsWith(day(4)),
    ) as Point;
    expect(fourDaysAgo.visitors).toEqual({ value: null, qualifier: "suppressed" });
    const hiddenCell = page
      .locator("table.overview-points tbody tr", { has: page.locator(`time[datetime="${fourDaysAgo.start}"]`) })
      .locator("td")
      .first();
    expect(await hiddenCell.textContent()).toBe("< 5");
    expect(await hiddenCell.locator(".figure").getAttribute("title")).toBe(HIDDEN);

    // A reload keeps both.
    await page.reload();
    await expect.poll(() => chips(page)).toEqual(["Country is Germany", "Source is Google"]);
    await follows(
      () => drawnTrend(page),
      () => trendOf(both),
    );

    // A chip flips to "is not": the Germans are left out, the figures follow.
    await page.getByRole("button", { name: "Country is Germany: change to is not" }).click();
    await expect.poll(() => chips(page)).toEqual(["Country is not Germany", "Source is Google"]);
    expect(urlFilters(page)).toEqual(["country!:DE", "source:Google"]);
    await follows(
      () => drawnTrend(page),
      () => trendOf(["country!:DE", "source:Google"]),
    );

    // Its × removes it: the figures return to those of the source alone.
    await page.getByRole("button", { name: "Remove filter Country is not Germany" }).click();
    await expect.poll(() => chips(page)).toEqual(["Source is Google"]);
    expect(urlFilters(page)).toEqual(["source:Google"]);
    await follows(
      () => drawnTrend(page),
      () => trendOf(["source:Google"]),
    );
    expect((await trendOf(["source:Google"])).totals).not.toEqual(germansFromGoogle.totals);
    // The focus, whose button went, is on the line under the chips.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.id)).toBe("filters-hint");
    // Back and forward step through the filters as through any view.
    await page.goBack();
    await expect.poll(() => chips(page)).toEqual(["Country is not Germany", "Source is Google"]);
    await follows(
      () => drawnTrend(page),
      () => trendOf(["country!:DE", "source:Google"]),
    );
    await page.goForward();
    await expect.poll(() => chips(page)).toEqual(["Source is Google"]);
    await follows(
      () => drawnTrend(page),
      () => trendOf(["source:Google"]),
    );

    // A click anywhere on a row adds its filter; a goal's chip names the goal.
    await tab(page, "Sources");
    await page
      .getByRole("table", { name: /^Devices/ })
      .locator("tbody tr", { hasText: "desktop" })
      .locator("td")
      .first()
      .click();
    await expect.poll(() => chips(page)).toEqual(["Source is Google", "Device is desktop"]);
    await tab(page, "Goals & funnels");
    await page
      .getByRole("table", { name: /^Conversions by goal/ })
      .getByRole("button", { name: "Checkout" })
      .click();
    await expect.poll(() => chips(page)).toEqual(["Source is Google", "Device is desktop", "Goal is Checkout"]);
    expect(urlFilters(page)).toEqual(["source:Google", "device:desktop", `goal:${checkout}`]);

    // A fourth is refused, in words; nothing changes.
    await tab(page, "Sources");
    await page
      .getByRole("table", { name: /^Systems/ })
      .getByRole("button", { name: "Windows" })
      .click();
    await expect
      .poll(() => page.locator(".filter-bar [role=status]").textContent())
      .toBe("At most 3 filters: remove one to add system.");
    expect(urlFilters(page)).toEqual(["source:Google", "device:desktop", `goal:${checkout}`]);

    // Today takes no filter: the screen says why and offers yesterday, rather than the API's refusal.
    // (The refusal of a fourth was for the view it was tried in: it goes with it.)
    requests.length = 0;
    await page.getByRole("group", { name: "Period" }).getByRole("button", { name: "Today" }).click();
    const note = page.getByRole("note").filter({ hasText: "Filters apply to whole days" });
    await note.waitFor();
    expect(await page.locator(".filter-bar [role=status]").count()).toBe(0);
    expect(await note.locator("p").first().textContent()).toBe(
      "Filters apply to whole days: Today cannot be filtered, since a filtered hour would rest on a handful of visitors.",
    );
    expect(requests.filter((url) => url.pathname.startsWith("/api/v1/") && url.searchParams.has("filter"))).toEqual([]);
    await note.getByRole("button", { name: "Show yesterday" }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("period")).toBe("day");
    // Yesterday had no visitor: the panels say so, and no report fails.
    await page
      .locator("section[aria-labelledby=countries-title]")
      .getByText("No visitors in this period", { exact: false })
      .waitFor();
    await expect.poll(() => page.locator(".loading").count()).toBe(0);
    expect(await note.count()).toBe(0);
    expect(await page.locator(".failure").count()).toBe(0);

    // Before the per-session rows retention keeps (30 days), two filters cannot be read: said in words, with the ways out.
    expect(errors).toEqual([]);
    await page.goto(
      `${f.stack.url}/dashboard/s/${site}/overview?period=custom&from=${day(60)}&to=${day(1)}&filter=country:DE&filter=source:Google`,
    );
    const refused = page.getByRole("note").filter({ hasText: "Filters cannot be read over this period" });
    await refused.waitFor();
    expect(await refused.locator("p").first().textContent()).toMatch(
      /^Filters cannot be read over this period\. Filtered figures are read from per-session rows, which are kept for WREN_RAW_RETENTION_DAYS \(30 days\); the earliest day such a period can start is \d{4}-\d{2}-\d{2}\.$/,
    );
    await refused.getByRole("button", { name: "Show 7 days" }).click();
    // The browser logs the refused read itself; the page shows no error.
    expect([...new Set(errors.splice(0))]).toEqual(["Failed to load resource: the server responded with a status of 422 ()"]);
    await follows(
      () => drawnTrend(page),
      () => trendOf(both),
    );

    // "Clear filters" brings back every visitor.
    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect.poll(() => chips(page)).toEqual([]);
    expect(urlFilters(page)).toEqual([]);
    await tab(page, "Overview");
    await page.getByRole("group", { name: "Period" }).getByRole("button", { name: "7 days" }).click();
    await follows(
      () => drawnTrend(page),
      () => trendOf([]),
    );
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
});
