/**
 * A new user's first hour, in real Chromium against the real stack (`wren start`), on a site
 * made with the wizard a moment ago: the header names the new site; the Overview says "no data"
 * for hours before the site existed (never "< 5", "≈ 0" or a zero), keeps "the last 24 closed
 * hours" beside its markers, and tells a marker with no closed hour yet from a site with no
 * goals; Pages says when pages appear rather than to check the snippet; Alerts shows a new rule
 * as pending, names the site, and its threshold hint says what the API's refusal says; every
 * instant on the screens is written in one style, naming its zone; the Keys table's buttons fit
 * 1280 px; the key form offers a viewer preset and says what read:reports lacks alone.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { thresholdRule } from "../../worker/lib/alert-threshold";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { BROWSER_UA } from "../collector/helpers";
import { launchChromium } from "../helpers/browser";
import { openDashboardPage, signIn as signInAs } from "../helpers/dashboard-page";

declare const document: { scrollingElement: { scrollWidth: number; clientWidth: number } };

const DOMAIN = "first-hour.wren.test";
const HOUR_MS = 3_600_000;
const ZONE = "Europe/Berlin";
/** The dashboard's one style for an instant (ui/time.ts formatInstant), with the zone's short name. */
const INSTANT = /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}(:\d{2})? (CET|CEST|UTC|GMT[+-]\d+)$/;
const SHOTS = process.env.WREN_SCREENSHOTS ? "/tmp/wren-first-hour" : null;

let f: ApiFixture;
let browser: Browser;
let siteId = "";

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  browser = await launchChromium([`--user-agent=${BROWSER_UA}`]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await f?.close();
});

const openPage = (options?: { width: number; height: number }) => openDashboardPage(browser, options);
const signIn = (page: Page, key: string) => signInAs(page, f.stack.url, key);

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** A figure as the dashboard draws it (k = 5). */
function shown(figure: { value: number | null; qualifier: string }): string {
  if (figure.value === null) return "< 5";
  return figure.qualifier === "estimated" ? `≈ ${figure.value}` : String(figure.value);
}

/** A figure that shows nothing: hidden or 0 ("no data" when it lies before the site). */
const empty = (figure: { value: number | null }) => figure.value === null || figure.value === 0;

/** The text of each cell of the rows `rows` selects, row by row. */
const cellTexts = (page: Page, rows: string) =>
  page.locator(rows).evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent ?? "")));

