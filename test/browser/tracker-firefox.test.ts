/**
 * The tracker in real Firefox ESR (Debian's /usr/bin/firefox-esr, driven by puppeteer-core over
 * WebDriver BiDi; never a downloaded browser) against the real stack: a tab closed on a second
 * page has still delivered that page's TTFB and FCP. Firefox closed tabs before web-vitals had
 * reported them, so the core reads them itself; and under load it dropped the first beacon of
 * a close now and then (1 closing in 40 with 4 busy cores), so they leave while the page is
 * visible, with the pageview or at the first paint, instead of with the engagement. And the
 * tracker's options in Firefox: an outbound click's beacon is in before the next page has
 * loaded, a download click's too, and `wren.notFound()` stores its 404 (test/helpers/beacon-recorder.ts
 * shows what left the browser where this branch's collector does not store props yet).
 */
import type { Client } from "@libsql/client";
import type { IncomingMessage, ServerResponse } from "node:http";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveOnLoopback, type LoopbackServer } from "../helpers/http";
import { startStack, type Stack } from "../helpers/stack";
import { createGoal, createSite, ensureTrackerBuilt, openDb, rows, type TestSite } from "../collector/helpers";
import { BeaconRecorder } from "../helpers/beacon-recorder";
import { eventually } from "../helpers/wait";

let stack: Stack;
let db: Client;
let shop: TestSite;
let browser: Browser;
let pages: LoopbackServer;
let notFoundGoal: string;
const recorder = new BeaconRecorder(() => stack.url);

/** The options' pages: links through the recorder, and a 404 page with its one line. */
function optionsPage(path: string): string | null {
  const page = (snippet: string, body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>${path}</title>${snippet}</head><body>${body}</body></html>`;
  if (path === "/links") {
    return page(
      recorder.snippet(shop.snippet, 'data-track="outbound downloads"'),
      `<a id="out" href="http://other.test:${pages.port}/partner">Partner</a><a id="zip" href="/files/pack.zip">Pack</a>`,
    );
  }
  if (path === "/partner") return page("", "<p>Another site.</p>");
  if (path === "/gone") return page(shop.snippet, `<h1>Not found</h1><script>window.wren = window.wren || { q: [] }; wren.q.push(["notFound"]);</script>`);
  return null;
}

function servePage(req: IncomingMessage, res: ServerResponse): void {
  if (recorder.handle(req, res)) return;
  const path = new URL(req.url ?? "/", "http://x").pathname;
  if (path === "/files/pack.zip") {
    res.writeHead(204).end();
    return;
  }
  const options = optionsPage(path);
  if (options !== null) {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(options);
    return;
  }
  const next = new URL(req.url ?? "/", "http://x").searchParams.get("next") ?? "/";
  const body =
    path === "/first" ? `<h1>First</h1><a id="next" href="${next}">Next page</a>` : `<h1>Second</h1><p>Some text to paint.</p>`;
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${path}</title>${shop.snippet}</head><body>${body}</body></html>`;
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html);
}

