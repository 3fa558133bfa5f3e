/**
 * The tracker never sends what the collector refuses: hostile landing URLs, referrers, event
 * names and measurements go through the tracker's own payload code (tracker/src/payload.ts, the
 * functions its core calls) and into the real collector on the real stack, and every beacon
 * must be stored whole. Also the collector's own cleaning, for clients other than the tracker:
 * the text a URL can carry is cleaned and cut, never a reason to refuse the beacon. And the
 * tracker's own shapes: custom properties coerced, revenue passed on only when well formed,
 * hash routes as paths, and events split into beacons by size as well as by count.
 */
import type { Client } from "@libsql/client";
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  beaconBodies,
  cleanProps,
  customEvent,
  engagementEvent,
  pagePath,
  pageviewEvent,
  vitalEvent,
  type Outgoing,
} from "../../tracker/src/payload";
import {
  BEACON_BODY_LIMIT,
  BEACON_MAX_EVENTS,
  MAX_PATH_LENGTH,
  MAX_PROPS,
  MAX_SENT_UTM_LENGTH,
} from "../../worker/lib/beacon-limits";
import { startStack, type Stack } from "../helpers/stack";
import { BROWSER_UA, collectorCounts, createSite, ensureTrackerBuilt, openDb, rows, type TestSite } from "./helpers";

let stack: Stack;
let db: Client;
let shop: TestSite;

const newSession = () => randomBytes(16).toString("base64url");

