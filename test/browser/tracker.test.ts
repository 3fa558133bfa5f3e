/**
 * The tracker in real Chromium (Debian's /usr/bin/chromium, driven by playwright-core)
 * against the real stack. Test pages come from a small node:http server; shop.test and
 * evil.test both resolve to it, so the same page can be served on the registered domain and
 * on another one. Everything is checked in the database, with exact counts; what the collector
 * of this branch does not store yet (custom props, kept by the allowlist) is checked as it left
 * the browser, through a recorder in front of the collector (test/helpers/beacon-recorder.ts).
 */
import type { Client } from "@libsql/client";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchChromium } from "../helpers/browser";
import { serveOnLoopback, type LoopbackServer } from "../helpers/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../helpers/stack";
import {
  BROWSER_UA,
  collectorCounts,
  count,
  createGoal,
  createSite,
  ensureTrackerBuilt,
  openDb,
  rows,
  sleep,
  type TestSite,
} from "../collector/helpers";
import { eventually } from "../helpers/wait";
import { BeaconRecorder } from "../helpers/beacon-recorder";
import { BEACON_BODY_LIMIT } from "../../worker/lib/beacon-limits";

// The callbacks passed to page.evaluate run in the page; these are the page globals they use.
declare const window: { scrollY: number; innerHeight: number; wren?: { v?: number; props(props: unknown): void } } & Record<
  string,
  any
>;
declare const document: { documentElement: { scrollHeight: number }; referrer: string };

let stack: Stack;
let db: Client;
let shop: TestSite;
let browser: Browser;
let pages: LoopbackServer;
let pagePort: number;
let goals: {
  article: string;
  signup: string;
  read: string;
  scrolled: string;
  purchase: string;
  spaStep: string;
  landing: string;
  notFound: string;
};
const recorder = new BeaconRecorder(() => stack.url);

/** The site's backend: the page hands it `wren.session()`, it posts the conversion to /s2s. */
async function checkout(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body = "";
  for await (const chunk of req) body += chunk;
  const { session } = JSON.parse(body) as { session: string };
  const answer = await fetch(`${stack.url}/s2s`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-token": shop.token },
    body: JSON.stringify({ goal_id: goals.purchase, session, value: 99.5, id: `order-${session}` }),
  });
  res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text());
}