describe("a new user's first hour", () => {
  it("shows the site just made in the header's site selector, not 'Choose a site'", async () => {
    const { page, context, errors } = await openPage();
    await signIn(page, f.stack.adminKey!);
    await page.getByRole("button", { name: "Add site" }).click();
    await page.getByLabel("Name", { exact: true }).fill("First shop");
    await page.getByLabel("Domain", { exact: true }).fill(DOMAIN);
    await page.getByRole("button", { name: "Create site" }).click();
    await page.locator("pre code").first().waitFor();
    siteId = new URL(page.url()).searchParams.get("site") ?? "";
    expect(siteId).toMatch(/^site_/);
    const switcher = page.locator(".site-switcher select");
    await expect.poll(() => switcher.inputValue()).toBe(siteId);
    await expect.poll(() => switcher.locator("option:checked").textContent()).toBe(`First shop (${DOMAIN})`);
    expect(await switcher.locator("option", { hasText: "Choose a site" }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it("writes the hours and windows before the site existed as no data, and keeps 'the last 24 closed hours' beside the markers", async () => {
    // A first beacon verifies the site; four goals; a release now, whose first hour has not closed.
    const res = await fetch(`${f.stack.url}/e`, {
      method: "POST",
      headers: { "content-type": "text/plain", origin: `http://${DOMAIN}`, "user-agent": BROWSER_UA },
      body: JSON.stringify({ site: siteId, session: "first-hour-visitor-abcdefgh", events: [{ type: "pageview", path: "/" }] }),
    });
    expect(res.status, await res.text()).toBe(202);
    for (const match of ["signup", "upgrade", "invite", "export"])
      await f.makeGoal(siteId, { name: match, kind: "event", match });
    const marker = await f.admin("POST", "/api/v1/deployments", { site: siteId, version: "v1.0.0" });
    expect(marker.status, marker.text).toBe(201);
    const created = Date.parse((await f.admin("GET", `/api/v1/sites/${siteId}`)).body.created_at);

    const { page, context, errors } = await openPage();
    await signIn(page, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${siteId}/overview?period=24h`);
    // Since the marker: no hour has closed, and that is not "no goals".
    const overview = (await f.admin("GET", `/api/v1/overview?site=${siteId}`)).body;
    expect(overview.pending_until).not.toBeNull();
    const goalsSection = page.locator("section", { has: page.getByRole("heading", { name: "Comparison" }) });
    await goalsSection.getByText(/No closed hour since v1\.0\.0 yet/).waitFor();
    const pendingText = await goalsSection.locator(".empty, [class*=empty]").last().textContent();
    expect(pendingText).toContain("the first one closes at");
    expect(await goalsSection.textContent()).not.toContain("No goals yet");
    await shot(page, "overview-pending");

    // "Compare since" offers the last 24 closed hours beside the marker.
    const compare = page.getByLabel("Compare since");
    expect(await compare.locator("option").allTextContents()).toEqual([
      "The latest deployment",
      "The last 24 closed hours",
      expect.stringMatching(/^v1\.0\.0 · /),
    ]);
    await compare.selectOption({ label: "The last 24 closed hours" });
    await expect.poll(() => new URL(page.url()).searchParams.get("deployment")).toBe("none");
    await page.getByText("The last 24 closed hours vs the 24 before.").waitFor();

    // Those hours ended before the site existed: no data, not "< 5" or 0.
    const last24 = (await f.admin("GET", `/api/v1/overview?site=${siteId}&deployment=none`)).body;
    expect(last24.deployment).toBeNull();
    const before = { current: Date.parse(last24.current.end) <= created, previous: Date.parse(last24.previous.end) <= created };
    expect(before.previous).toBe(true);
    for (const label of ["Visitors", "Pageviews", "Sessions"]) {
      const card = page.locator(`.cards section[aria-label="${label}"]`);
      await card.waitFor();
      const text = (await card.textContent()) ?? "";
      expect(text).toContain("Previous: no data");
      expect(text).toContain("no comparison: the site did not exist yet");
      if (before.current) expect(await card.locator(".value").textContent()).toBe("no data");
    }
    // The goals table: each goal's previous window is no data.
    const goalRows = await cellTexts(page, "table.overview-goals tbody tr");
    expect(goalRows).toHaveLength(4);
    for (const row of goalRows) expect(row.slice(3)).toEqual(["no data", "no data"]);

    // The trend, hour by hour: an hour that ended before the site was made, showing nothing (hidden or 0), is no data; the totals too.
    const series = (await f.admin("GET", `/api/v1/timeseries?site=${siteId}&period=24h&interval=hour`)).body;
    type P = { start: string; visitors: any; pageviews: any; conversions: any };
    const expected = series.points.map((p: P) => {
      const gone = Date.parse(p.start) + HOUR_MS <= created;
      return [
        expect.stringMatching(INSTANT),
        ...[p.visitors, p.pageviews, p.conversions].map((fig) => (gone && empty(fig) ? "no data" : shown(fig))),
      ];
    });
    await expect.poll(() => cellTexts(page, "table.overview-points tbody tr")).toEqual(expected);
    expect(expected.length).toBeGreaterThan(20);
    const allGone = series.points.every((p: P) => Date.parse(p.start) + HOUR_MS <= created);
    const totals = await page.locator("table.overview-points tfoot td").allTextContents();
    const sums = [series.totals.visitors, series.totals.pageviews, series.totals.conversions];
    expect(totals).toEqual(sums.map((fig) => (allGone && empty(fig) ? "no data" : shown(fig))));
    if (allGone) expect(totals).toEqual(["no data", "no data", "no data"]);
    expect(await page.locator("table.overview-points tbody").textContent()).not.toMatch(allGone ? /< 5|≈/ : /$^/);
    await shot(page, "overview-last-24h");
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it("says when pages appear on a verified site, instead of asking to check the snippet", async () => {
    const { page, context, errors } = await openPage();
    await signIn(page, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${siteId}/pages?period=day`);
    const empty = page.getByText(/Pages appear once the day ends/);
    await empty.waitFor();
    expect(await empty.textContent()).toBe(
      `No pageviews in this period yet. Pages appear once the day ends: a day is published about 25 seconds after midnight in the site's time zone (${ZONE}). Today's closed hours are under Today.`,
    );
    expect(await page.locator("main").textContent()).not.toContain("snippet");
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it("shows a new rule as pending, names the site, and hints at the threshold in the API's own words", async () => {
    const made = await f.admin("POST", "/api/v1/alerts", {
      site: siteId,
      metric: "visitors",
      condition: "below",
      threshold: 20,
      window_hours: 24,
      destinations: [{ url: "https://hooks.example.com/wren" }],
    });
    expect(made.status, made.text).toBe(201);
    const { page, context, errors } = await openPage();
    await signIn(page, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${siteId}/alerts`);
    const table = page.locator("table.alert-rules");
    await table.waitFor();
    expect(await table.locator("caption").textContent()).toBe("Alert rules of First shop, oldest first");
    const row = table.locator(`tr[data-rule="${made.body.id}"]`);
    expect(await row.locator(".badge").textContent()).toBe("pending");
    expect(await row.locator(".badge").getAttribute("class")).toBe("badge pending");
    expect(await row.textContent()).not.toMatch(/\bok\b/);

    // The hint beside Threshold and the API's refusal of 3 say the same rule.
    await page.getByRole("button", { name: "New rule" }).click();
    await page.getByLabel("Metric").selectOption("visitors");
    const threshold = page.getByLabel("Threshold", { exact: true });
    const hintId = ((await threshold.getAttribute("aria-describedby")) ?? "").split(" ")[0]!;
    await expect.poll(() => page.locator(`#${hintId}`).textContent()).toBe(`A whole number: ${thresholdRule(5)}.`);
    await threshold.fill("3");
    await page.locator("#alert-form").getByLabel("URL").first().fill("https://hooks.example.com/other");
    await page.getByRole("button", { name: "Create rule" }).click();
    const problem = page.locator(`#${hintId.replace(/-hint$/, "-problem")}`);
    await problem.waitFor();
    expect(await problem.textContent()).toBe(`Must be ${thresholdRule(5)}.`);
    await shot(page, "alerts");
    // The refusal itself is the one error the browser logs.
    expect(errors).toEqual(["Failed to load resource: the server responded with a status of 422 ()"]);
    await context.close();
  }, 60_000);

  it("writes every instant in one style, naming its zone, on the Overview, Deployments, Alerts and Keys", async () => {
    const { page, context, errors } = await openPage();
    await signIn(page, f.stack.adminKey!);
    const found: Record<string, string[]> = {};
    for (const [name, path, ready] of [
      ["overview", `/s/${siteId}/overview?period=24h`, "table.overview-points"],
      ["deployments", `/s/${siteId}/deployments`, "main time"],
      ["alerts", `/s/${siteId}/alerts`, "table.alert-rules"],
      ["keys", "/keys", "table time"],
    ] as const) {
      await page.goto(`${f.stack.url}/dashboard${path}`);
      await page.locator(ready).first().waitFor();
      await page
        .locator(".loading")
        .first()
        .waitFor({ state: "detached" })
        .catch(() => undefined);
      found[name] = await page.locator("main time").allTextContents();
    }
    for (const [name, texts] of Object.entries(found)) {
      expect(texts.length, name).toBeGreaterThan(0);
      expect(
        texts.filter((t) => !INSTANT.test(t)),
        name,
      ).toEqual([]);
    }
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});

describe("keys", () => {
  it("fits the Keys table's Revoke buttons in 1280 × 800", async () => {
    // Keys as a team soon has them: several sites each, their own limits, used.
    const more = [];
    for (const name of ["Marketing website", "Documentation portal", "Customer support centre"])
      more.push((await f.makeSite(`${name.split(" ")[0]!.toLowerCase()}.wren.test`, name)).id);
    for (const [name, scopes] of [
      ["warehouse export nightly", ["read:reports", "read:sites", "read:sessions"]],
      ["ci previews", ["write:sites", "write:events", "write:goals", "write:deployments", "write:alerts"]],
    ] as const) {
      const key = await f.admin("POST", "/api/v1/keys", {
        name,
        scopes,
        sites: more,
        rate_limit: { requests: 1200, per_seconds: 60 },
      });
      expect(key.status, key.text).toBe(201);
      const used = await fetch(`${f.stack.url}/api/v1/keys/current`, { headers: { authorization: `Bearer ${key.body.key}` } });
      expect(used.status).toBe(200);
    }
    const { page, context, errors } = await openPage({ width: 1280, height: 800 });
    await signIn(page, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/keys`);
    const revoke = page.getByRole("button", { name: "Revoke" });
    await revoke.first().waitFor();
    await shot(page, "keys-1280");
    expect(await revoke.count()).toBe(3);
    for (const button of await revoke.all()) {
      await button.scrollIntoViewIfNeeded();
      const box = (await button.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(1280);
      expect(await button.isVisible()).toBe(true);
    }
    // Nothing scrolls sideways: neither the page nor the table's own box.
    expect(await page.evaluate(() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth)).toBe(0);
    const wrap = page.locator(".table-wrap", { has: page.locator("table") }).first();
    expect(await wrap.evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it("offers a viewer preset (read:reports, read:sites, read:sessions) and says what read:reports lacks alone", async () => {
    const { page, context, errors } = await openPage();
    await signIn(page, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/keys`);
    await page.getByRole("button", { name: "New key" }).click();
    const scopes = page.locator("fieldset.key-scopes");
    const checked = () =>
      scopes
        .locator("input[type=checkbox]:checked")
        .evaluateAll((inputs) => inputs.map((i) => (i as unknown as { value: string }).value));
    await scopes.getByRole("checkbox", { name: /read:reports/ }).check();
    const note = scopes.getByRole("note");
    expect(await note.textContent()).toContain("knows its sites by id only and cannot open the Goals screen");
    await scopes.getByRole("button", { name: "Viewer" }).click();
    expect(await checked()).toEqual(["read:reports", "read:sites", "read:sessions"]);
    expect(await note.count()).toBe(0);
    await page.getByLabel("Name", { exact: true }).fill("a viewer");
    await page
      .locator("fieldset.key-sites")
      .getByRole("checkbox", { name: /First shop/ })
      .check();
    await page.getByRole("button", { name: "Create key" }).click();
    await page
      .getByText(/shown once/i)
      .first()
      .waitFor();
    const keys = (await f.admin("GET", "/api/v1/keys")).body.keys as { name: string; scopes: string[]; sites: string[] }[];
    expect(keys.find((k) => k.name === "a viewer")).toMatchObject({
      scopes: ["read:reports", "read:sites", "read:sessions"],
      sites: [siteId],
    });
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
