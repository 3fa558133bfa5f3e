/**
 * The dashboard as an operator uses it, in real Chromium (Debian's, via playwright-core)
 * against the real stack (`wren start`): sign in, add a site with the wizard and see it
 * verified by a real visit to the registered domain (Chromium resolves it to loopback), create
 * a goal, and read conversions, a deployment marker made through the signed webhook and its
 * smoke conversion on the Overview; figures of 2 sessions drawn "< 5" and of 6 exact. Then a
 * read:reports key: no keys screen, none of the admin's data, the missing scope named. Then
 * every screen under axe-core (no serious or critical violation, light and dark), at 1280 and
 * 375 px (no sideways scrolling), with no console error; keyboard alone signs in and opens
 * the wizard. WREN_SCREENSHOTS=1 writes the screenshots in docs/screenshots/.
 */
import AxeBuilder from "@axe-core/playwright";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { BROWSER_UA } from "../collector/helpers";
import { launchChromium } from "../helpers/browser";
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
async function openPage(options: { width?: number; dark?: boolean } = {}): Promise<{ page: Page; context: BrowserContext; errors: string[] }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: 900 },
    timezoneId: "Europe/Berlin",
    colorScheme: options.dark ? "dark" : "light",
  });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: f.stack.url });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return { page, context, errors };
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.goto(`${f.stack.url}/dashboard/`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

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

/** Axe's serious and critical violations on the page as it is now, one line each. */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
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
    // Every count of real sessions carries the cell-key noise (docs/reports.md#noise), so the 6
    // reads as the API says, "≈ 6" give or take 2; the 2 upgraders read "< 5".
    const report = await f.admin("GET", `/api/v1/conversions?site=${siteId}&period=day`);
    const byName = Object.fromEntries(report.body.rows.map((r: { goal: { name: string } }) => [r.goal.name, r]));
    const signup = byName.Signup;
    expect(signup.converting_sessions.qualifier).not.toBe("suppressed");
    expect(Math.abs(signup.converting_sessions.value - 6)).toBeLessThanOrEqual(2);
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

  it("after switching to a read:reports key: no keys screen, none of the admin's data, and missing scopes named", async () => {
    await f.makeSite("secret-admin-only.example", "Secret admin site");
    readerKey = (await f.makeKey(["read:reports"], [siteId])).key;
    const { page, context, errors } = await openPage();
    await signIn(page, f.stack.adminKey!);
    await page.getByRole("link", { name: /Secret admin site/ }).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API key").fill(readerKey);
    await page.getByRole("button", { name: "Sign in" }).click();
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

const SCREENS = ["overview", "pages", "vitals", "goals", "sessions", "deployments", "alerts"] as const;

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