function html(title: string, body: string, head = ""): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}${shop.snippet}</head><body>${body}</body></html>`;
}

const article = () =>
  html(
    "Article",
    `<h1>An article worth reading</h1>
   <p id="lead">Long enough to be the largest contentful paint of this page, and to read for a while.</p>
   <button id="signup" onclick="wren.track('signup', {value: 42})">Sign up</button>
   <div style="height: 4000px; background: linear-gradient(#fff, #eee)"></div>
   <p id="end">The end.</p>`,
  );

const spa = () =>
  html(
    "App",
    `<h1>Single-page app</h1>
   <button id="step2" onclick="history.pushState({}, '', '/spa/step-2')">Step 2</button>
   <button id="step3" onclick="history.pushState({}, '', '/spa/step-3')">Step 3</button>
   <button id="same" onclick="history.replaceState({x: 1}, '', location.pathname)">Same path</button>`,
  );

// A hostile page: storage throws and sendBeacon is broken; the tracker must cope silently.
const hostile = () =>
  html(
    "Hostile",
    `<h1>Hostile page</h1><button id="go" onclick="wren.track('signup')">Go</button>`,
    `<script>
     Object.defineProperty(window, "sessionStorage", { get() { throw new DOMException("denied", "SecurityError"); } });
     navigator.sendBeacon = function () { throw new Error("beacons disabled"); };
   </script>`,
  );

// The snippet told to leave vitals out.
const noVitals = () =>
  html("No vitals", "<h1>No vitals here</h1><p>Painted, and measured by nobody.</p>").replace(
    "<script defer",
    '<script data-vitals="false" defer',
  );

/** A page of the tracker's options; `snippet` is the tag (through the recorder, or the site's own). */
function optionsPage(path: string): string | null {
  const page = (title: string, snippet: string, body: string) =>
    `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${snippet}</head><body>${body}</body></html>`;
  const thirtyLong = JSON.stringify(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`prop_${i}`, "x".repeat(200)])));
  switch (path) {
    case "/links":
      return page(
        "Links",
        recorder.snippet(shop.snippet, 'data-track="outbound downloads"'),
        `<a id="out" href="http://evil.test:${pagePort}/partner?from=links">Partner</a>
         <a id="pdf" href="/files/report.pdf?v=2">Report</a>
         <a id="csv" href="http://evil.test:${pagePort}/files/export.csv"><span id="csv-inner">Export</span></a>
         <a id="inside" href="/elsewhere">Elsewhere</a>`,
      );
    case "/props":
      return page(
        "Props",
        recorder.snippet(shop.snippet, `data-props='{"author":"ana","draft":false,"gone":null,"bad name":"x"}'`),
        `<button id="buy" onclick="wren.track('purchase', {value: 2, props: {plan: 'pro', seats: 3}, revenue: {amount: 12.5, currency: 'EUR'}})">Buy</button>
         <button id="burst" onclick='for (let i = 0; i < 5; i++) wren.track("step " + i, {props: ${thirtyLong}})'>Burst</button>`,
      );
    case "/props-huge":
      // 30 props of 200 three-byte characters: the pageview alone is over the body limit.
      return page(
        "Huge",
        shop.snippet.replace(
          "<script ",
          `<script data-props='${JSON.stringify(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, "語".repeat(200)])))}' `,
        ),
        "<p>Huge props</p>",
      );
    case "/missing/page":
      return page(
        "Not found",
        shop.snippet,
        `<h1>Not found</h1><script>window.wren = window.wren || { q: [] }; wren.q.push(["notFound"]);</script>`,
      );
    case "/hash-app/":
      return page(
        "Hash app",
        shop.snippet.replace("<script ", "<script data-hash "),
        `<button id="settings" onclick="location.hash = '#/settings?tab=2'">Settings</button>
         <button id="settings-tab" onclick="location.hash = '#/settings?tab=3'">Another tab</button>
         <button id="inbox" onclick="location.hash = '#/inbox'">Inbox</button>`,
      );
    case "/partner":
      return page("Partner", "", "<p>Another site, without the snippet.</p>");
    case "/history-app/":
      // data-props that do not parse are ignored: the pageviews still go (a refused beacon would lose them).
      return page(
        "History app",
        shop.snippet.replace("<script ", `<script data-props='{"author": ana}' `),
        `<button id="anchor" onclick="location.hash = '#/settings'">Anchor</button>`,
      );
  }
  return null;
}

function servePage(req: IncomingMessage, res: ServerResponse): void {
  if (recorder.handle(req, res)) return;
  recorder.page(req);
  const path = new URL(req.url ?? "/", "http://x").pathname;
  if (path === "/files/report.pdf") {
    res.writeHead(204).end();
    return;
  }
  const options = optionsPage(path);
  if (options !== null) {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(options);
    return;
  }
  if (req.method === "POST" && path === "/checkout") {
    checkout(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
    return;
  }
  const page =
    path === "/article"
      ? article()
      : path.startsWith("/spa")
        ? spa()
        : path === "/hostile"
          ? hostile()
          : path === "/no-vitals"
            ? noVitals()
            : path === "/from"
              ? html("From", `<a id="go" href="${new URL(req.url ?? "/", "http://x").searchParams.get("to") ?? "/next"}">Go</a>`)
              : html("Next", "<p>Next page</p>");
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
}

async function newPage(options: { userAgent?: string } = {}): Promise<{ context: BrowserContext; page: Page; errors: Error[] }> {
  const context = await browser.newContext(options.userAgent ? { userAgent: options.userAgent } : {});
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on("pageerror", (error) => errors.push(error));
  return { context, page, errors };
}

const conversionsOf = (goal: string) => count(db, "SELECT count(*) FROM conversions WHERE goal_id = ?", [goal]);

