/**
 * The dashboard as an operator uses it, in real Chromium (Debian's, via playwright-core)
 * against the real stack (`wren start`): sign in, add a site with the wizard and see it
 * verified by a real visit to the registered domain (Chromium resolves it to loopback), create
 * a goal, and read conversions, a deployment marker made through the signed webhook and its
 * smoke conversion on the Overview; figures of 2 sessions drawn "< 5" and of 6 exact; the live
 * counter's bands ("fewer than 5", "10–14") as the API reads them, refreshed at next_update
 * while the tab is visible (Playwright's clock, not a sleep). Then a
 * read:reports key: no keys screen, none of the admin's data, the missing scope named. Then
 * every screen under axe-core (no serious or critical violation, light and dark), at 1280 and
 * 375 px (no sideways scrolling), with no console error; keyboard alone signs in and opens
 * the wizard. Then the Sources screen on seeded days with dimensions: the Countries panel as
 * the breakdown answers it, a country's row adding the filter that the daily visitors and the
 * conversions are read with, the chip removing it (every screen following the filters:
 * filters.test.ts), a goal's columns, and no axe violation at
 * all. WREN_SCREENSHOTS=1 writes the screenshots in docs/screenshots/.
 */
import AxeBuilder from "@axe-core/playwright";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { addConversions, addEvents, shown as shownCell, type RawEvent } from "../reports/helpers";
import { BROWSER_UA } from "../collector/helpers";
import { launchChromium } from "../helpers/browser";
import { openDashboardPage, seriousViolations, signIn as signInAs } from "../helpers/dashboard-page";
import { serveOnLoopback, type LoopbackServer } from "../helpers/http";
import { ROOT } from "../helpers/stack";

// The callbacks passed to page.evaluate run in the page; these are the page globals they use.
declare const document: { scrollingElement: { scrollWidth: number; clientWidth: number }; body: unknown };
declare function getComputedStyle(element: unknown): { backgroundColor: string };

const DOMAIN = "shop.wren.test";
const HOUR_MS = 3_600_000;
/** SITE_CONFIG_TTL_MS in worker/collector/site-config.ts (not imported: it brings the workers' types). */
const SITE_CONFIG_TTL_MS = 5_000;
const SCREENSHOTS = process.env.WREN_SCREENSHOTS ? join(ROOT, "docs/screenshots") : null;

let f: ApiFixture;
let browser: Browser;
/** The shop's pages on 127.0.0.1, reached by Chromium as http://shop.wren.test:<port>/. */
let shop: LoopbackServer;
let snippet = "";
let siteId = "";
let readerKey = "";

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  shop = await serveOnLoopback((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html><html><head><title>Shop</title>${snippet}</head><body><h1>Shop ${req.url}</h1></body></html>`);
  });
  // Headless Chromium calls itself HeadlessChrome, which the collector drops as automation.
  browser = await launchChromium([`--host-resolver-rules=MAP ${DOMAIN} 127.0.0.1`, `--user-agent=${BROWSER_UA}`]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await shop?.close();
  await f?.close();
});

/** A page in a fresh context (no storage shared), collecting console errors and page errors. */
const openPage = (options: { width?: number; dark?: boolean } = {}) => openDashboardPage(browser, { ...options, clipboardOrigin: f.stack.url });
const signIn = (page: Page, key: string) => signInAs(page, f.stack.url, key);

/** A beacon from the shop's origin, as the tracker sends it. */
async function beacon(session: string, events: unknown[]): Promise<void> {
  const res = await fetch(`${f.stack.url}/e`, {
    method: "POST",
    headers: { "content-type": "text/plain", origin: `http://${DOMAIN}:${shop.port}`, "user-agent": BROWSER_UA },
    body: JSON.stringify({ site: siteId, session, events }),
  });
  expect(res.status, await res.text()).toBe(202);
}

