/** The collector's pure rules: salt schedule, goal matching, origins, crawlers, the window. */
import { describe, expect, it } from "vitest";
import { isCrawler } from "../../worker/collector/crawlers";
import { countsOncePerSession, goalCompleted, pathMatches, type GoalRule } from "../../worker/collector/goals";
import { originAllowed, requestOrigin } from "../../worker/collector/origin";
import { nextChange, planSalts, SALT_PERIOD_MS, type Salt } from "../../worker/collector/salts";
import { outsideWindow, parseTimestamp } from "../../worker/collector/window";

const DAY = SALT_PERIOD_MS;
const salt = (id: string, createdAt: number): Salt => ({ id, secret: id.repeat(64).slice(0, 64), createdAt });

describe("salt schedule", () => {
  const t0 = 1_800_000_000_000;

  it("needs a first salt when there is none", () => {
    expect(planSalts([], t0)).toEqual({ current: null, previous: null, expired: [] });
  });

  it("uses a salt for one period, keeps it one more for lookups, then expires it", () => {
    const a = salt("a", t0);
    expect(planSalts([a], t0 + DAY - 1)).toEqual({ current: a, previous: null, expired: [] });
    // The period is over: a new salt is due, and `a` stays for lookups.
    expect(planSalts([a], t0 + DAY)).toEqual({ current: null, previous: a, expired: [] });
    const b = salt("b", t0 + DAY);
    expect(planSalts([a, b], t0 + DAY + 1)).toEqual({ current: b, previous: a, expired: [] });
    // Two periods after it was made, `a` is gone: no session hashed with it is in the window.
    expect(planSalts([a, b], t0 + 2 * DAY)).toEqual({ current: null, previous: b, expired: [a] });
  });

  it("after downtime, expires what is too old and keeps a salt still inside its lookup period", () => {
    const a = salt("a", t0);
    const b = salt("b", t0 + DAY);
    expect(planSalts([a, b], t0 + 2 * DAY + DAY / 2)).toEqual({ current: null, previous: b, expired: [a] });
    expect(planSalts([a, b], t0 + 5 * DAY)).toEqual({ current: null, previous: null, expired: [b, a] });
  });

  it("never keeps more than the current and previous salts", () => {
    const a = salt("a", t0);
    const b = salt("b", t0 + 1000);
    const c = salt("c", t0 + 2000);
    expect(planSalts([a, b, c], t0 + 3000)).toEqual({ current: c, previous: b, expired: [a] });
  });

  it("wakes when the current period ends or the previous salt expires, whichever is first", () => {
    const a = salt("a", t0);
    const b = salt("b", t0 + DAY + 5000);
    expect(nextChange(a, null)).toBe(t0 + DAY);
    expect(nextChange(b, a)).toBe(t0 + 2 * DAY);
  });
});

describe("goal matching", () => {
  const goal = (kind: GoalRule["kind"], match: string, threshold = 0): GoalRule => ({ id: "g", kind, match, threshold });

  it("matches path patterns exactly, with * as any run of characters", () => {
    expect(pathMatches("/pricing", "/pricing")).toBe(true);
    expect(pathMatches("/pricing", "/pricing/")).toBe(false);
    expect(pathMatches("/pricing*", "/pricing/team")).toBe(true);
    expect(pathMatches("/blog/*/comments", "/blog/2026/11/comments")).toBe(true);
    expect(pathMatches("/blog/*", "/blog")).toBe(false);
    expect(pathMatches("/a.b", "/aXb")).toBe(false);
    expect(pathMatches("/(x)+", "/(x)+")).toBe(true);
  });

  it("completes each kind only on its own kind of event and threshold", () => {
    expect(goalCompleted(goal("page", "/p"), { type: "pageview", path: "/p" })).toBe(true);
    expect(goalCompleted(goal("page", "/p"), { type: "engagement", path: "/p", seconds: 9, scroll: 9 })).toBe(false);
    expect(goalCompleted(goal("event", "signup"), { type: "event", path: "/", name: "signup" })).toBe(true);
    expect(goalCompleted(goal("event", "signup"), { type: "event", path: "/", name: "Signup" })).toBe(false);
    expect(goalCompleted(goal("time", "/a/*", 30), { type: "engagement", path: "/a/1", seconds: 30, scroll: 0 })).toBe(true);
    expect(goalCompleted(goal("time", "/a/*", 30), { type: "engagement", path: "/a/1", seconds: 29, scroll: 100 })).toBe(false);
    expect(goalCompleted(goal("scroll", "/a/*", 50), { type: "engagement", path: "/a/1", seconds: 0, scroll: 50 })).toBe(true);
    expect(goalCompleted(goal("scroll", "/a/*", 50), { type: "engagement", path: "/b/1", seconds: 0, scroll: 100 })).toBe(false);
    expect(goalCompleted(goal("scroll", "/a/*", 50), { type: "vital", path: "/a/1" })).toBe(false);
  });

  it("matches outbound, download and not-found goals to the tracker's own events, each time they are sent", () => {
    const outbound = { type: "event", path: "/a", name: "Outbound Link: Click", props: { url: "https://other.example" } } as const;
    const download = (file: string) => ({ type: "event", path: "/a", name: "File Download", props: { file } }) as const;
    expect(goalCompleted(goal("outbound", "*"), outbound)).toBe(true);
    expect(goalCompleted(goal("outbound", "*"), { type: "event", path: "/a", name: "signup" })).toBe(false);
    expect(goalCompleted(goal("download", "*"), download("/files/report.pdf"))).toBe(true);
    expect(goalCompleted(goal("download", "pdf zip"), download("/files/Report.PDF"))).toBe(true);
    expect(goalCompleted(goal("download", "pdf zip"), download("cdn.example/pack.zip"))).toBe(true);
    expect(goalCompleted(goal("download", "pdf zip"), download("/files/report.csv"))).toBe(false);
    // The props as the collector's reader hands them on: entries.
    const read = { type: "event", path: "/a", name: "File Download", props: { entries: [["file", "/files/report.pdf"]], drops: {} } } as const;
    expect(goalCompleted(goal("download", "pdf"), read)).toBe(true);
    expect(goalCompleted(goal("download", "zip"), read)).toBe(false);
    expect(goalCompleted(goal("download", "pdf"), download("/files/notpdf"))).toBe(false);
    // A File Download whose file was dropped is no download of anything.
    expect(goalCompleted(goal("download", "*"), { type: "event", path: "/a", name: "File Download" })).toBe(false);
    expect(goalCompleted(goal("download", "*"), { ...outbound, props: { file: "/x.pdf" } })).toBe(false);
    expect(goalCompleted(goal("not-found", "/*"), { type: "event", path: "/missing", name: "404" })).toBe(true);
    expect(goalCompleted(goal("not-found", "/docs/*"), { type: "event", path: "/blog/x", name: "404" })).toBe(false);
    expect(goalCompleted(goal("not-found", "/*"), { type: "pageview", path: "/missing" })).toBe(false);
    for (const kind of ["outbound", "download", "not-found"] as const) expect(countsOncePerSession(goal(kind, "*"))).toBe(false);
    expect(countsOncePerSession(goal("page", "/p"))).toBe(true);
  });
});