beforeAll(async () => {
  await ensureTrackerBuilt();
  stack = await startStack();
  shop = await createSite(stack, "shop.test");
  goals = {
    article: await createGoal(stack, shop.id, "page", "/article"),
    signup: await createGoal(stack, shop.id, "event", "signup"),
    read: await createGoal(stack, shop.id, "time", "/article", 2),
    scrolled: await createGoal(stack, shop.id, "scroll", "/article", 90),
    purchase: await createGoal(stack, shop.id, "event", "purchase"),
    spaStep: await createGoal(stack, shop.id, "page", "/spa/step-3"),
    landing: await createGoal(stack, shop.id, "page", "/landing"),
    notFound: await createGoal(stack, shop.id, "not-found"),
  };
  db = openDb(stack);
  pages = await serveOnLoopback(servePage);
  pagePort = pages.port;
  browser = await launchChromium([
    "--host-resolver-rules=MAP shop.test 127.0.0.1, MAP evil.test 127.0.0.1",
    // Headless Chromium says "HeadlessChrome", which the collector drops as automation. A
    // context's userAgent does not reach beacons sent while a page unloads (the browser
    // process sends those), so the whole browser presents itself as desktop Chrome.
    `--user-agent=${BROWSER_UA}`,
  ]);
});

afterAll(async () => {
  await browser?.close();
  await pages?.close();
  db?.close();
  await stack?.stop();
});

