/**
 * The tracker never sends what the collector refuses: hostile landing URLs, referrers, event
 * names and measurements go through the tracker's own payload code (tracker/src/payload.ts, the
 * functions its core calls) and into the real collector on the real stack, and every beacon
 * must be stored whole. Also the collector's own cleaning, for clients other than the tracker:
 * the text a URL can carry is cleaned and cut, never a reason to refuse the beacon.
 */
import type { Client } from "@libsql/client";
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { customEvent, engagementEvent, pagePath, pageviewEvent, vitalEvent, type Outgoing } from "../../tracker/src/payload";
import { MAX_PATH_LENGTH, MAX_SENT_UTM_LENGTH } from "../../worker/lib/beacon-limits";
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