/** POSTs events as the tracker's `send` does: one text/plain JSON body from the site's page. */
async function beacon(events: Outgoing[] | Record<string, unknown>[]) {
  const response = await fetch(`${stack.url}/e`, {
    method: "POST",
    headers: { "content-type": "text/plain;charset=UTF-8", origin: "https://shop.test", "user-agent": BROWSER_UA },
    body: JSON.stringify({ site: shop.id, session: newSession(), events }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

interface StoredPageview {
  path: string;
  referrer: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_content: string | null;
  utm_term: string | null;
}

const lastPageview = async () =>
  (
    await rows<StoredPageview>(
      db,
      "SELECT path, referrer, utm_source, utm_medium, utm_campaign, utm_content, utm_term FROM events WHERE kind = 'pageview' ORDER BY id DESC LIMIT 1",
    )
  )[0]!;

beforeAll(async () => {
  await ensureTrackerBuilt();
  stack = await startStack();
  shop = await createSite(stack, "shop.test");
  db = openDb(stack);
});

afterAll(async () => {
  db?.close();
  await stack?.stop();
});

// ---- generators -------------------------------------------------------------------------

/** Any UTF-16 text: lone surrogates, NUL and other control characters, emoji pairs. */
const anyText = (maxLength: number) =>
  fc.string({
    unit: fc.oneof(
      fc.constantFrom("\0", "\u001f", "\u007f", "\u0085", "😀", "\ud83d", "\ude00", " ", "%", "a"),
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    ),
    maxLength,
  });
/** A percent-encoded byte string: NULs, invalid UTF-8, and emoji whose pair straddles the tracker's cut at 500. */
const encodedBytes = fc.oneof(
  fc.uint8Array({ maxLength: 40 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")),
  fc.integer({ min: MAX_SENT_UTM_LENGTH - 3, max: MAX_SENT_UTM_LENGTH + 1 }).map((n) => `${"a".repeat(n)}%F0%9F%98%80tail`),
  fc.constantFrom("spring%00sale", "%00", "%ED%A0%BD", "%C0%80", "+%20+"),
  anyText(80).map((text) => encodeURIComponent(text.replace(/[\ud800-\udfff]/g, ""))),
);
/** A query value as it may appear in a landing URL, encoded or raw. */
const queryValue = fc.oneof(encodedBytes, anyText(700));
const landingUrl = fc
  .record({
    path: fc.oneof(
      anyText(60),
      fc.integer({ min: MAX_PATH_LENGTH - 4, max: MAX_PATH_LENGTH + 600 }).map((n) => "p/".repeat(n / 2) + "😀"),
    ),
    params: fc.array(
      fc.tuple(
        fc.constantFrom("utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term", "ref", "source", "other"),
        queryValue,
      ),
      { maxLength: 6 },
    ),
  })
  .map(({ path, params }) => {
    const raw = `https://shop.test/${path.replace(/[?#]/g, "")}?${params.map(([k, v]) => `${k}=${v}`).join("&")}`;
    try {
      return new URL(raw);
    } catch {
      return new URL("https://shop.test/");
    }
  });
const referrer = fc.oneof(
  fc.constant(""),
  fc.integer({ min: 2000, max: 4000 }).map((n) => `https://shop.test/from?q=${"r".repeat(n)}`),
  anyText(300).map((tail) => `https://news.example/${encodeURI(tail.replace(/[\ud800-\udfff]/g, ""))}`),
  anyText(3000),
);
/** Measurements as a page may produce them, including the broken ones. */
const measurement = fc.oneof(
  fc.double(),
  fc.integer({ min: -1e7, max: 1e10 }),
  fc.constantFrom(NaN, Infinity, -Infinity, 86_401, 3_600_001),
);

// ---- properties -------------------------------------------------------------------------

const wellFormed = (text: string) => (text as string & { isWellFormed(): boolean }).isWellFormed() && !/[\p{Cc}]/u.test(text);

describe("the tracker's payloads against the real collector", () => {
  it("every landing pageview, with the page's events and measurements beside it, is stored whole", async () => {
    await fc.assert(
      fc.asyncProperty(
        landingUrl,
        referrer,
        anyText(130),
        measurement,
        measurement,
        measurement,
        async (url, from, name, a, b, c) => {
          const path = pagePath(url.pathname);
          const events = [pageviewEvent(path, from, url.search), engagementEvent(path, a, b), vitalEvent(path, "LCP", c)];
          const event = customEvent(path, name, a);
          if (event) events.push(event);
          const before = await collectorCounts(db);
          const answer = await beacon(events);
          expect(answer, JSON.stringify(events)).toEqual({ status: 202, body: { accepted: events.length } });
          const after = await collectorCounts(db);
          expect(after.events - before.events).toBe(events.length - 1);
          expect(after.vitals - before.vitals).toBe(1);
          const stored = await lastPageview();
          expect(stored.path).toBe(path);
          expect(stored.path.length).toBeLessThanOrEqual(MAX_PATH_LENGTH);
          for (const value of [stored.utm_source, stored.utm_medium, stored.utm_campaign, stored.utm_content, stored.utm_term]) {
            if (value === null) continue;
            expect(value.length).toBeLessThanOrEqual(100);
            expect(wellFormed(value), JSON.stringify(value)).toBe(true);
          }
        },
      ),
      { numRuns: 150 },
    );
  }, 60_000);
});

describe("the collector cleans what a URL can carry instead of refusing the beacon", () => {
  it("removes NUL and unpaired surrogates from the campaign and the referrer, and cuts them without splitting a pair", async () => {
    const utm = {
      source: `${"a".repeat(499)}\ud83d`,
      campaign: "spring\u0000sale",
      medium: "\udc00email",
      content: `x${"😀".repeat(300)}`,
      term: "a\u0085b",
    };
    const answer = await beacon([
      { type: "pageview", path: "/landing", referrer: `https://shop.test/${"r".repeat(5000)}\u0000`, utm },
    ]);
    expect(answer).toEqual({ status: 202, body: { accepted: 1 } });
    expect(await lastPageview()).toEqual({
      path: "/landing",
      referrer: null,
      utm_source: "a".repeat(100),
      utm_medium: "email",
      utm_campaign: "springsale",
      // 100 UTF-16 units: x and 49 pairs; the 50th pair would straddle the cut.
      utm_content: `x${"😀".repeat(49)}`,
      utm_term: "ab",
    });
  });

  it("keeps the beginning of a path over the bound", async () => {
    const path = `/${"a".repeat(MAX_PATH_LENGTH - 2)}😀`;
    expect((await beacon([{ type: "pageview", path }])).status).toBe(202);
    expect((await lastPageview()).path).toBe(`/${"a".repeat(MAX_PATH_LENGTH - 2)}`);
  });

  it("still refuses what no URL produces, naming the field, and stores nothing", async () => {
    const before = await collectorCounts(db);
    for (const [event, field] of [
      [{ type: "pageview", path: "/a\u0000b" }, "events.0.path"],
      [{ type: "pageview", path: "/", referrer: 7 }, "events.0.referrer"],
      [{ type: "pageview", path: "/", utm: { source: 7 } }, "events.0.utm.source"],
      [{ type: "event", path: "/", name: "buy\u0000" }, "events.0.name"],
    ] as const) {
      const answer = await beacon([event]);
      expect(answer.status, field).toBe(422);
      expect(answer.body.field).toBe(field);
    }
    expect(await collectorCounts(db)).toEqual(before);
  });
});

describe("props, revenue, hash routes and beacon sizes, as the tracker sends them", () => {
  it("coerces props: numbers and booleans become text, null, undefined and objects are left out, names off the pattern too; values cleaned and cut", () => {
    expect(
      cleanProps({
        plan: "pro",
        seats: 3,
        trial: false,
        ratio: 0.5,
        none: null,
        gone: undefined,
        nested: { a: 1 },
        list: ["x"],
        "bad name": "x",
        "": "x",
        "a\u0000b": "x",
        long: `${"v".repeat(199)}😀`,
        dirty: "a\u0000b\ud800c",
        empty: "",
      }),
    ).toEqual({ plan: "pro", seats: "3", trial: "false", ratio: "0.5", long: "v".repeat(199), dirty: "abc" });
    expect(cleanProps({ [`n${"a".repeat(63)}`]: "x", [`n${"a".repeat(64)}`]: "y" })).toEqual({ [`n${"a".repeat(63)}`]: "x" });
    // At most MAX_PROPS go: the first ones.
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`p${i}`, `v${i}`]));
    expect(Object.keys(cleanProps(many)!)).toEqual(Array.from({ length: MAX_PROPS }, (_, i) => `p${i}`));
    for (const nothing of [null, undefined, "plan", 7, true, {}, { a: null }]) expect(cleanProps(nothing)).toBeUndefined();
  });

  it("puts props on custom events and pageviews, and revenue only with a finite amount and a 3-letter code", () => {
    expect(customEvent("/buy", "purchase", 12, { plan: "pro" }, { amount: 12.5, currency: "EUR" })).toEqual({
      type: "event",
      path: "/buy",
      name: "purchase",
      value: 12,
      props: { plan: "pro" },
      revenue: { amount: 12.5, currency: "EUR" },
    });
    for (const revenue of [
      { amount: NaN, currency: "EUR" },
      { amount: Infinity, currency: "EUR" },
      { amount: "12", currency: "EUR" },
      { amount: 1, currency: "EURO" },
      { amount: 1, currency: "eur" },
      { amount: 1 },
      null,
      5,
    ]) {
      expect(customEvent("/buy", "purchase", undefined, undefined, revenue), JSON.stringify(revenue)).toEqual({
        type: "event",
        path: "/buy",
        name: "purchase",
      });
    }
    expect(JSON.parse(JSON.stringify(pageviewEvent("/p", "", "", { plan: "pro" })))).toEqual({
      type: "pageview",
      path: "/p",
      props: { plan: "pro" },
    });
    expect(JSON.stringify(pageviewEvent("/p"))).toBe('{"type":"pageview","path":"/p"}');
  });

  it("joins a hash route to the path as segments, without its query: /app/#/settings?x=1 is /app/settings", () => {
    expect(pagePath("/app/", "#/settings?x=1")).toBe("/app/settings");
    expect(pagePath("/app", "#/settings/team")).toBe("/app/settings/team");
    expect(pagePath("/", "#!/inbox#msg")).toBe("/!/inbox");
    expect(pagePath("/app/", "#settings")).toBe("/app/settings");
    expect(pagePath("/app/", "#/")).toBe("/app/");
    expect(pagePath("/app/", "")).toBe("/app/");
    expect(pagePath("/app/", false)).toBe("/app/");
    expect(pagePath(`/${"a".repeat(1020)}`, "#/bcdefgh")).toHaveLength(MAX_PATH_LENGTH);
  });

  it("splits a burst of events with 30 long props each into beacons the collector takes: none over its size or count", async () => {
    const props = Object.fromEntries(Array.from({ length: MAX_PROPS }, (_, i) => [`prop_${i}`, `${i}`.padEnd(200, "x")]));
    const events = Array.from({ length: 5 }, (_, i) => customEvent("/checkout", `step ${i}`, undefined, props)!);
    expect(new Blob([JSON.stringify(events[0])]).size).toBeGreaterThan(6_000);
    const session = newSession();
    const bodies = beaconBodies(
      shop.id,
      session,
      events.map((e) => structuredClone(e)),
    );
    // Two events fit in 16 KB, so three beacons; every event in order, each with all of its props.
    expect(bodies).toHaveLength(3);
    const sent = bodies.map((body) => JSON.parse(body) as { site: string; session: string; events: Outgoing[] });
    expect(sent.flatMap((body) => body.events)).toEqual(events);
    for (const body of bodies) expect(new Blob([body]).size).toBeLessThanOrEqual(BEACON_BODY_LIMIT);
    expect(sent.every((body) => body.site === shop.id && body.session === session)).toBe(true);
    // The collector takes each size (its answer about the props themselves is its own); the five
    // in one body, as the tracker used to send them, it refuses for size.
    const post = (body: string) =>
      fetch(`${stack.url}/e`, {
        method: "POST",
        headers: { "content-type": "text/plain;charset=UTF-8", origin: "https://shop.test", "user-agent": BROWSER_UA },
        body,
      });
    for (const body of bodies) expect((await post(body)).status).not.toBe(413);
    expect((await post(JSON.stringify({ site: shop.id, session, events }))).status).toBe(413);
  });

  it("sends an event too big alone (30 props of 200 three-byte characters) without its props, and still by count", () => {
    const props = Object.fromEntries(Array.from({ length: MAX_PROPS }, (_, i) => [`prop_${i}`, "語".repeat(200)]));
    const big = customEvent("/", "big", undefined, props)!;
    const [body, ...rest] = beaconBodies("site_x", "s".repeat(22), [big, customEvent("/", "small", undefined, { a: "b" })!]);
    expect(rest).toEqual([]);
    expect(new Blob([body!]).size).toBeLessThanOrEqual(BEACON_BODY_LIMIT);
    expect(JSON.parse(body!).events).toEqual([
      { type: "event", path: "/", name: "big" },
      { type: "event", path: "/", name: "small", props: { a: "b" } },
    ]);
    const small = Array.from({ length: BEACON_MAX_EVENTS * 2 + 1 }, () => pageviewEvent("/"));
    expect(beaconBodies("site_x", "s".repeat(22), small).map((b) => JSON.parse(b).events.length)).toEqual([30, 30, 1]);
  });
});