describe("the tracker on the registered domain", () => {
  it("records a pageview, a custom event, time and scroll, vitals and a backend conversion on one session", async () => {
    const { context, page, errors } = await newPage();
    await page.goto(`http://shop.test:${pagePort}/article`);
    expect(await page.evaluate(() => typeof (window as unknown as { wren?: { v?: number } }).wren?.v)).toBe("number");

    // The pageview arrives and counts on the page goal.
    expect(
      await eventually(
        () => count(db, "SELECT count(*) FROM events WHERE kind = 'pageview' AND path = '/article'"),
        (n) => n === 1,
      ),
    ).toBe(1);
    const [session] = await rows<{ id: string; entry_path: string }>(
      db,
      "SELECT id, entry_path FROM sessions WHERE site_id = ?",
      [shop.id],
    );
    expect(session!.entry_path).toBe("/article");

    // Once web-vitals has loaded, interact: a click (an INP interaction, and the custom event) and a scroll to the end.
    await page.waitForFunction(() => performance.getEntriesByType("resource").some((e) => e.name.endsWith("/t.js?vitals")));
    await sleep(300);
    await page.click("#signup");
    await page.mouse.move(200, 200);
    for (let i = 0; i < 12; i++) await page.mouse.wheel(0, 500);
    await page.waitForFunction(() => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2);
    await sleep(2_300); // visible for more than the time goal's 2 seconds

    // The site's backend posts a conversion on the page's session.
    const trackerSession = await page.evaluate(() => (window as unknown as { wren: { session(): string } }).wren.session());
    expect(trackerSession).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await page.evaluate(() => sessionStorage.getItem("wren_session"))).toContain(trackerSession);
    const backend = await page.evaluate(async (s) => {
      const response = await fetch("/checkout", { method: "POST", body: JSON.stringify({ session: s }) });
      return { status: response.status, body: await response.json() };
    }, trackerSession);
    expect(backend.status).toBe(202);
    expect(backend.body).toMatchObject({ accepted: 1, attached: 1, events: [{ status: "stored", session: "attached" }] });

    // Leaving the page sends engagement and the vitals that are final only at page hide (the
    // next page's own TTFB and FCP leave with its pageview or first paint).
    await page.goto(`http://shop.test:${pagePort}/next`);
    const metrics = await eventually(
      () =>
        rows<{ metric: string; n: number }>(
          db,
          "SELECT metric, count(*) AS n FROM vitals WHERE site_id = ? AND path = '/article' GROUP BY metric ORDER BY metric",
          [shop.id],
        ),
      (found) => found.length === 5,
    );
    expect(metrics).toEqual([
      { metric: "CLS", n: 1 },
      { metric: "FCP", n: 1 },
      { metric: "INP", n: 1 },
      { metric: "LCP", n: 1 },
      { metric: "TTFB", n: 1 },
    ]);
    expect(await count(db, "SELECT count(*) FROM vitals WHERE session_id <> ?", [session!.id])).toBe(0);
    // Besides, only the next page's TTFB and FCP, which left with its pageview or first paint.
    const others = await eventually(
      () =>
        rows<{ path: string; metric: string }>(db, "SELECT path, metric FROM vitals WHERE path <> '/article' ORDER BY metric"),
      (found) => found.length >= 2,
    );
    expect(others).toEqual([
      { path: "/next", metric: "FCP" },
      { path: "/next", metric: "TTFB" },
    ]);

    await eventually(
      () => conversionsOf(goals.scrolled),
      (n) => n === 1,
    );
    expect(await conversionsOf(goals.article)).toBe(1);
    expect(await rows(db, "SELECT value, source FROM conversions WHERE goal_id = ?", [goals.signup])).toEqual([
      { value: 42, source: "beacon" },
    ]);
    expect(await conversionsOf(goals.read)).toBe(1);
    expect(await conversionsOf(goals.scrolled)).toBe(1);
    expect(await rows(db, "SELECT value, source FROM conversions WHERE goal_id = ?", [goals.purchase])).toEqual([
      { value: 99.5, source: "s2s" },
    ]);
    // Every conversion, from the browser and from the backend, is on the one session.
    expect(await rows(db, "SELECT DISTINCT session_id FROM conversions WHERE site_id = ?", [shop.id])).toEqual([
      { session_id: session!.id },
    ]);

    const engagement = await rows<{ seconds: number; scroll: number }>(
      db,
      "SELECT max(seconds) AS seconds, max(scroll_depth) AS scroll FROM events WHERE kind = 'engagement' AND path = '/article'",
    );
    expect(engagement[0]!.seconds).toBeGreaterThanOrEqual(2);
    expect(engagement[0]!.scroll).toBe(100);
    expect(await count(db, "SELECT count(*) FROM events WHERE kind = 'event' AND name = 'signup' AND value = 42")).toBe(1);

    // The next page of the same tab continues the session.
    await eventually(
      () => count(db, "SELECT count(*) FROM events WHERE kind = 'pageview' AND path = '/next'"),
      (n) => n === 1,
    );
    expect(await count(db, "SELECT count(*) FROM events WHERE session_id = ? AND kind = 'pageview'", [session!.id])).toBe(2);
    expect(await count(db, "SELECT count(*) FROM sessions WHERE site_id = ?", [shop.id])).toBe(1);
    expect(await rows(db, "SELECT origin FROM site_beacons WHERE site_id = ?", [shop.id])).toEqual([
      { origin: `http://shop.test:${pagePort}` },
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('sends no vitals at all under data-vitals="false", not even the TTFB and FCP the core reads itself', async () => {
    const { context, page, errors } = await newPage();
    await page.goto(`http://shop.test:${pagePort}/no-vitals`);
    expect(await page.locator("script[data-site]").getAttribute("data-vitals")).toBe("false");
    await page.waitForFunction(() => performance.getEntriesByName("first-contentful-paint").length > 0);
    await page.waitForLoadState("load");
    await sleep(300); // the vitals part would load just after the load event
    expect(await page.evaluate(() => performance.getEntriesByType("resource").some((e) => e.name.includes("t.js?vitals")))).toBe(
      false,
    );
    await page.goto(`http://shop.test:${pagePort}/next`);
    // Its pageview and its engagement arrive (so its beacons were sent); no vitals came with them.
    const kinds = await eventually(
      () => rows<{ kind: string }>(db, "SELECT kind FROM events WHERE path = '/no-vitals' ORDER BY kind"),
      (found) => found.length === 2,
    );
    expect(kinds.map((k) => k.kind)).toEqual(["engagement", "pageview"]);
    expect(await count(db, "SELECT count(*) FROM vitals WHERE path = '/no-vitals'")).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("counts single-page-app navigations as pageviews", async () => {
    const { context, page, errors } = await newPage();
    // Each navigation's beacon is its own request: two sent back to back may be stored in either
    // order, so the next navigation waits until the last one's pageview is stored.
    const spaPageviews = (n: number) =>
      eventually(
        () => rows<{ path: string }>(db, "SELECT path FROM events WHERE kind = 'pageview' AND path LIKE '/spa%' ORDER BY id"),
        (found) => found.length === n,
      );
    await page.goto(`http://shop.test:${pagePort}/spa`);
    await spaPageviews(1);
    await page.click("#step2");
    await spaPageviews(2);
    await page.click("#same"); // replaceState on the same path is not a navigation
    await page.click("#step3");
    await spaPageviews(3);
    await page.goBack(); // popstate back to step 2
    const paths = await spaPageviews(4);
    expect(paths.map((p) => p.path)).toEqual(["/spa", "/spa/step-2", "/spa/step-3", "/spa/step-2"]);
    expect(await conversionsOf(goals.spaStep)).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("takes the landing page's campaign from its query string and nothing else of it; the database keeps no User-Agent or address", async () => {
    const { context, page, errors } = await newPage();
    const pageviews = () => count(db, "SELECT count(*) FROM events WHERE kind = 'pageview'");
    const before = await pageviews();
    await page.goto(
      `http://shop.test:${pagePort}/spa?utm_source=newsletter&utm_medium=email&utm_campaign=launch%20week&email=alice%40example.com&token=s3cr3t`,
    );
    // The landing's beacon is stored before the navigation's is sent: two in flight may be stored in either order.
    await eventually(pageviews, (n) => n === before + 1);
    await page.click("#step2");
    const views = await eventually(
      () =>
        rows(
          db,
          "SELECT path, source, utm_source, utm_medium, utm_campaign, utm_content, utm_term, browser, os, device, country FROM events WHERE kind = 'pageview' ORDER BY id DESC LIMIT 2",
        ).then((found) => found.reverse()),
      (found) => found[0]?.path === "/spa" && found[1]?.path === "/spa/step-2",
    );
    // Chromium's Client Hints win over the User-Agent it was told to present; loopback has no country.
    const visitor = { browser: `Chromium ${browser.version().split(".")[0]}`, os: "Linux", device: "desktop", country: null };
    expect(views).toEqual([
      {
        path: "/spa",
        source: "Direct / None",
        utm_source: "newsletter",
        utm_medium: "email",
        utm_campaign: "launch week",
        utm_content: null,
        utm_term: null,
        ...visitor,
      },
      // A navigation inside the page is not a landing: no campaign, and the page itself is no referrer.
      {
        path: "/spa/step-2",
        source: "Direct / None",
        utm_source: null,
        utm_medium: null,
        utm_campaign: null,
        utm_content: null,
        utm_term: null,
        ...visitor,
      },
    ]);
    // Nothing of the rest of the query string, of the User-Agent or of the address is stored anywhere.
    for (const { name } of await rows<{ name: string }>(db, "SELECT name FROM sqlite_master WHERE type = 'table'")) {
      const dump = JSON.stringify(await rows(db, `SELECT * FROM "${name}"`));
      for (const secret of ["alice", "s3cr3t", BROWSER_UA, "X11; Linux x86_64", "AppleWebKit", "127.0.0.1"])
        expect(dump, name).not.toContain(secret);
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it("stores the landing pageview whatever its URL holds: a NUL, an emoji pair at the tracker's cut, a same-origin referrer over 2048 characters", async () => {
    // utm_source: 499 characters and an emoji, whose surrogate pair straddles the tracker's cut at 500.
    const landing = `/landing?utm_campaign=spring%00sale&utm_source=${"a".repeat(499)}%F0%9F%98%80&utm_medium=%F0%9F%98%80`;
    // The page the visitor comes from has a long query, so the landing's same-origin referrer is over 2048 characters.
    const from = `/from?to=${encodeURIComponent(landing)}&pad=${"p".repeat(2100)}`;
    const { context, page, errors } = await newPage();
    const statuses: number[] = [];
    page.on("response", (response) => {
      if (new URL(response.url()).pathname === "/e") statuses.push(response.status());
    });
    await page.goto(`http://shop.test:${pagePort}${from}`);
    const fromViews = () => count(db, "SELECT count(*) FROM events WHERE kind = 'pageview' AND path = '/from'");
    await eventually(fromViews, (n) => n === 1);
    await Promise.all([page.waitForURL(/\/landing/), page.click("#go")]);
    expect((await page.evaluate(() => document.referrer)).length).toBeGreaterThan(2048);
    const [view] = await eventually(
      () => rows(db, "SELECT referrer, source, utm_source, utm_medium, utm_campaign FROM events WHERE path = '/landing'"),
      (found) => found.length === 1,
    );
    // The NUL is gone, the cut pair too (the source is then cut to 100 when stored); the referrer is the site itself.
    const campaign = { utm_source: "a".repeat(100), utm_medium: "\u{1F600}", utm_campaign: "springsale" };
    expect(view).toEqual({ referrer: null, source: "Direct / None", ...campaign });
    expect(await conversionsOf(goals.landing)).toBe(1);
    expect(statuses.filter((status) => status !== 202)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("never throws into the page, even when storage and sendBeacon fail", async () => {
    const { context, page, errors } = await newPage();
    const before = await count(db, "SELECT count(*) FROM events WHERE path = '/hostile'");
    await page.goto(`http://shop.test:${pagePort}/hostile`);
    const ids = await page.evaluate(() => {
      const w = window as unknown as { wren: { session(): string } };
      return [w.wren.session(), w.wren.session()];
    });
    expect(ids[0]).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(ids[1]).toBe(ids[0]);
    await page.click("#go");
    // Calls with odd arguments are ignored or sent as far as they are valid, never thrown.
    await page.evaluate(() => {
      const w = window as unknown as { wren: { track(...args: unknown[]): void } };
      w.wren.track(undefined); // not an event name: ignored
      w.wren.track("signup", { value: "NaN" });
      w.wren.track("signup", null);
    });
    // fetch(keepalive) carried the beacons that sendBeacon could not: the pageview and three events.
    expect(
      await eventually(
        () => count(db, "SELECT count(*) FROM events WHERE path = '/hostile'"),
        (n) => n === before + 4,
      ),
    ).toBe(before + 4);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("the same snippet on another domain", () => {
  it("is refused at the collector and stores nothing", async () => {
    await sleep(500);
    const before = await collectorCounts(db);
    const { context, page, errors } = await newPage();
    const refusals: number[] = [];
    page.on("response", (response) => {
      if (new URL(response.url()).pathname === "/e") refusals.push(response.status());
    });
    await page.goto(`http://evil.test:${pagePort}/article`);
    await page.waitForFunction(() => performance.getEntriesByType("resource").some((e) => e.name.endsWith("/t.js?vitals")));
    await page.click("#signup");
    for (let i = 0; i < 12; i++) await page.mouse.wheel(0, 500);
    await sleep(2_300);
    await page.goto(`http://evil.test:${pagePort}/next`);
    await eventually(
      async () => refusals.length,
      (n) => n >= 3,
    );
    await sleep(500);
    expect(refusals.length).toBeGreaterThanOrEqual(3);
    expect(new Set(refusals)).toEqual(new Set([403]));
    expect(await collectorCounts(db)).toEqual(before);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("headless Chromium's own User-Agent is dropped as automation", async () => {
    const before = await collectorCounts(db);
    const headless = `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/${browser.version()} Safari/537.36`;
    const { context, page } = await newPage({ userAgent: headless });
    expect(await page.evaluate(() => navigator.userAgent)).toContain("HeadlessChrome");
    const statuses: number[] = [];
    page.on("response", (response) => {
      if (new URL(response.url()).pathname === "/e") statuses.push(response.status());
    });
    await page.goto(`http://shop.test:${pagePort}/next`);
    // The pageview, then (when the page painted after the tracker ran) its TTFB and FCP.
    await page.waitForFunction(() => performance.getEntriesByName("first-contentful-paint").length > 0);
    await eventually(
      async () => statuses.length,
      (n) => n >= 1,
    );
    await sleep(300);
    expect(statuses.length).toBeGreaterThanOrEqual(1);
    expect(new Set(statuses)).toEqual(new Set([403]));
    expect(await collectorCounts(db)).toEqual(before);
    await context.close();
  });
});

describe("the tracker's options", () => {
  const beaconsOf = (name: string) => recorder.beacons().filter((b) => b.body?.events.some((e) => e.name === name));
  const linkPartLoaded = (page: Page) =>
    page.waitForFunction(() => performance.getEntriesByType("resource").some((e) => e.name.endsWith("/w/t.js?track")));

  it("sends an outbound click by sendBeacon before the next page loads: left click, middle click and keyboard alike, the link's origin only", async () => {
    const { context, page, errors } = await newPage();
    const links = `http://shop.test:${pagePort}/links`;
    const partner = `http://evil.test:${pagePort}/partner?from=links`;
    const outbound = {
      type: "event",
      path: "/links",
      name: "Outbound Link: Click",
      props: { url: `http://evil.test:${pagePort}` },
    };

    await page.goto(links);
    await linkPartLoaded(page);
    await Promise.all([page.waitForURL(partner, { waitUntil: "load" }), page.click("#out")]);
    // The next page has loaded: the click's beacon is already in (looked at once, not waited for).
    expect(beaconsOf("Outbound Link: Click").map((b) => b.body!.events)).toEqual([[outbound]]);
    expect(beaconsOf("Outbound Link: Click")[0]!.status).not.toBe(413);

    // A middle click opens a tab and stays; a right click (a context menu) is no visit; an inside link is none either.
    await page.goto(links);
    await linkPartLoaded(page);
    await page.click("#out", { button: "middle" });
    await eventually(
      async () => beaconsOf("Outbound Link: Click").length,
      (n) => n === 2,
    );
    await page.click("#out", { button: "right" });
    await page.keyboard.press("Escape");
    await Promise.all([page.waitForURL(/\/elsewhere$/, { waitUntil: "load" }), page.click("#inside")]);

    // The keyboard: Enter on the focused link.
    await page.goto(links);
    await linkPartLoaded(page);
    await page.focus("#out");
    await Promise.all([page.waitForURL(partner, { waitUntil: "load" }), page.keyboard.press("Enter")]);
    expect(beaconsOf("Outbound Link: Click").map((b) => b.body!.events)).toEqual([[outbound], [outbound], [outbound]]);
    // Nothing of the link part reached pages that did not ask for it.
    expect(recorder.events().filter((e) => e.type === "event" && e.name !== "Outbound Link: Click")).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("sends a download click with the file's path (host/path off the site), by the default extension list; the page stays", async () => {
    const { context, page, errors } = await newPage();
    await page.goto(`http://shop.test:${pagePort}/links`);
    await linkPartLoaded(page);
    await page.click("#pdf");
    await page.click("#csv-inner"); // a click inside the link counts as the link's
    const downloads = await eventually(
      async () => beaconsOf("File Download"),
      (found) => found.length === 2,
    );
    expect(downloads.map((b) => b.body!.events)).toEqual([
      [{ type: "event", path: "/links", name: "File Download", props: { file: "/files/report.pdf" } }],
      [{ type: "event", path: "/links", name: "File Download", props: { file: `evil.test:${pagePort}/files/export.csv` } }],
    ]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("wren.notFound() by the 404 page's one line: event 404 on the missing path, and the not-found goal's conversion", async () => {
    const { context, page, errors } = await newPage();
    await page.goto(`http://shop.test:${pagePort}/missing/page`);
    const found = await eventually(
      () =>
        rows<{ name: string; path: string; props: string | null }>(
          db,
          "SELECT name, path, props FROM events WHERE kind = 'event' AND name = '404'",
        ),
      (r) => r.length === 1,
    );
    // The collector gives it its own path as the prop `path` (what the not-found goal is broken down by).
    expect(found).toEqual([{ name: "404", path: "/missing/page", props: JSON.stringify({ path: "/missing/page" }) }]);
    expect(
      await eventually(
        () => conversionsOf(goals.notFound),
        (n) => n === 1,
      ),
    ).toBe(1);
    expect(await rows(db, "SELECT source FROM conversions WHERE goal_id = ?", [goals.notFound])).toEqual([{ source: "beacon" }]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("sends props: data-props on pageviews, wren.props for the ones that follow, props and revenue on wren.track; a burst of long props in beacons the collector takes", async () => {
    const { context, page, errors } = await newPage();
    await page.goto(`http://shop.test:${pagePort}/props`);
    const pageviews = () => recorder.events().filter((e) => e.type === "pageview" && e.path.startsWith("/props"));
    await eventually(
      async () => pageviews(),
      (found) => found.length === 1,
    );
    expect(pageviews()[0]).toMatchObject({ path: "/props", props: { author: "ana", draft: "false" } });
    expect(Object.keys(pageviews()[0]!.props!)).toEqual(["author", "draft"]);

    await page.click("#buy");
    const purchase = await eventually(
      async () => recorder.events().filter((e) => e.name === "purchase"),
      (found) => found.length === 1,
    );
    expect(purchase).toEqual([
      {
        type: "event",
        path: "/props",
        name: "purchase",
        value: 2,
        props: { plan: "pro", seats: "3" },
        revenue: { amount: 12.5, currency: "EUR" },
      },
    ]);

    await page.evaluate(() => {
      window.wren!.props({ section: "docs", page: 2 });
      window.history.pushState({}, "", "/props/two");
    });
    await eventually(
      async () => pageviews(),
      (found) => found.length === 2,
    );
    expect(pageviews()[1]).toEqual({ type: "pageview", path: "/props/two", props: { section: "docs", page: "2" } });

    await page.click("#burst");
    const burst = await eventually(
      async () => recorder.beacons().filter((b) => b.body?.events.some((e) => e.name?.startsWith("step "))),
      (found) => found.length === 5,
    );
    // Five beacons in flight at once reach the recorder in any order: the set is what the tracker owes.
    const sent = burst.flatMap((b) => b.body!.events.map((e) => [e.name, Object.keys(e.props!).length]));
    expect(sent.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([0, 1, 2, 3, 4].map((i) => [`step ${i}`, 30]));
    for (const beacon of burst) {
      expect(beacon.bytes!).toBeLessThanOrEqual(BEACON_BODY_LIMIT);
      expect(beacon.status).not.toBe(413);
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it("counts a pageview whose data-props alone are over the body limit, without them", async () => {
    const { context, page, errors } = await newPage();
    await page.goto(`http://shop.test:${pagePort}/props-huge`);
    expect(
      await eventually(
        () => count(db, "SELECT count(*) FROM events WHERE kind = 'pageview' AND path = '/props-huge'"),
        (n) => n === 1,
      ),
    ).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("counts hash routes under data-hash as pageviews of the path joined with the route; without it a hash change is no pageview (and data-props that do not parse are ignored)", async () => {
    const { context, page, errors } = await newPage();
    const hashPageviews = (n: number) =>
      eventually(
        () =>
          rows<{ path: string }>(db, "SELECT path FROM events WHERE kind = 'pageview' AND path LIKE '/hash-app/%' ORDER BY id"),
        (found) => found.length === n,
      );
    await page.goto(`http://shop.test:${pagePort}/hash-app/`);
    await hashPageviews(1);
    await page.click("#settings");
    await hashPageviews(2);
    await page.click("#settings-tab"); // the route's own query: the same page
    await page.click("#inbox");
    await hashPageviews(3);
    await page.goBack(); // back to #/settings?tab=3
    const paths = await hashPageviews(4);
    expect(paths.map((p) => p.path)).toEqual(["/hash-app/", "/hash-app/settings", "/hash-app/inbox", "/hash-app/settings"]);

    await page.goto(`http://shop.test:${pagePort}/history-app/`);
    await eventually(
      () => count(db, "SELECT count(*) FROM events WHERE kind = 'pageview' AND path = '/history-app/'"),
      (n) => n === 1,
    );
    await page.click("#anchor");
    await page.goto(`http://shop.test:${pagePort}/history-app/`); // a beacon after the hash change has had its time
    await eventually(
      () => count(db, "SELECT count(*) FROM events WHERE kind = 'pageview' AND path = '/history-app/'"),
      (n) => n === 2,
    );
    expect(await count(db, "SELECT count(*) FROM events WHERE kind = 'pageview' AND path LIKE '/history-app/_%'")).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