/** A figure as the dashboard draws it: "< 5" when suppressed (k = 5), "≈ n" when estimated. */
function shown(figure: { value: number | null; qualifier: string }, format = (v: number) => String(v)): string {
  if (figure.value === null) return "< 5";
  return figure.qualifier === "estimated" ? `≈ ${format(figure.value)}` : format(figure.value);
}

/** Every axe violation on the page as it is now, whatever its impact, one line each. */
async function allViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

describe("the operator's walk-through", () => {
  it("signs in, adds a site with the wizard, sees it verified by a real visit, and creates a goal", async () => {
    const { page, context, errors } = await openPage();
    await signIn(page, f.stack.adminKey!);
    await page.getByRole("button", { name: "Add site" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Shop");
    await page.getByLabel("Domain", { exact: true }).fill(DOMAIN);
    // The time zone is guessed from the browser.
    expect(await page.getByLabel("Time zone", { exact: true }).inputValue()).toBe("Europe/Berlin");
    await page.getByRole("button", { name: "Create site" }).click();
    const code = page.locator("pre code").first();
    await code.waitFor();
    snippet = (await code.textContent()) ?? "";
    expect(snippet).toContain(`${f.stack.url}/`);
    siteId = /data-site="(site_[^"]+)"/.exec(snippet)?.[1] ?? "";
    expect(siteId).toMatch(/^site_/);

    // A visitor opens the shop on its registered domain; the wizard, polling, sees the beacon.
    const visitor = await context.newPage();
    await visitor.goto(`http://${DOMAIN}:${shop.port}/landing`);
    await page.getByText("Verified", { exact: true }).waitFor({ timeout: 20_000 });
    const verification = await page.locator(".wizard-verified").textContent();
    expect(verification).toContain(`http://${DOMAIN}:${shop.port}`);
    expect(verification).toContain("/landing");
    await visitor.close();

    await page.getByLabel("Kind", { exact: true }).selectOption("event");
    await page.getByLabel("Match", { exact: true }).fill("signup");
    await page.getByLabel("Name", { exact: true }).fill("Signup");
    await page.getByRole("button", { name: "Create goal" }).click();
    await page.getByText(/Goal .*Signup.* created/).waitFor();
    const goals = await f.admin("GET", `/api/v1/sites/${siteId}/goals`);
    expect(goals.body.goals.map((g: { name: string; kind: string; match: string }) => [g.name, g.kind, g.match])).toEqual([["Signup", "event", "signup"]]);

    // A goal on the tracker's own events in one step, on the Goals screen: the kind alone, match left empty.
    await page.goto(`${f.stack.url}/dashboard/s/${siteId}/goals?period=day`);
    await page.getByLabel("Kind", { exact: true }).selectOption("download");
    await page.getByRole("button", { name: "Create goal" }).click();
    await page.getByText(/Goal .*download: \*.* created/).waitFor();
    const withDownload = (await f.admin("GET", `/api/v1/sites/${siteId}/goals`)).body.goals as { id: string; kind: string; match: string }[];
    expect(withDownload.map((g) => [g.kind, g.match])).toEqual([["event", "signup"], ["download", "*"]]);
    // (Removed again: the screens below count this site's goals.)
    expect((await f.admin("DELETE", `/api/v1/sites/${siteId}/goals/${withDownload[1]!.id}`)).status).toBe(204);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it("shows yesterday's conversions, a webhook's deployment marker and its smoke conversion: 2 sessions as < 5, 6 shown as the API reads them", async () => {
    await f.makeGoal(siteId, { name: "Upgrade", kind: "event", match: "upgrade" });
    const smoke = await f.makeGoal(siteId, { name: "Release smoke", kind: "event", match: "smoke", purpose: "smoke-test" });
    // The collector knows a site's goals within its config TTL.
    await new Promise((resolve) => setTimeout(resolve, SITE_CONFIG_TTL_MS + 500));
    // 14 sessions see the home page; 6 sign up, 2 of those upgrade.
    for (let i = 0; i < 14; i++) {
      const events: unknown[] = [{ type: "pageview", path: i < 10 ? "/" : "/pricing" }];
      if (i < 6) events.push({ type: "event", name: "signup", path: "/" });
      if (i < 2) events.push({ type: "event", name: "upgrade", path: "/" });
      await beacon(`browser-walk-visitor-${i}-abcdefgh`, events);
    }
    // As if it had all happened a day ago: yesterday is a whole, published day.
    await f.rewindDays(1);

    // The release, through the signed webhook: 22 hours ago, after yesterday's traffic.
    const hook = await f.admin("POST", `/api/v1/sites/${siteId}/deployment-hook`);
    expect(hook.status).toBe(200);
    const deployedAt = new Date(Date.now() - 22 * HOUR_MS).toISOString();
    const body = JSON.stringify({ version: "v2.4.0", environment: "production", deployed_at: deployedAt });
    const id = "msg_browser_walk_1";
    const stamp = new Date();
    const delivered = await fetch(hook.body.url.replace(/^https?:\/\/[^/]+/, f.stack.url), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(stamp.getTime() / 1000)),
        "webhook-signature": new Webhook(hook.body.secret).sign(id, stamp, body),
      },
      body,
    });
    expect(delivered.status, await delivered.text()).toBe(201);
    // Its smoke test: a synthetic conversion naming the version, five minutes after the release.
    const token = (await f.admin("POST", `/api/v1/sites/${siteId}/token`)).body.s2s_token;
    const s2s = await fetch(`${f.stack.url}/s2s`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-token": token },
      body: JSON.stringify({ goal_id: smoke.id, id: "v2.4.0", timestamp: new Date(Date.parse(deployedAt) + 5 * 60_000).toISOString() }),
    });
    expect(s2s.status, await s2s.text()).toBe(202);

    const { page, context, errors } = await openPage();
    await signIn(page, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${siteId}/overview?period=7d`);
    // The marker, with its smoke conversion, listed and drawn.
    const markers = page.locator("section", { has: page.getByRole("heading", { name: "Deployments" }) });
    await markers.getByText("v2.4.0").first().waitFor();
    await expect.poll(() => markers.textContent()).toContain("Release smoke");
    expect(await page.locator(".chart canvas").count()).toBeGreaterThan(0);
    // The Overview compares since that marker: yesterday's visitors are in the window before it.
    await expect.poll(() => page.locator(".cards").textContent()).toMatch(/Visitors/);

    // Yesterday's conversions: 6 sessions signed up (exact), 2 upgraded (fewer than k = 5).
    await page.goto(`${f.stack.url}/dashboard/s/${siteId}/goals?period=day`);
    // Every count of real sessions carries the cell-key noise (docs/reports.md#noise): the 6 read
    // as the goal-day cell's perturbation (up to ±5, never below k); the 2 upgraders read "< 5".
    const report = await f.admin("GET", `/api/v1/conversions?site=${siteId}&period=day`);
    const byName = Object.fromEntries(report.body.rows.map((r: { goal: { name: string } }) => [r.goal.name, r]));
    const signup = byName.Signup;
    expect(signup.converting_sessions.qualifier).not.toBe("suppressed");
    const perturbed = await shownCell(f.database(), "rollup_goal_day", { site_id: siteId, goal_id: signup.goal.id }, 6, "units");
    expect(signup.converting_sessions).toEqual({ value: perturbed, qualifier: "estimated" });
    expect(byName.Upgrade.converting_sessions).toEqual({ value: null, qualifier: "suppressed" });
    const conversionsTable = page.getByRole("table", { name: /Conversions by goal/ });
    for (const name of ["Signup", "Upgrade"]) {
      const row = byName[name];
      const cells = conversionsTable.getByRole("row", { name: new RegExp(`^${name}`) }).getByRole("cell");
      await expect
        .poll(() => cells.allTextContents())
        .toEqual([
          shown(row.conversions),
          `${shown(row.converting_sessions)} of ${shown(row.sessions)} sessions, ${shown(row.rate, (v) => `${Math.round(v * 1000) / 10} %`)}`,
        ]);
    }
    const hidden = conversionsTable.getByRole("row", { name: /^Upgrade/ }).locator('[data-qualifier="suppressed"]').first();
    expect(await hidden.textContent()).toBe("< 5");
    expect(await hidden.getAttribute("title")).toMatch(/fewer than 5 sessions/);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it("shows visitors now and in the last 30 minutes as the live API bands them, reading again at next_update only while the tab is visible", async () => {
    // A site of its own, verified, never read live before (a reading is kept for its minute):
    // 2 sessions a minute ago (now and last 30 minutes), 12 more 20 minutes ago (last 30 minutes only).
    const live = (await f.makeSite("live.shop.wren.test", "Live shop")).id;
    const now = Date.now();
    const db = f.database();
    // The service's publisher writes too: wait for its lock rather than fail.
    await db.execute("PRAGMA busy_timeout = 10000");
    await db.execute({ sql: "INSERT INTO site_beacons (site_id, origin, first_seen, path) VALUES (?, ?, ?, '/')", args: [live, "http://live.shop.wren.test", now - 30 * 60_000] });
    await addEvents(db, [
      ...Array.from({ length: 2 }, (_, i): RawEvent => ({ site: live, session: `live-now-${i}-abcdefgh`, path: "/", ts: now - 60_000 })),
      ...Array.from({ length: 12 }, (_, i): RawEvent => ({ site: live, session: `live-gone-${i}-abcdefgh`, path: "/", ts: now - 20 * 60_000 })),
    ]);
    const { page, context, errors } = await openPage();
    const reads: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname === "/api/v1/live") reads.push(request.url());
    });
    // The page's clock is Playwright's, so the wait for next_update is skipped, not slept.
    await page.clock.install();
    await signIn(page, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${live}/overview?period=7d`);
    const card = (label: string) => page.getByRole("region", { name: label, exact: true }).locator(".live-figure");
    await card("Now").waitFor();
    // What the API answers for this minute (it serves one reading per minute): the cards say the same.
    const api = async () => (await f.admin("GET", `/api/v1/live?site=${live}`)).body;
    const band = (figure: { qualifier: string; low: number; high: number }) => (figure.qualifier === "suppressed" ? "fewer than 5" : `${figure.low}–${figure.high}`);
    const reading = await api();
    expect(reading.windows["5m"]).toEqual({ value: null, qualifier: "suppressed", low: 0, high: 4 });
    expect(reading.windows["30m"].qualifier).toBe("estimated");
    await expect.poll(async () => [await card("Now").textContent(), await card("Last 30 minutes").textContent()]).toEqual(["fewer than 5", band((await api()).windows["30m"])]);
    expect(await card("Last 30 minutes").textContent()).toMatch(/^(5–9|10–14|15–19|20–24)$/);
    expect(await card("Now").getAttribute("title")).toMatch(/Fewer than 5 visitors/);
    expect(reads).toHaveLength(1);

    // At next_update it reads again by itself.
    const wait = Date.parse(reading.next_update) - now;
    await page.clock.fastForward(Math.max(wait, 0) + 2_000);
    await expect.poll(() => reads.length).toBe(2);
    // Hidden, it stops; shown again, it reads at once.
    const visibility = (state: string) =>
      page.evaluate(`Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "${state}" }); document.dispatchEvent(new Event("visibilitychange"))`);
    await visibility("hidden");
    await page.clock.fastForward(10 * 60_000);
    expect(reads).toHaveLength(2);
    await visibility("visible");
    await expect.poll(() => reads.length).toBe(3);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("after switching to a read:reports key: no keys screen, none of the admin's data, and missing scopes named", async () => {
    await f.makeSite("secret-admin-only.example", "Secret admin site");
    readerKey = (await f.makeKey(["read:reports"], [siteId])).key;
    const { page, context, errors } = await openPage();
    await signIn(page, f.stack.adminKey!);
    await page.getByRole("link", { name: /Secret admin site/ }).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API key").fill(readerKey);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    expect(await page.getByRole("link", { name: "Keys" }).count()).toBe(0);
    const text = (await page.locator("body").textContent()) ?? "";
    expect(text).not.toContain("Secret admin site");
    expect(text).not.toContain(f.stack.adminKey!.slice(0, 11));

    await page.goto(`${f.stack.url}/dashboard/keys`);
    await page.getByText("admin", { exact: true }).first().waitFor();
    expect(await page.locator(".needs-scope").textContent()).toContain("admin");
    await page.goto(`${f.stack.url}/dashboard/s/${siteId}/sessions`);
    expect(await page.locator(".needs-scope").textContent()).toContain("read:sessions");
    // What it may read, it reads.
    await page.goto(`${f.stack.url}/dashboard/s/${siteId}/overview?period=7d`);
    await page.locator(".cards").waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});

const SCREENS = ["overview", "pages", "sources", "vitals", "goals", "sessions", "deployments", "alerts"] as const;

describe("every screen: accessible, responsive, dark mode, no console errors", () => {
  for (const width of [1280, 375]) {
    for (const dark of [false, true]) {
      it(`at ${width} px${dark ? ", dark" : ""}`, async () => {
        const { page, context, errors } = await openPage({ width, dark });
        const problems: Record<string, string[]> = {};
        const check = async (name: string) => {
          // Wait until nothing is loading.
          await page.locator(".loading").first().waitFor({ state: "detached", timeout: 10_000 }).catch(() => undefined);
          const found = await seriousViolations(page);
          const overflow = await page.evaluate(() => document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth);
          if (overflow > 0) found.push(`scrolls sideways by ${overflow} px`);
          if (found.length) problems[name] = found;
          // Every screen in light mode, and the Overview in dark mode too.
          if (SCREENSHOTS && (!dark || name === "overview")) {
            mkdirSync(SCREENSHOTS, { recursive: true });
            const path = join(SCREENSHOTS, `${name}-${width}${dark ? "-dark" : ""}.jpg`);
            await page.screenshot({ path, fullPage: true, type: "jpeg", quality: 80 });
          }
        };
        await page.goto(`${f.stack.url}/dashboard/`);
        await page.getByLabel("API key").waitFor();
        await check("sign-in");
        await signIn(page, f.stack.adminKey!);
        if (dark) expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(21, 23, 27)");
        await check("sites");
        await page.goto(`${f.stack.url}/dashboard/sites/new`);
        await page.getByLabel("Domain", { exact: true }).waitFor();
        await check("wizard");
        for (const screen of SCREENS) {
          await page.goto(`${f.stack.url}/dashboard/s/${siteId}/${screen}?period=${screen === "overview" ? "7d" : "day"}`);
          await page.getByRole("heading", { level: 1 }).waitFor();
          await check(screen);
        }
        // The Sources screen with a filter set: its chip, the filtered chart, days and conversions above the panels.
        await page.goto(`${f.stack.url}/dashboard/s/${siteId}/sources?period=day&filter=device:desktop`);
        await page.getByRole("button", { name: "Remove filter Device is desktop" }).waitFor();
        await check("sources-filtered");
        await page.goto(`${f.stack.url}/dashboard/keys`);
        await page.getByRole("heading", { name: "Keys", level: 1 }).waitFor();
        await check("keys");
        // The first key's usage: 30 days, newest first, and its calls per route (the dashboard's own among them).
        await page.getByRole("button", { name: "Usage" }).first().click();
        const perRoute = page.getByRole("table", { name: "Calls per route" });
        await perRoute.waitFor();
        expect(await page.getByRole("table", { name: "Calls per day (UTC)" }).locator("tbody tr").count()).toBe(30);
        expect(await page.getByRole("table", { name: "Calls per day (UTC)" }).locator("tbody tr th").first().textContent()).toBe(
          new Date().toISOString().slice(0, 10),
        );
        expect(await perRoute.locator("tbody th").allTextContents()).toContain("GET /api/v1/keys");
        expect(problems).toEqual({});
        expect(errors).toEqual([]);
        await context.close();
      }, 120_000);
    }
  }

  it("keyboard alone signs in and opens the wizard", async () => {
    const { page, context } = await openPage();
    await page.goto(`${f.stack.url}/dashboard/`);
    await page.getByLabel("API key").waitFor();
    // People's passkey button comes first, then the operators' key field.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.textContent)).toBe("Sign in with a passkey");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.id)).toBe("api-key");
    await page.keyboard.type(f.stack.adminKey!);
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    for (let i = 0; i < 20; i++) {
      await page.keyboard.press("Tab");
      if ((await page.evaluate(() => (globalThis as any).document.activeElement.textContent)) === "Add site") break;
    }
    await page.keyboard.press("Enter");
    await page.getByLabel("Domain", { exact: true }).waitFor();
    await context.close();
  });
});

describe("the Sources screen", () => {
  it("shows the breakdown's rows as the API answers them, filters the daily visitors and the conversions by a country, and drops the filter", async () => {
    const site = (await f.makeSite("sources.wren.test", "Sources shop")).id;
    const checkout = await f.makeGoal(site, { name: "Checkout", kind: "event", match: "checkout" });
    // Two and three days ago (the site's zone is UTC): whole, published days in the last 7.
    const day = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);
    const at = (date: string, hour: number) => Date.parse(`${date}T${String(hour).padStart(2, "0")}:00:00Z`);
    const countryOf = (i: number, de: number, fr: number, us: number) => (i < de ? "DE" : i < de + fr ? "FR" : i < de + fr + us ? "US" : undefined);
    const events: RawEvent[] = [];
    const conversions: { site: string; goal: string; session: string; ts: number }[] = [];
    for (const [back, n, de, fr, us] of [
      [2, 30, 12, 8, 6],
      [3, 26, 12, 7, 6],
    ] as const) {
      const date = day(back);
      for (let i = 0; i < n; i++) {
        const session = `sources-${date}-${i}`;
        const country = countryOf(i, de, fr, us);
        // The first pageview of a session's day carries its dimensions.
        const dims = {
          ...(country ? { country } : {}),
          source: i % 3 === 0 ? "Google" : "Newsletter",
          browser: i < 18 ? "Chrome 131" : "Firefox 133",
          os: i < 15 ? "Windows" : i < 25 ? "macOS" : "Android",
          device: i < 25 ? "desktop" : "mobile",
        };
        events.push({ site, session, path: i < 20 ? "/" : "/pricing", ts: at(date, 10), dims });
        if (i % 2 === 0) events.push({ site, session, path: "/pricing", ts: at(date, 11) });
        // Half the Germans check out, each day.
        if (i < de / 2) conversions.push({ site, goal: checkout.id, session, ts: at(date, 12) });
      }
    }
    await f.seedHistory(async (db) => {
      await addEvents(db, events);
      await addConversions(db, conversions);
    });

    const { page, context, errors } = await openPage();
    const requests: URL[] = [];
    page.on("request", (request) => requests.push(new URL(request.url())));
    await signIn(page, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${site}/sources?period=7d`);
    await page.getByRole("link", { name: "Sources", exact: true }).waitFor();
    // In the site's tabs, right after Pages.
    const tabs = await page.getByRole("navigation", { name: "Site" }).getByRole("link").allTextContents();
    expect(tabs.slice(tabs.indexOf("Pages"), tabs.indexOf("Pages") + 2)).toEqual(["Pages", "Sources"]);

    // The Countries panel: the rows the API answers, in its order, each figure drawn as the API qualifies it.
    const names: Record<string, string> = { DE: "Germany", FR: "France", US: "United States" };
    const breakdown = await f.admin("GET", `/api/v1/breakdown?site=${site}&period=7d&dimension=country&sort=visitors&order=desc&limit=10`);
    expect(breakdown.status, breakdown.text).toBe(200);
    type Row = { value: string | null; other: boolean; visitors: Figure; pageviews: Figure; converting_sessions?: Figure; rate?: Figure };
    type Figure = { value: number | null; qualifier: string };
    const rows: Row[] = breakdown.body.rows;
    // US, the cover of the small rest on both days, is hidden all week: not named, one `other` row, last.
    expect(rows.map((r) => r.value)).toEqual(expect.arrayContaining(["DE", "FR"]));
    expect(rows.map((r) => r.value)).not.toContain("US");
    expect(rows.at(-1)!.other).toBe(true);
    expect(rows.find((r) => r.value === "DE")!.visitors.qualifier).not.toBe("suppressed");
    const label = ({ value, other }: Row) => (other ? "Other values (fewer than 5 each)" : value === null ? "(none)" : `${value} ${names[value]}`);
    const countries = page.getByRole("table", { name: /^Countries/ });
    const cells = () => countries.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)));
    await expect.poll(cells).toEqual(rows.map((r) => [label(r), shown(r.visitors), shown(r.pageviews)]));

    // A country's row sets the filter: in the address, as a chip, and on the timeseries and conversions reads.
    requests.length = 0;
    await countries.getByRole("button", { name: "DE Germany" }).click();
    const remove = page.getByRole("button", { name: "Remove filter Country is Germany" });
    await remove.waitFor();
    expect(await page.locator(".chip").textContent()).toBe("CountryisGermany×");
    expect(new URL(page.url()).searchParams.getAll("filter")).toEqual(["country:DE"]);
    expect(await countries.getByRole("button", { name: "DE Germany" }).getAttribute("aria-pressed")).toBe("true");
    const filteredReads = () => [
      ...new Set(
        requests
          .filter((url) => url.pathname === "/api/v1/timeseries" || url.pathname === "/api/v1/conversions")
          .map((url) => `${url.pathname} ${url.searchParams.get("filter")} ${url.searchParams.get("period")}`)
          .sort(),
      ),
    ];
    await expect.poll(filteredReads).toEqual(["/api/v1/conversions country:DE 7d", "/api/v1/timeseries country:DE 7d"]);

    // The figures drawn are the filtered reports' own.
    const series = await f.admin("GET", `/api/v1/timeseries?site=${site}&period=7d&interval=day&filter=country:DE`);
    expect(series.status, series.text).toBe(200);
    const unfiltered = await f.admin("GET", `/api/v1/timeseries?site=${site}&period=7d&interval=day`);
    expect(series.body.totals).not.toEqual(unfiltered.body.totals);
    const perDay = page.getByRole("table", { name: /^Visitors and pageviews per day, Country is Germany/ });
    // The seeded days came before the site was registered (today): a day then that shows nothing reads "no data".
    const created = Date.parse((await f.admin("GET", `/api/v1/sites/${site}`)).body.created_at);
    type Point = { start: string; local: string; visitors: Figure; pageviews: Figure };
    const points: Point[] = series.body.points;
    const dayEnd = (i: number) => (points[i + 1] ? Date.parse(points[i + 1]!.start) : Date.parse(points[i]!.start) + 86_400_000);
    const drawn = (figure: Figure, i: number) => (dayEnd(i) <= created && !figure.value ? "no data" : shown(figure));
    await expect
      .poll(() => perDay.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [tr.querySelector("time")?.getAttribute("datetime"), ...[...tr.querySelectorAll("td")].map((td) => td.textContent)])))
      .toEqual(points.map((p, i) => [p.local, drawn(p.visitors, i), drawn(p.pageviews, i)]));
    expect(await perDay.locator("tfoot td").allTextContents()).toEqual([shown(series.body.totals.visitors), shown(series.body.totals.pageviews)]);
    expect(await page.locator(".sources-filtered .chart canvas").count()).toBeGreaterThan(0);
    const filteredConversions = await f.admin("GET", `/api/v1/conversions?site=${site}&period=7d&filter=country:DE`);
    expect(filteredConversions.status, filteredConversions.text).toBe(200);
    const percent = (v: number) => `${Math.round(v * 1000) / 10} %`;
    const goalRows = page.getByRole("table", { name: /^Conversions by goal, Country is Germany/ }).locator("tbody tr");
    await expect
      .poll(() => goalRows.evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent))))
      .toEqual(
        filteredConversions.body.rows.map((r: { goal: { name: string }; conversions: Figure; converting_sessions: Figure; sessions: Figure; rate: Figure }) => [
          r.goal.name,
          shown(r.conversions),
          `${shown(r.converting_sessions)} of ${shown(r.sessions)} sessions, ${shown(r.rate, percent)}`,
        ]),
      );
    expect(await allViolations(page)).toEqual([]);

    // The chip's × drops the filter; the focus goes to the line that says how to add one.
    await remove.click();
    await page.locator(".chip").waitFor({ state: "detached" });
    expect(new URL(page.url()).searchParams.has("filter")).toBe(false);
    expect(await page.locator(".sources-filtered").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as any).document.activeElement.id)).toBe("filters-hint");
    expect(await countries.getByRole("button", { name: "DE Germany" }).getAttribute("aria-pressed")).toBe("false");

    // A goal adds each country's converting sessions, written with their denominator, and the rate.
    await page.getByRole("combobox", { name: "Goal", exact: true }).selectOption({ label: "Checkout" });
    const withGoal = await f.admin("GET", `/api/v1/breakdown?site=${site}&period=7d&dimension=country&goal=${checkout.id}&sort=visitors&order=desc&limit=10`);
    expect(withGoal.status, withGoal.text).toBe(200);
    await expect
      .poll(cells)
      .toEqual(
        (withGoal.body.rows as Row[]).map((r) => [
          label(r),
          shown(r.visitors),
          shown(r.pageviews),
          `${shown(r.converting_sessions!)} of ${shown(r.visitors)} sessions`,
          shown(r.rate!, percent),
        ]),
      );
    await page.locator(".loading").first().waitFor({ state: "detached" });
    expect(await allViolations(page)).toEqual([]);

    // Each panel sorts on its own, its sort kept in the address under its name.
    await countries.getByRole("button", { name: "Country", exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("countries_sort")).toBe("value");
    const byCode = await f.admin("GET", `/api/v1/breakdown?site=${site}&period=7d&dimension=country&goal=${checkout.id}&sort=value&order=asc&limit=10`);
    await expect.poll(() => countries.locator("tbody th").allTextContents()).toEqual((byCode.body.rows as Row[]).map((r) => label(r)));
    expect(await page.getByRole("table", { name: /^Devices/ }).locator("th[aria-sort]").textContent()).toMatch(/^Visitors/);

    // The last 24 hours are not read here (today is, as bands: first-hour-figures.test.ts): the screen reads yesterday, and says why.
    requests.length = 0;
    await page.goto(`${f.stack.url}/dashboard/s/${site}/sources?period=24h`);
    const rolling = page.getByRole("note").filter({ hasText: "Sources are not read over the last 24 hours" });
    await rolling.waitFor();
    expect(await rolling.textContent()).toBe(
      "Sources are not read over the last 24 hours, since a rolling 24 hours would cut yesterday's published day anew every hour, and each cut is one more reading of the same people: showing yesterday. Pick Today for today's closed hours.",
    );
    await expect
      .poll(() => [...new Set(requests.filter((url) => url.pathname === "/api/v1/breakdown").map((url) => url.searchParams.get("period")))])
      .toEqual(["day"]);
    // Vitals are never read by the hour, and the note says why.
    await page.goto(`${f.stack.url}/dashboard/s/${site}/vitals?period=today`);
    const note = page.getByRole("note").filter({ hasText: "Vitals are reported by whole days" });
    await note.waitFor();
    expect(await note.textContent()).toBe(
      "Vitals are reported by whole days, since a percentile of one hour would rest on a handful of sessions: showing yesterday. Today's closed hours are on the Overview.",
    );
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
