/**
 * Shared dashboards in real Chromium against the real stack (issue 40): an admin makes a link on
 * the site's settings screen and copies it; a fresh browser without a key opens it and sees the
 * Overview and the other read-only screens — no sign-in, no settings; a password link asks for
 * its password, refuses a wrong one (and, after ten, refuses to try), opens with the right one;
 * a revoked and an expired link (the service's clock moved, not a sleep) show the 404 page. An
 * embeddable link loads in an iframe on the site's own origin (a loopback page Chromium reaches
 * as the site's hostname) and is refused by CSP when another origin frames it.
 */
import type { Browser, Frame, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { BROWSER_UA } from "../collector/helpers";
import { launchChromium } from "../helpers/browser";
import { openDashboardPage } from "../helpers/dashboard-page";
import { serveOnLoopback, type LoopbackServer } from "../helpers/http";
import { startStack } from "../helpers/stack";

// The callbacks passed to page.evaluate run in the page; these are the page globals they use.
declare const document: { cookie: string };
declare const localStorage: { length: number };
declare const sessionStorage: { length: number };

const DOMAIN = "share.wren.test";
const EVIL = "evil.wren.test";

let f: ApiFixture;
let browser: Browser;
/** Pages that frame a link: reached as http://share.wren.test:<port>/ (the site) and http://evil.wren.test:<port>/. */
let framer: LoopbackServer;
let siteId = "";

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  siteId = (await f.makeSite(DOMAIN, "Framed shop")).id;
  await f.makeGoal(siteId, { name: "Signed up", kind: "event", match: "signup" });
  for (let i = 0; i < 7; i++) {
    const res = await fetch(`${f.stack.url}/e`, {
      method: "POST",
      headers: { "content-type": "text/plain", origin: `https://${DOMAIN}`, "user-agent": BROWSER_UA },
      body: JSON.stringify({ site: siteId, session: `share-visit-${i}-abcdefghij`, events: [{ type: "pageview", path: "/" }] }),
    });
    expect(res.status).toBe(202);
  }
  framer = await serveOnLoopback((req, res) => {
    const src = new URL(req.url ?? "/", "http://x").searchParams.get("src") ?? "";
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(
        `<!doctype html><title>framer</title><iframe id="wren" width="1000" height="800" src="${src.replace(/"/g, "")}"></iframe>`,
      );
  });
  browser = await launchChromium([
    `--host-resolver-rules=MAP ${DOMAIN} 127.0.0.1, MAP ${EVIL} 127.0.0.1`,
    `--user-agent=${BROWSER_UA}`,
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await framer?.close();
  await f?.close();
});

async function makeLink(body: Record<string, unknown> = {}): Promise<{ id: string; url: string }> {
  const res = await f.admin("POST", `/api/v1/sites/${siteId}/shares`, body);
  if (res.status !== 201) throw new Error(`share create: ${res.status} ${res.text}`);
  return res.body;
}

/** A fresh context with no key and no cookie, as a stranger holding the link opens it. */
async function stranger(): Promise<Page> {
  const { page } = await openDashboardPage(browser);
  return page;
}

async function seesOverview(where: Page | Frame): Promise<void> {
  await where.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
  await where.getByRole("heading", { name: "Visitors now" }).waitFor();
  expect(await where.getByRole("navigation", { name: "Site" }).getByRole("link").allTextContents()).toEqual([
    "Overview",
    "Pages",
    "Sources",
    "Goals & funnels",
  ]);
}

describe("a shared link in the browser", () => {
  it("is made on the settings screen, and a stranger opening it sees the read-only Overview and screens", async () => {
    const { page: admin } = await openDashboardPage(browser, { clipboardOrigin: f.stack.url });
    // With the admin key, as an operator does (the sign-in screen also offers a passkey).
    await admin.goto(`${f.stack.url}/dashboard/`);
    await admin.getByLabel("API key").fill(f.stack.adminKey!);
    await admin.getByRole("button", { name: "Sign in", exact: true }).click();
    await admin.getByRole("button", { name: "Sign out" }).waitFor();
    await admin.goto(`${f.stack.url}/dashboard/s/${siteId}/settings`);
    await admin.getByRole("heading", { name: "Share links" }).waitFor();
    await admin.getByLabel("Let the site's own pages embed it in an iframe").check();
    await admin.getByRole("button", { name: "Make a share link" }).click();
    const url = (await admin.getByLabel("Share link", { exact: true }).textContent())!.trim();
    expect(url).toMatch(new RegExp(`^${f.stack.url}/share/[A-Za-z0-9_-]{43}$`));
    expect((await admin.getByLabel("Iframe snippet").textContent())!.trim()).toBe(
      `<iframe src="${url}" title="Wren: Framed shop" width="100%" height="900" style="border:0" loading="lazy"></iframe>`,
    );
    await admin.getByRole("list", { name: "Share links" }).getByText("embeddable on the site's own pages").waitFor();
    await admin.context().close();

    const page = await stranger();
    // Every call the link's screens make is one a link may make: none is refused.
    const refused: string[] = [];
    page.on("response", (r) => {
      if (r.status() >= 400) refused.push(`${r.status()} ${new URL(r.url()).pathname}`);
    });
    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    await seesOverview(page);
    await page.getByText("Framed shop").first().waitFor();
    await page.getByText("Shared dashboard · read-only").waitFor();
    expect(await page.getByRole("button", { name: "Sign out" }).count()).toBe(0);
    expect(await page.getByRole("link", { name: "Settings" }).count()).toBe(0);
    expect(await page.getByLabel("API key").count()).toBe(0);
    // The link's other screens, below its own path.
    await page.getByRole("link", { name: "Pages" }).click();
    await page.getByRole("heading", { name: "Pages", level: 1 }).waitFor();
    expect(page.url()).toMatch(new RegExp(`/share/[A-Za-z0-9_-]{43}/s/${siteId}/pages`));
    // Goals: their names, and no way to change them.
    await page.getByRole("link", { name: "Goals & funnels" }).click();
    await page.getByRole("heading", { name: "Goals & funnels", level: 1 }).waitFor();
    await page.getByText("Signed up").first().waitFor();
    expect(
      await page
        .getByRole("main")
        .getByRole("button", { name: /delete|rename|edit|create|add|save/i })
        .count(),
    ).toBe(0);
    expect(refused).toEqual([]);
    // Nothing is kept in the browser: the token is in the URL only.
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([0, 0, ""]);
    await page.context().close();
  });

  it("a password link asks for its password, refuses a wrong one, opens with the right one", async () => {
    const link = await makeLink({ password: "open sesame" });
    const page = await stranger();
    await page.goto(link.url);
    await page.getByLabel("Password").fill("not the one");
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByRole("alert").getByText("That is not the password of this link.").waitFor();
    expect(await page.getByRole("heading", { name: "Overview" }).count()).toBe(0);
    await page.getByLabel("Password").fill("open sesame");
    await page.getByRole("button", { name: "Open" }).click();
    await seesOverview(page);
    // The unlock cookie is HttpOnly: the page's script cannot read it.
    expect(await page.evaluate(() => document.cookie)).toBe("");
    await page.context().close();
  });

  it("after ten wrong passwords the link refuses to try again for a while", async () => {
    const link = await makeLink({ password: "open sesame" });
    const page = await stranger();
    await page.goto(link.url);
    for (let i = 0; i < 10; i++) {
      await page.getByLabel("Password").fill(`guess number ${i}`);
      await page.getByRole("button", { name: "Open" }).click();
      await page.getByRole("alert").getByText("That is not the password of this link.").waitFor();
      await page.getByRole("button", { name: "Open" }).and(page.locator(":enabled")).waitFor();
    }
    await page.getByLabel("Password").fill("open sesame");
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByRole("alert").getByText("Too many attempts: wait a minute and try again.").waitFor();
    expect(await page.getByRole("heading", { name: "Overview" }).count()).toBe(0);
    await page.context().close();
  });

  it("an embeddable link loads in a frame on the site's own origin, and CSP refuses it on another origin", async () => {
    const link = await makeLink({ embed: true });
    const page = await stranger();
    await page.goto(`http://${DOMAIN}:${framer.port}/frame?src=${encodeURIComponent(link.url)}`);
    const frame = (await (await page.waitForSelector("#wren")).contentFrame())!;
    await seesOverview(frame);
    expect(frame.url()).toMatch(new RegExp(`^${link.url}/s/${siteId}/overview$`));

    await page.goto(`http://${EVIL}:${framer.port}/frame?src=${encodeURIComponent(link.url)}`);
    const refused = (await (await page.waitForSelector("#wren")).contentFrame())!;
    // A refused frame shows Chromium's error page, never the dashboard.
    await expect.poll(() => refused.url()).toMatch(/^chrome-error:/);
    expect(await refused.$("#app")).toBeNull();

    // A link made without `embed` is refused even on the site's own origin.
    const plain = await makeLink();
    await page.goto(`http://${DOMAIN}:${framer.port}/frame?src=${encodeURIComponent(plain.url)}`);
    const alsoRefused = (await (await page.waitForSelector("#wren")).contentFrame())!;
    await expect.poll(() => alsoRefused.url()).toMatch(/^chrome-error:/);
    await page.context().close();
  });

  it("a revoked link, and (the clock moved past it) an expired one, show the 404 page", async () => {
    const revoked = await makeLink();
    expect((await f.admin("DELETE", `/api/v1/sites/${siteId}/shares/${revoked.id}`)).status).toBe(204);
    const expiring = await makeLink({ expires_at: new Date(f.stack.now() + 3_600_000).toISOString() });
    const page = await stranger();
    const gone = await page.goto(revoked.url);
    expect(gone?.status()).toBe(404);
    await page.getByRole("heading", { name: "This shared dashboard is not available" }).waitFor();
    const open = await page.goto(expiring.url);
    expect(open?.status()).toBe(200);
    await seesOverview(page);

    // Two hours later on the service's clock, on the same data and port.
    const before = f.stack;
    await before.stop(undefined, { keepDatabase: true });
    f.stack = {
      ...(await startStack({
        dataDir: before.dataDir,
        env: { ...before.env, WREN_TEST_CLOCK_OFFSET_MS: String(2 * 3_600_000) },
      })),
      adminKey: before.adminKey,
    };
    const expired = await page.goto(expiring.url);
    expect(expired?.status()).toBe(404);
    await page.getByRole("heading", { name: "This shared dashboard is not available" }).waitFor();
    await page.context().close();
  });
});