beforeAll(async () => {
  await ensureTrackerBuilt();
  stack = await startStack();
  shop = await createSite(stack, "shop.test");
  notFoundGoal = await createGoal(stack, shop.id, "not-found");
  db = openDb(stack);
  pages = await serveOnLoopback(servePage);
  browser = await puppeteer.launch({
    browser: "firefox",
    executablePath: "/usr/bin/firefox-esr",
    protocol: "webDriverBiDi",
    headless: true,
    extraPrefsFirefox: {
      // shop.test is this machine; and nothing of Firefox's own goes beyond loopback.
      "network.dns.localDomains": "shop.test,other.test",
      "network.trr.mode": 5,
      "network.captive-portal-service.enabled": false,
      "network.connectivity-service.enabled": false,
      "network.dns.disablePrefetch": true,
      "network.prefetch-next": false,
      "extensions.blocklist.enabled": false,
      "browser.region.network.url": "",
      "toolkit.telemetry.enabled": false,
      "toolkit.telemetry.server": "",
      // Every name Firefox looks up is 127.0.0.1, without asking a resolver (Mozilla's own tests'
      // switch): it still looked up firefox.settings.services.mozilla.com at start otherwise.
      "network.dns.native-is-localhost": true,
    },
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await pages?.close();
  db?.close();
  await stack?.stop();
});

interface Row {
  kind: string;
  metric: string | null;
  session_id: string;
  ts: number;
}

/** The second page's engagement and vitals, as stored. */
const secondPageRows = (path: string) =>
  rows<Row>(
    db,
    "SELECT 'engagement' AS kind, NULL AS metric, session_id, ts FROM events WHERE kind = 'engagement' AND path = ? " +
      "UNION ALL SELECT 'vital', metric, session_id, ts FROM vitals WHERE path = ? ORDER BY kind, metric",
    [path, path],
  );

/** Firefox lost them in about 3 closings of 5; five in a row all delivered is no luck. */
const RUNS = 5;

describe("the tracker in Firefox ESR", () => {
  it("has sent the second page's TTFB and FCP, once each, before its tab is closed (five runs of five); the engagement follows the close", async () => {
    let engagements = 0;
    for (let run = 1; run <= RUNS; run++) {
      const second = `/second-${run}`;
      const page = await browser.newPage();
      await page.goto(`http://shop.test:${pages.port}/first?next=${second}`);
      await Promise.all([page.waitForNavigation(), page.click("#next")]);
      // The second page's pageview is in: the tracker runs there.
      await eventually(
        () => rows(db, "SELECT 1 FROM events WHERE kind = 'pageview' AND path = ?", [second]),
        (found) => found.length === 1,
        15_000,
      );
      // The visitor has seen the page (its first contentful paint is in): both metrics exist to be lost.
      await page.waitForFunction(() => performance.getEntriesByName("first-contentful-paint").length > 0, { timeout: 10_000 });
      const early = await eventually(
        () => secondPageRows(second),
        (found) => ["TTFB", "FCP"].every((metric) => found.some((r) => r.metric === metric)),
        15_000,
      );
      expect({ run, metrics: early.map((r) => r.metric).filter((m) => m === "TTFB" || m === "FCP") }).toEqual({ run, metrics: ["FCP", "TTFB"] });
      // Then the visitor closes the tab.
      await page.close({ runBeforeUnload: true });
      const stored = await eventually(
        () => secondPageRows(second),
        (found) => found.some((r) => r.kind === "engagement"),
        15_000,
      );
      if (stored.some((r) => r.kind === "engagement")) engagements++;
      // Sent once each, whether the core or web-vitals read them; one session throughout.
      expect(stored.filter((r) => r.metric === "TTFB" || r.metric === "FCP")).toHaveLength(2);
      expect(new Set(stored.map((r) => r.session_id)).size).toBe(1);
    }
    // The close's beacon is the browser's to deliver: Firefox under load drops one now and then.
    expect(engagements).toBeGreaterThanOrEqual(RUNS - 1);
  }, 120_000);
});

describe("the tracker's options in Firefox ESR", () => {
  const named = (name: string) => recorder.events().filter((e) => e.name === name);

  it("sends an outbound click before the next page has loaded, and a download click, by sendBeacon", async () => {
    const page = await browser.newPage();
    await page.goto(`http://shop.test:${pages.port}/links`);
    await page.waitForFunction(() => performance.getEntriesByType("resource").some((e) => e.name.endsWith("/w/t.js?track")), { timeout: 10_000 });
    await page.click("#zip");
    expect(await eventually(async () => named("File Download"), (found) => found.length === 1, 15_000)).toEqual([
      { type: "event", path: "/links", name: "File Download", props: { file: "/files/pack.zip" } },
    ]);
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#out")]);
    expect(page.url()).toBe(`http://other.test:${pages.port}/partner`);
    // Looked at once the next page has loaded, not waited for.
    expect(named("Outbound Link: Click")).toEqual([{ type: "event", path: "/links", name: "Outbound Link: Click", props: { url: `http://other.test:${pages.port}` } }]);
    await page.close();
  }, 60_000);

  it("stores wren.notFound()'s 404 on the missing path, and the not-found goal's conversion", async () => {
    const page = await browser.newPage();
    await page.goto(`http://shop.test:${pages.port}/gone`);
    const found = await eventually(
      () => rows<{ path: string }>(db, "SELECT path FROM events WHERE kind = 'event' AND name = '404'"),
      (r) => r.length === 1,
      15_000,
    );
    expect(found).toEqual([{ path: "/gone" }]);
    expect(await eventually(() => rows(db, "SELECT source FROM conversions WHERE goal_id = ?", [notFoundGoal]), (r) => r.length === 1)).toEqual([{ source: "beacon" }]);
    await page.close();
  }, 60_000);
});
