/**
 * The dashboard's comparison in real Chromium against the real stack: on the Overview's trend,
 * the compare toggle (off / previous period / a year earlier) sets ?compare= and the reads, the
 * chart gains a second, lighter line of the earlier period's visitors, the table lists those
 * figures with their dates, and the visitors' total shows its change ("↑ 43 %") — each as the
 * API answers it, with no serious axe-core violation; turning it off takes them away.
 */
import AxeBuilder from "@axe-core/playwright";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { launchChromium } from "../helpers/browser";
import { openDashboardPage, signIn } from "../helpers/dashboard-page";
import { addEvents, at, sessions, type RawEvent } from "../reports/helpers";
import { lastCompleteDay } from "../../worker/reports/period";
import { addDays } from "../../worker/reports/timezone";

type Figure = { value: number | null; qualifier: string };

let f: ApiFixture;
let browser: Browser;
let site: string;
const Y = lastCompleteDay("UTC", Date.now());
const P = addDays(Y, -7);

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  site = (await f.makeSite("compare.wren.test", "Compared shop")).id;
  await f.seedHistory(async (db) => {
    const views = (ids: string[], day: string): RawEvent[] =>
      ids.map((session) => ({ site, session, path: "/", ts: at(day, 10) }));
    await addEvents(db, [...views(sessions("c", 20), Y), ...views(sessions("p", 14), P)]);
    // A beacon a month ago: the site is verified and past its first day, so the Overview shows its trend.
    await db.execute({
      sql: "INSERT INTO site_beacons (site_id, origin, first_seen, path) VALUES (?, ?, ?, ?)",
      args: [site, "https://compare.wren.test", Date.now() - 30 * 86_400_000, "/"],
    });
  });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await f?.close();
});

/** A figure as the dashboard draws it (k = 5). */
const shown = (figure: Figure) =>
  figure.value === null ? "< 5" : figure.qualifier === "estimated" ? `≈ ${figure.value}` : String(figure.value);

describe("compare on the Overview's trend", () => {
  it("draws the earlier period as a second line, lists its figures and shows the change, as the API answers them", async () => {
    const { page, context, errors } = await openDashboardPage(browser);
    const reads: URL[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname === "/api/v1/timeseries") reads.push(url);
    });
    await signIn(page, f.stack.url, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${site}/overview?period=7d`);
    const toggle = page.getByRole("group", { name: "Compare with" });
    await toggle.waitFor();
    expect(await toggle.getByRole("button", { name: "Off" }).getAttribute("aria-pressed")).toBe("true");
    const legend = () => page.locator(".u-legend .u-series .u-label").allTextContents();
    await expect.poll(legend).toEqual(["Time", "Visitors", "Pageviews", "Conversions"]);

    await toggle.getByRole("button", { name: "Previous period" }).click();
    expect(new URL(page.url()).searchParams.get("compare")).toBe("previous");
    await expect.poll(legend).toEqual(["Time", "Visitors", "Pageviews", "Conversions", "Visitors, earlier"]);
    expect(reads.at(-1)!.searchParams.get("compare")).toBe("previous");

    const api = await f.admin("GET", `/api/v1/timeseries?site=${site}&period=7d&interval=day&compare=previous`);
    expect(api.status, api.text).toBe(200);
    type Point = { local: string; previous_date: string; visitors: Figure & { previous: Figure } };
    const points: Point[] = api.body.points;
    expect(points.at(-1)!.previous_date).toBe(P);
    // The second series is the earlier period's visitors, point by point, as uPlot holds them.
    const table = page.getByRole("table", { name: /^Visitors, pageviews and conversions per day/ });
    const rows = () =>
      table
        .locator("tbody tr")
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].slice(3, 5).map((td) => td.textContent)));
    await expect.poll(rows).toEqual(points.map((p) => [p.previous_date, shown(p.visitors.previous)]));
    expect(points.at(-1)!.visitors.previous.value).not.toBeNull();
    // The chart's second line holds the same figures: at the last day, its legend reads the earlier visitors.
    const plot = page.locator(".chart .u-over");
    await plot.scrollIntoViewIfNeeded();
    const box = (await plot.boundingBox())!;
    const lastDay = points.length - 1;
    const values = () => page.locator(".u-legend .u-series .u-value").allTextContents();
    // The last point starts a day before the plot's right edge (the span runs to its end): the cursor there is on it.
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2, { steps: 4 });
    await expect.poll(async () => (await values())[4]).not.toBe("–");
    const legendValues = await values();
    expect(legendValues[4]).toBe(String(points[lastDay]!.visitors.previous.value));
    expect(legendValues[1]).toBe(String(points[lastDay]!.visitors.value));

    // The visitors' total and its change: ↑ and the relative delta as a percentage.
    const total = api.body.totals.visitors;
    expect(total.delta.relative.value).toBeGreaterThan(0);
    const card = page.getByRole("region", { name: "Visitors in the period" });
    const percent = `${Math.round(total.delta.relative.value * 1000) / 10} %`;
    await expect.poll(() => card.locator(".delta-change").getAttribute("data-delta")).toBe(String(total.delta.relative.value));
    const approx = total.delta.relative.qualifier === "estimated" ? "≈ " : "";
    expect(await card.locator('.delta-change [aria-hidden="true"]').textContent()).toBe(`↑ ${approx}${percent}`);
    // Read out as words, not as an arrow.
    expect(await card.locator(".delta-change .sr-only").textContent()).toBe(`up ${approx}${percent}`);
    expect(await card.locator(".value").textContent()).toBe(shown(total));
    // The compared view passes axe-core as every screen does (no serious or critical violation).
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(
      violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    ).toEqual([]);

    // Off again: the second line and the earlier figures go, and so does the parameter.
    await toggle.getByRole("button", { name: "Off" }).click();
    expect(new URL(page.url()).searchParams.get("compare")).toBeNull();
    await expect.poll(legend).toEqual(["Time", "Visitors", "Pageviews", "Conversions"]);
    expect(await card.locator(".delta-change").count()).toBe(0);
    expect(reads.at(-1)!.searchParams.get("compare")).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  });
});
