/**
 * Imported periods on the dashboard, in real Chromium against the real stack (docs/dashboard.md,
 * "Imported data"): the Overview's trend says "Includes imported data from Plausible (…)", shades
 * the imported days behind its lines and tags their rows; with a filter it says the imported days
 * are left out, and the Pages screen says what its report includes — each as the API answers it.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { launchChromium } from "../helpers/browser";
import { openDashboardPage, signIn } from "../helpers/dashboard-page";
import { addEvents, addImport, at, sessions, type SeedDay } from "../reports/helpers";
import { lastCompleteDay } from "../../worker/reports/period";
import { addDays } from "../../worker/reports/timezone";
import { dayRange } from "../../dashboard/src/ui/imported-text";

let f: ApiFixture;
let browser: Browser;
let site: string;
const Y = lastCompleteDay("UTC", Date.now());
/** Ten imported days, ending a week before the last published day; the last two days are collected. */
const FROM = addDays(Y, -16);
const TO = addDays(Y, -7);

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  site = (await f.makeSite("imported.wren.test", "Moved shop")).id;
  const day = (i: number): SeedDay => ({
    day: addDays(FROM, i),
    visitors: 40 + i,
    pageviews: 60 + i,
    cells: [
      ["page", "/", 40 + i, 60 + i],
      ["source", "Google", 40 + i, 60 + i],
    ],
  });
  await f.seedHistory(async (db) => {
    await addImport(
      db,
      site,
      "imp_browser",
      "plausible",
      Array.from({ length: 10 }, (_, i) => day(i)),
    );
    await addEvents(db, [
      ...sessions("a", 12).map((session) => ({ site, session, path: "/", ts: at(Y, 10) })),
      ...sessions("b", 9).map((session) => ({ site, session, path: "/", ts: at(addDays(Y, -1), 10) })),
    ]);
    // A beacon a month ago: the site is verified and past its first day, so the Overview shows its trend.
    await db.execute({
      sql: "INSERT INTO site_beacons (site_id, origin, first_seen, path) VALUES (?, ?, ?, ?)",
      args: [site, "https://imported.wren.test", Date.now() - 30 * 86_400_000, "/"],
    });
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await f?.close();
});

/** The alpha of the chart canvas' pixel at a fraction of its plot area (0–1 across, 0–1 down). */
async function alphaAt(page: Page, x: number, y: number): Promise<number> {
  // A string, evaluated in the page: the tests' types have no DOM.
  return page.evaluate(`(() => {
    const canvas = document.querySelector(".chart canvas");
    const over = document.querySelector(".chart .u-over");
    const scale = canvas.width / canvas.getBoundingClientRect().width;
    const px = Math.round((over.offsetLeft + over.offsetWidth * ${x}) * scale);
    const py = Math.round((over.offsetTop + over.offsetHeight * ${y}) * scale);
    return canvas.getContext("2d").getImageData(px, py, 1, 1).data[3];
  })()`);
}

describe("imported periods on the dashboard", () => {
  it("says the trend includes imported data, shades and tags the imported days, as the API answers them", async () => {
    const { page, errors } = await openDashboardPage(browser);
    await signIn(page, f.stack.url, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${site}/overview?period=30d`);
    const note = page.getByTestId("imported-note");
    await note.waitFor();
    expect(await note.textContent()).toBe(`Includes imported data from Plausible (${dayRange(FROM, TO)}).`);
    expect(await note.getAttribute("data-included")).toBe("true");

    const api = await f.admin("GET", `/api/v1/timeseries?site=${site}&period=30d&interval=day`);
    expect(api.status, api.text).toBe(200);
    const points: { local: string; imported?: true }[] = api.body.points;
    const imported = points.filter((p) => p.imported).map((p) => p.local);
    expect(imported).toEqual(Array.from({ length: 10 }, (_, i) => addDays(FROM, i)));
    const table = page.getByRole("table", { name: /^Visitors, pageviews and conversions per day/ });
    const tagged = () =>
      table.locator("tbody tr.imported time").evaluateAll((times) => times.map((t) => t.getAttribute("datetime")));
    await expect.poll(tagged).toEqual(points.filter((p) => p.imported).map((p) => (p as { start?: string }).start));

    // The chart names the shading, and draws it: behind the imported days' span, not elsewhere.
    const chart = page.locator(".chart");
    expect(await chart.getAttribute("aria-label")).toContain("imported days are shaded");
    await chart.scrollIntoViewIfNeeded();
    const first = points.findIndex((p) => p.imported);
    // Mid-day: day starts carry the x axis' grid lines.
    const middle = (first + 4.5) / points.length;
    const after = (points.length - 3.5) / points.length;
    // A vertical scan: the shaded column is coloured all the way down; elsewhere only where a grid or series line passes.
    const column = async (x: number) => Promise.all(Array.from({ length: 20 }, (_, i) => alphaAt(page, x, 0.025 + i * 0.05)));
    await expect.poll(async () => (await column(middle)).every((alpha) => alpha > 0)).toBe(true);
    expect((await column(after)).filter((alpha) => alpha === 0).length).toBeGreaterThan(10);
    expect(errors).toEqual([]);
  });

  it("says imported days are left out while a filter is applied", async () => {
    const { page, errors } = await openDashboardPage(browser);
    await signIn(page, f.stack.url, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${site}/overview?period=30d&filter=country:DE`);
    const note = page.getByTestId("imported-note");
    await note.waitFor();
    expect(await note.textContent()).toBe("Imported days are left out while a filter is applied.");
    expect(await page.locator("tbody tr.imported").count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("says what the Pages screen's report includes", async () => {
    const { page, errors } = await openDashboardPage(browser);
    await signIn(page, f.stack.url, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${site}/pages?period=30d`);
    const note = page.getByTestId("imported-note");
    await note.waitFor();
    expect(await note.textContent()).toBe(`Includes imported data from Plausible (${dayRange(FROM, TO)}).`);
    expect(errors).toEqual([]);
  });
});