describe("origins", () => {
  const headers = (init: Record<string, string>) => new Headers(init);

  it("takes Origin when present, else Referer, and normalises the hostname", () => {
    expect(requestOrigin(headers({ origin: "https://Shop.Test:8443" }))).toEqual({
      origin: "https://shop.test:8443",
      declared: "https://shop.test:8443",
      hostname: "shop.test",
      source: "origin",
    });
    // A fully qualified name's trailing dot is dropped from what is compared and stored, kept for CORS.
    expect(requestOrigin(headers({ referer: "http://shop.test./a?b" }))).toEqual({
      origin: "http://shop.test",
      declared: "http://shop.test.",
      hostname: "shop.test",
      source: "referer",
    });
    expect(requestOrigin(headers({ origin: "https://xn--bcher-kva.test" }))?.hostname).toBe("xn--bcher-kva.test");
    expect(requestOrigin(headers({ origin: "null", referer: "https://shop.test/" }))).toBeNull();
    expect(requestOrigin(headers({ origin: "chrome-extension://abc" }))).toBeNull();
    expect(requestOrigin(headers({}))).toBeNull();
  });

  it("allows only hostnames on the list", () => {
    const list = ["shop.test"];
    expect(originAllowed(requestOrigin(headers({ origin: "http://shop.test:3000" })), list)).toBe(true);
    expect(originAllowed(requestOrigin(headers({ origin: "https://www.shop.test" })), list)).toBe(false);
    expect(originAllowed(requestOrigin(headers({ origin: "https://shop.test.evil.test" })), list)).toBe(false);
    expect(originAllowed(null, list)).toBe(false);
  });
});

describe("crawlers", () => {
  it("drops bots, headless browsers, HTTP libraries and empty agents, not browsers", () => {
    expect(isCrawler("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")).toBe(true);
    expect(isCrawler("Mozilla/5.0 (Linux; Android 10) HeadlessChrome/120.0 Safari/537.36")).toBe(true);
    expect(isCrawler("Wget/1.21")).toBe(true);
    expect(isCrawler("node")).toBe(true);
    expect(isCrawler(null)).toBe(true);
    expect(isCrawler("  ")).toBe(true);
    expect(isCrawler("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36")).toBe(false);
    expect(isCrawler("Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1")).toBe(false);
    expect(isCrawler("Mozilla/5.0 (Linux; Android 11; CUBOT X30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36")).toBe(false);
    expect(isCrawler("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0")).toBe(false);
  });
});

describe("the 24-hour window", () => {
  const now = Date.UTC(2026, 10, 21, 12, 0, 0);

  it("parses RFC 3339 strings and epoch milliseconds only", () => {
    expect(parseTimestamp("2026-11-21T11:00:00Z")).toBe(now - 3_600_000);
    expect(parseTimestamp("2026-11-21T13:00:00.250+02:00")).toBe(now - 3_600_000 + 250);
    expect(parseTimestamp(now)).toBe(now);
    expect(parseTimestamp("2026-11-21")).toBeNull();
    expect(parseTimestamp("Sat, 21 Nov 2026 12:00:00 GMT")).toBeNull();
    expect(parseTimestamp(1.5)).toBeNull();
    expect(parseTimestamp(0)).toBeNull();
  });

  it("accepts exactly the last 24 hours, with a minute of clock skew", () => {
    expect(outsideWindow(now - 24 * 3_600_000, now)).toBeNull();
    expect(outsideWindow(now - 24 * 3_600_000 - 1, now)).toMatch(/older/);
    expect(outsideWindow(now + 60_000, now)).toBeNull();
    expect(outsideWindow(now + 60_001, now)).toMatch(/future/);
  });
});
