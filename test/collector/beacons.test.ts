/**
 * `POST /e` (tracker beacons) and `GET /t.js` against the real stack: the origin allowlist,
 * CORS, crawlers, bounds and validation, goal counting, vitals, and what the site wizard's
 * verification reads. Every refusal is checked to have stored nothing.
 */
import type { Client } from "@libsql/client";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleTracker } from "../../tracker/build";
import { startStack, type Stack } from "../helpers/stack";
import { BROWSER_UA, collectorCounts, count, createGoal, createSite, ensureTrackerBuilt, openDb, rows, type TestSite } from "./helpers";

let stack: Stack;
let db: Client;
let shop: TestSite;
let goals: { pricing: string; signup: string; read: string; scrolled: string };

type BeaconEvent = Record<string, unknown>;

async function send(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${stack.url}/e`, {
    method: "POST",
    headers: { "content-type": "text/plain;charset=UTF-8", origin: "https://shop.test", "user-agent": BROWSER_UA, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

const newSession = () => randomBytes(16).toString("base64url");
const beaconOf = (session: string, ...events: BeaconEvent[]) => ({ site: shop.id, session, events });

beforeAll(async () => {
  await ensureTrackerBuilt();
  stack = await startStack();
  shop = await createSite(stack, "shop.test");
  goals = {
    pricing: await createGoal(stack, shop.id, "page", "/pricing*"),
    signup: await createGoal(stack, shop.id, "event", "signup"),
    read: await createGoal(stack, shop.id, "time", "/article/*", 10),
    scrolled: await createGoal(stack, shop.id, "scroll", "/article/*", 75),
  };
  db = openDb(stack);
});

afterAll(async () => {
  db?.close();
  await stack?.stop();
});

describe("origin allowlist", () => {
  it("stores a beacon from the site's domain and answers CORS for that origin only", async () => {
    const before = await collectorCounts(db);
    const answer = await send(beaconOf(newSession(), { type: "pageview", path: "/", referrer: "https://news.example/item?id=7" }), { origin: "http://shop.test:4321" });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ accepted: 1 });
    expect(answer.headers.get("access-control-allow-origin")).toBe("http://shop.test:4321");
    expect(answer.headers.get("vary")).toBe("Origin");
    const after = await collectorCounts(db);
    expect(after).toEqual({ ...before, events: before.events + 1, sessions: before.sessions + 1, site_beacons: before.site_beacons + 1 });
    expect(await rows(db, "SELECT kind, path, referrer, name, value FROM events ORDER BY id DESC LIMIT 1")).toEqual([
      { kind: "pageview", path: "/", referrer: "news.example", name: null, value: null },
    ]);
    expect(await rows(db, "SELECT * FROM site_beacons WHERE site_id = ?", [shop.id])).toEqual([
      { site_id: shop.id, origin: "http://shop.test:4321", first_seen: expect.any(Number), path: "/" },
    ]);
  });

  it("falls back to Referer when the browser sent no Origin", async () => {
    const response = await fetch(`${stack.url}/e`, {
      method: "POST",
      headers: { "content-type": "text/plain", referer: "https://shop.test/from-referer", "user-agent": BROWSER_UA },
      body: JSON.stringify(beaconOf(newSession(), { type: "pageview", path: "/from-referer" })),
    });
    expect(response.status).toBe(202);
    // CORS is answered only to a declared Origin.
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("refuses every other origin with 403 and stores nothing", async () => {
    const before = await collectorCounts(db);
    const beaconsBefore = await rows(db, "SELECT * FROM site_beacons ORDER BY origin");
    const refused: Array<Record<string, string>> = [
      { origin: "https://evil.test" },
      { origin: "https://www.shop.test" },
      { origin: "https://shop.test.evil.test" },
      { origin: "https://evilshop.test" },
      { origin: "null" },
      { origin: "https://evil.test", referer: "https://shop.test/" },
      { origin: "file://" },
    ];
    for (const headers of refused) {
      const answer = await send(beaconOf(newSession(), { type: "pageview", path: "/pricing" }), headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.body.field).toBe("origin");
      expect(answer.headers.get("access-control-allow-origin")).toBeNull();
    }
    const noOrigin = await fetch(`${stack.url}/e`, {
      method: "POST",
      headers: { "content-type": "text/plain", "user-agent": BROWSER_UA },
      body: JSON.stringify(beaconOf(newSession(), { type: "pageview", path: "/" })),
    });
    expect(noOrigin.status).toBe(403);
    const evilReferer = await fetch(`${stack.url}/e`, {
      method: "POST",
      headers: { "content-type": "text/plain", "user-agent": BROWSER_UA, referer: "https://evil.test/shop.test" },
      body: JSON.stringify(beaconOf(newSession(), { type: "pageview", path: "/" })),
    });
    expect(evilReferer.status).toBe(403);
    const unknownSite = await send({ site: "site_doesnotexist", session: newSession(), events: [{ type: "pageview", path: "/" }] });
    expect(unknownSite.status).toBe(403);
    expect(unknownSite.body.field).toBe("site");
    expect(await collectorCounts(db)).toEqual(before);
    expect(await rows(db, "SELECT * FROM site_beacons ORDER BY origin")).toEqual(beaconsBefore);
  });

  it("compares internationalised hostnames in their normalised form", async () => {
    const site = await createSite(stack, "Bücher.test");
    const response = await fetch(`${stack.url}/e`, {
      method: "POST",
      headers: { "content-type": "text/plain", origin: "https://xn--bcher-kva.test", "user-agent": BROWSER_UA },
      body: JSON.stringify({ site: site.id, session: newSession(), events: [{ type: "pageview", path: "/" }] }),
    });
    expect(response.status).toBe(202);
  });

  it("takes a hostname with a trailing dot as the same one without: the site's domain, the origin stored, the referrer", async () => {
    const site = await createSite(stack, "dot.test.");
    const again = await stack.cli(["sites", "create", "--name", "again", "--domain", "dot.test", "--json"]);
    expect(JSON.parse(again.stdout).id).toBe(site.id);
    expect(await rows(db, "SELECT domain FROM sites WHERE id = ?", [site.id])).toEqual([{ domain: "dot.test" }]);
    const beacon = (origin: string, referrer: string) =>
      send({ site: site.id, session: newSession(), events: [{ type: "pageview", path: "/", referrer }] }, { origin });
    const dotted = await beacon("https://dot.test.", "https://dot.test/from");
    expect(dotted.status).toBe(202);
    // CORS echoes the Origin exactly as the browser sent it, or the browser would not match it.
    expect(dotted.headers.get("access-control-allow-origin")).toBe("https://dot.test.");
    expect((await beacon("https://dot.test", "https://dot.test./from")).status).toBe(202);
    const origins = await rows(db, "SELECT origin FROM site_beacons WHERE site_id = ?", [site.id]);
    expect(origins).toEqual([{ origin: "https://dot.test" }]);
    // The site's own pages, dot or none, are no referrer.
    expect(await rows(db, "SELECT referrer, source FROM events WHERE site_id = ?", [site.id])).toEqual([
      { referrer: null, source: "Direct / None" },
      { referrer: null, source: "Direct / None" },
    ]);
  });

  it("answers every CORS preflight alike (no domain enumeration); only the beacon itself checks the origin", async () => {
    const ok = await fetch(`${stack.url}/e`, { method: "OPTIONS", headers: { origin: "https://shop.test", "access-control-request-method": "POST" } });
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://shop.test");
    expect(ok.headers.get("access-control-allow-methods")).toBe("POST");
    const evil = await fetch(`${stack.url}/e`, { method: "OPTIONS", headers: { origin: "https://evil.test", "access-control-request-method": "POST" } });
    expect(evil.status).toBe(204);
    expect(evil.headers.get("access-control-allow-origin")).toBe("https://evil.test");
    const refused = await send(beaconOf(newSession(), { type: "pageview", path: "/" }), { origin: "https://evil.test" });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("crawlers, bounds and validation", () => {
  it("drops known crawlers and clients that are not browsers", async () => {
    const before = await collectorCounts(db);
    const agents = [
      "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
      "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0 Safari/537.36",
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/140.0.0.0 Safari/537.36",
      "curl/8.5.0",
      "python-requests/2.32",
      "facebookexternalhit/1.1",
      "",
    ];
    for (const agent of agents) {
      const answer = await send(beaconOf(newSession(), { type: "pageview", path: "/" }), { "user-agent": agent });
      expect(answer.status, agent).toBe(403);
      expect(answer.body.field).toBe("user-agent");
    }
    expect(await collectorCounts(db)).toEqual(before);
  });

  it("refuses malformed beacons with the right 4xx, naming the field, and stores nothing", async () => {
    const before = await collectorCounts(db);
    const s = newSession();
    const cases: Array<{ name: string; body: unknown; headers?: Record<string, string>; status: number; field: string }> = [
      { name: "form body", body: "a=b", headers: { "content-type": "application/x-www-form-urlencoded" }, status: 415, field: "content-type" },
      { name: "over 16 KB", body: JSON.stringify(beaconOf(s, { type: "pageview", path: `/${"a".repeat(17_000)}` })), status: 413, field: "body" },
      { name: "not JSON", body: "{site:", status: 400, field: "body" },
      { name: "empty", body: "", status: 400, field: "body" },
      { name: "no session", body: { site: shop.id, events: [{ type: "pageview", path: "/" }] }, status: 422, field: "session" },
      { name: "short session", body: { site: shop.id, session: "abc", events: [{ type: "pageview", path: "/" }] }, status: 422, field: "session" },
      { name: "bad site id", body: { site: "shop", session: s, events: [{ type: "pageview", path: "/" }] }, status: 422, field: "site" },
      { name: "no events", body: beaconOf(s), status: 422, field: "events" },
      { name: "31 events", body: beaconOf(s, ...Array.from({ length: 31 }, () => ({ type: "pageview", path: "/" }))), status: 422, field: "events" },
      { name: "relative path", body: beaconOf(s, { type: "pageview", path: "pricing" }), status: 422, field: "events.0.path" },
      { name: "query in path", body: beaconOf(s, { type: "pageview", path: "/p?email=a@b.c" }), status: 422, field: "events.0.path" },
      { name: "unknown type", body: beaconOf(s, { type: "click", path: "/" }), status: 422, field: "events.0.type" },
      { name: "unknown field", body: beaconOf(s, { type: "pageview", path: "/", title: "Home" }), status: 422, field: "events.0.title" },
      { name: "bad event name", body: beaconOf(s, { type: "event", path: "/", name: "<script>" }), status: 422, field: "events.0.name" },
      { name: "scroll over 100", body: beaconOf(s, { type: "engagement", path: "/", seconds: 3, scroll: 101 }), status: 422, field: "events.0.scroll" },
      { name: "negative seconds", body: beaconOf(s, { type: "engagement", path: "/", seconds: -1, scroll: 10 }), status: 422, field: "events.0.seconds" },
      { name: "unknown metric", body: beaconOf(s, { type: "vital", path: "/", metric: "FID", value: 3 }), status: 422, field: "events.0.metric" },
      { name: "second event bad", body: beaconOf(s, { type: "pageview", path: "/" }, { type: "event", path: "/" }), status: 422, field: "events.1.name" },
      { name: "lone surrogate", body: beaconOf(s, { type: "event", path: "/", name: "buy\udc00" }), status: 422, field: "events.0.name" },
    ];
    for (const c of cases) {
      const answer = await send(c.body, c.headers);
      expect(answer.status, c.name).toBe(c.status);
      expect(answer.headers.get("content-type"), c.name).toBe("application/problem+json");
      expect(answer.body.field, c.name).toBe(c.field);
    }
    expect((await fetch(`${stack.url}/e`)).status).toBe(405);
    expect(await collectorCounts(db)).toEqual(before);
  });
});

describe("goals from beacons", () => {
  const conversionsOf = (goal: string) => count(db, "SELECT count(*) FROM conversions WHERE goal_id = ? AND source = 'beacon'", [goal]);

  it("a page goal counts once per session, on a matching path", async () => {
    const first = newSession();
    expect((await send(beaconOf(first, { type: "pageview", path: "/pricing" }))).status).toBe(202);
    expect((await send(beaconOf(first, { type: "pageview", path: "/pricing/team" }))).status).toBe(202);
    expect((await send(beaconOf(first, { type: "pageview", path: "/about" }))).status).toBe(202);
    expect(await conversionsOf(goals.pricing)).toBe(1);
    expect((await send(beaconOf(newSession(), { type: "pageview", path: "/pricing" }))).status).toBe(202);
    expect(await conversionsOf(goals.pricing)).toBe(2);
    expect((await send(beaconOf(newSession(), { type: "pageview", path: "/docs/pricing" }))).status).toBe(202);
    expect(await conversionsOf(goals.pricing)).toBe(2);
    // The session that converted: three pageviews, entered on /pricing, attached to the conversion.
    const sessions = await rows<{ id: string; entry_path: string }>(db, "SELECT s.id, s.entry_path FROM sessions s JOIN conversions c ON c.session_id = s.id WHERE c.goal_id = ? ORDER BY s.first_seen LIMIT 1", [goals.pricing]);
    expect(sessions[0]).toMatchObject({ entry_path: "/pricing" });
    expect(await count(db, "SELECT count(*) FROM events WHERE session_id = ? AND kind = 'pageview'", [sessions[0]!.id])).toBe(3);
  });

  it("an event goal counts every time, with its value", async () => {
    const s = newSession();
    await send(beaconOf(s, { type: "event", path: "/join", name: "signup", value: 12.5 }));
    await send(beaconOf(s, { type: "event", path: "/join", name: "signup" }));
    await send(beaconOf(s, { type: "event", path: "/join", name: "newsletter" }));
    expect(await rows(db, "SELECT value FROM conversions WHERE goal_id = ? ORDER BY id", [goals.signup])).toEqual([{ value: 12.5 }, { value: null }]);
    expect(await count(db, "SELECT count(*) FROM events WHERE kind = 'event' AND name IN ('signup', 'newsletter')")).toBe(3);
  });

  it("time and scroll goals count once the threshold is reached on a matching path, once per session", async () => {
    const s = newSession();
    await send(beaconOf(s, { type: "pageview", path: "/article/1" }));
    await send(beaconOf(s, { type: "engagement", path: "/article/1", seconds: 9, scroll: 74 }));
    expect(await conversionsOf(goals.read)).toBe(0);
    expect(await conversionsOf(goals.scrolled)).toBe(0);
    await send(beaconOf(s, { type: "engagement", path: "/article/1", seconds: 10, scroll: 75 }));
    expect(await conversionsOf(goals.read)).toBe(1);
    expect(await conversionsOf(goals.scrolled)).toBe(1);
    await send(beaconOf(s, { type: "engagement", path: "/article/2", seconds: 50, scroll: 100 }));
    expect(await conversionsOf(goals.read)).toBe(1);
    expect(await conversionsOf(goals.scrolled)).toBe(1);
    await send(beaconOf(newSession(), { type: "engagement", path: "/blog/1", seconds: 50, scroll: 100 }));
    expect(await conversionsOf(goals.read)).toBe(1);
    expect(await count(db, "SELECT count(*) FROM events WHERE kind = 'engagement' AND seconds = 10 AND scroll_depth = 75 AND path = '/article/1'")).toBe(1);
  });

  it("stores vitals with the page and session", async () => {
    const s = newSession();
    const before = await count(db, "SELECT count(*) FROM vitals");
    const answer = await send(
      beaconOf(
        s,
        { type: "vital", path: "/v", metric: "LCP", value: 1234.5 },
        { type: "vital", path: "/v", metric: "CLS", value: 0.02 },
        { type: "vital", path: "/v", metric: "INP", value: 48 },
        { type: "vital", path: "/v", metric: "FCP", value: 800 },
        { type: "vital", path: "/v", metric: "TTFB", value: 90 },
      ),
    );
    expect(answer.status).toBe(202);
    expect(await count(db, "SELECT count(*) FROM vitals")).toBe(before + 5);
    expect(await rows(db, "SELECT metric, value FROM vitals WHERE path = '/v' ORDER BY metric")).toEqual([
      { metric: "CLS", value: 0.02 },
      { metric: "FCP", value: 800 },
      { metric: "INP", value: 48 },
      { metric: "LCP", value: 1234.5 },
      { metric: "TTFB", value: 90 },
    ]);
    expect(await count(db, "SELECT count(DISTINCT session_id) FROM vitals WHERE path = '/v'")).toBe(1);
  });

  it("keeps only the referring host, and none for a visitor coming from the site itself", async () => {
    await send(beaconOf(newSession(), { type: "pageview", path: "/ref-self", referrer: "https://shop.test/elsewhere" }));
    await send(beaconOf(newSession(), { type: "pageview", path: "/ref-ext", referrer: "https://www.search.example/q?secret=1" }));
    expect(await rows(db, "SELECT path, referrer FROM events WHERE path LIKE '/ref-%' ORDER BY path")).toEqual([
      { path: "/ref-ext", referrer: "www.search.example" },
      { path: "/ref-self", referrer: null },
    ]);
  });
});

describe("GET /t.js", () => {
  it("serves the built tracker, cacheable with an ETag, and its vitals part", async () => {
    const bundles = await bundleTracker();
    const core = await fetch(`${stack.url}/t.js`, { headers: { "accept-encoding": "identity" } });
    expect(core.status).toBe(200);
    expect(core.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(core.headers.get("cache-control")).toBe("public, max-age=3600, stale-while-revalidate=86400");
    expect(await core.text()).toBe(bundles.core);
    const etag = core.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{16}"$/);
    const revalidated = await fetch(`${stack.url}/t.js`, { headers: { "if-none-match": etag } });
    expect(revalidated.status).toBe(304);
    const vitals = await fetch(`${stack.url}/t.js?vitals`);
    expect(await vitals.text()).toBe(bundles.vitals);
    expect(vitals.headers.get("etag")).not.toBe(etag);
    expect((await fetch(`${stack.url}/t.js`, { method: "POST" })).status).toBe(405);
  });
});

describe("dimensions", () => {
  const CHROME_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
  const hints = {
    "user-agent": CHROME_WINDOWS,
    "sec-ch-ua": '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
    "sec-ch-ua-mobile": "?0",
    "sec-ch-ua-platform": '"Windows"',
    "sec-ch-ua-platform-version": '"15.0.0"',
  };
  const dimensionsOf = async (path: string) =>
    (
      await rows(
        db,
        "SELECT source, utm_source, utm_medium, utm_campaign, utm_content, utm_term, browser, os, device, country FROM events WHERE path = ? AND kind = 'pageview'",
        [path],
      )
    )[0];

  it("stores a pageview's source, campaign, browser, system and device, and no country for a loopback client", async () => {
    const answer = await send(
      beaconOf(newSession(), {
        type: "pageview",
        path: "/landing",
        referrer: "https://www.google.de/search?q=wren",
        utm: { source: "  newsletter ", medium: "email", campaign: "launch-2026", term: "x".repeat(300) },
      }),
      // A forged X-Forwarded-For is never believed: WREN_CLIENT_IP_HEADER is unset.
      { ...hints, "x-forwarded-for": "8.8.8.8" },
    );
    expect(answer.status).toBe(202);
    expect(await dimensionsOf("/landing")).toEqual({
      source: "Google",
      utm_source: "newsletter",
      utm_medium: "email",
      utm_campaign: "launch-2026",
      utm_content: null,
      utm_term: "x".repeat(100),
      browser: "Chrome 131",
      os: "Windows 11",
      device: "desktop",
      country: null,
    });
  });

  it("refuses a malformed utm with 422 naming it, and stores nothing", async () => {
    const before = await collectorCounts(db);
    // An over-long value is cut, not refused (tracker-payload.test.ts): only a malformed utm is.
    for (const utm of [{ source: 7 }, { colour: "red" }, "newsletter"]) {
      const answer = await send(beaconOf(newSession(), { type: "pageview", path: "/", utm }));
      expect(answer.status).toBe(422);
      expect(answer.body.field).toMatch(/^events\.0\.utm/);
    }
    expect(await collectorCounts(db)).toEqual(before);
  });

  it("looks the country up from the header WREN_CLIENT_IP_HEADER names, and keeps neither address nor User-Agent", async () => {
    const proxied = await startStack({ env: { WREN_CLIENT_IP_HEADER: "X-Real-IP" } });
    try {
      const site = await createSite(proxied, "proxied.test");
      const proxiedDb = openDb(proxied);
      try {
        const beacon = (address: string) =>
          fetch(`${proxied.url}/e`, {
            method: "POST",
            headers: { "content-type": "text/plain", origin: "https://proxied.test", ...hints, "x-real-ip": address },
            body: JSON.stringify({ site: site.id, session: newSession(), events: [{ type: "pageview", path: "/" }] }),
          });
        for (const address of ["8.8.8.8", "88.198.0.1", "10.1.2.3"]) expect((await beacon(address)).status).toBe(202);
        expect(await rows(proxiedDb, "SELECT country, browser FROM events ORDER BY id")).toEqual([
          { country: "US", browser: "Chrome 131" },
          { country: "DE", browser: "Chrome 131" },
          { country: null, browser: "Chrome 131" },
        ]);
        // Neither the addresses nor the User-Agent are anywhere in the database.
        const tables = await rows(proxiedDb, "SELECT name FROM sqlite_master WHERE type = 'table'");
        for (const { name } of tables) {
          const dump = JSON.stringify(await rows(proxiedDb, `SELECT * FROM "${String(name)}"`));
          for (const secret of ["8.8.8.8", "88.198.0.1", "10.1.2.3", "Windows NT 10.0", "Not_A Brand"]) expect(dump, `${name}`).not.toContain(secret);
        }
      } finally {
        proxiedDb.close();
      }
    } finally {
      await proxied.stop();
    }
  });
});
