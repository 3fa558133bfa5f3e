/**
 * Attack 5 of issue 36 (nested dimensions) against the real stack (`wren start`: the collector,
 * the api, the publisher, the embedded libSQL server): real beacons with the User-Agents (and
 * Client Hints) of Windows 11, Linux and macOS desktop browsers and of phones go through the
 * collector, are moved to yesterday (rewindDays) and read as the device and system breakdowns.
 * Every Windows, Linux and macOS session is desktop, so desktop minus its shown systems must not
 * leave the one macOS session: the systems shown inside desktop leave 0 or at least k out.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { postBeacon } from "../collector/helpers";

const CHROME_WINDOWS_11 = {
  "user-agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "sec-ch-ua": '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
  "sec-ch-ua-mobile": "?0",
  "sec-ch-ua-platform": '"Windows"',
  "sec-ch-ua-platform-version": '"15.0.0"',
};
const FIREFOX_LINUX = { "user-agent": "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0" };
const SAFARI_MACOS = {
  "user-agent":
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
};
const SAFARI_IPHONE = {
  "user-agent":
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
};
const CHROME_ANDROID = {
  "user-agent":
    "Mozilla/5.0 (Linux; Android 15; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
};

const K = 5;
let f: ApiFixture;
beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60", WREN_K_ANONYMITY: String(K) });
}, 120_000);
afterAll(async () => {
  await f?.close();
});

describe("attack 5: nested dimensions", () => {
  it("desktop minus the shown Windows and Linux sessions does not give the one macOS session", async () => {
    const domain = "nesting-attack.example";
    const site = (await f.makeSite(domain)).id;
    const beacon = (session: string, headers: Record<string, string>) =>
      postBeacon(
        f.stack.url,
        domain,
        { site, session: `${session}-abcdefghij`, events: [{ type: "pageview", path: "/" }] },
        headers,
      ).then((r) => expect(r.status, session).toBe(202));
    // The day: desktop 15 = Windows 11 8 + Linux 6 + macOS 1; and 12 phones.
    const visitors: [string, number, Record<string, string>][] = [
      ["windows", 8, CHROME_WINDOWS_11],
      ["linux", 6, FIREFOX_LINUX],
      ["mac", 1, SAFARI_MACOS],
      ["iphone", 6, SAFARI_IPHONE],
      ["android", 6, CHROME_ANDROID],
    ];
    for (const [name, n, headers] of visitors) for (let i = 0; i < n; i++) await beacon(`${name}-${i}`, headers);
    await f.rewindDays(1);

    const read = async (dimension: string) => {
      const res = await f.admin("GET", `/api/v1/breakdown?site=${site}&period=day&dimension=${dimension}`);
      expect(res.status, res.text).toBe(200);
      return res.body.rows as { value: string | null; visitors: { value: number | null } }[];
    };
    const cells = await f.database().execute({
      sql: "SELECT dimension, value, visitors FROM rollup_dimension_day WHERE site_id = ? AND dimension IN ('device', 'os')",
      args: [site],
    });
    const truth = new Map(cells.rows.map((r) => [`${r.dimension}:${r.value}`, Number(r.visitors)]));
    // The collector read the systems as the attack needs them.
    expect(Object.fromEntries(truth)).toEqual({
      "device:desktop": 15,
      "device:mobile": 12,
      "os:Windows 11": 8,
      "os:Linux": 6,
      "os:macOS": 1,
      "os:iOS 18": 6,
      "os:Android 15": 6,
    });

    const shown = (rows: Awaited<ReturnType<typeof read>>) =>
      new Set(rows.filter((r) => r.visitors.value !== null).map((r) => r.value));
    const devices = shown(await read("device"));
    const systems = shown(await read("os"));
    // Each shown figure is noisy, but its true cell is what a reader subtracts with: on main
    // desktop (15), Windows 11 (8) and Linux (6) were all shown, leaving the macOS session (1).
    expect(devices.has("desktop")).toBe(true);
    const desktopShown = ["Windows 11", "Linux", "macOS"].filter((s) => systems.has(s));
    const left = 15 - desktopShown.reduce((n, s) => n + truth.get(`os:${s}`)!, 0);
    expect(left === 0 || left >= K, `desktop 15 − ${desktopShown.join(" − ")} = ${left}`).toBe(true);
    expect(systems.has("macOS")).toBe(false);
    // The same cells whichever dimension is read first, and read again.
    expect(shown(await read("os"))).toEqual(systems);
    expect(shown(await read("device"))).toEqual(devices);
  }, 180_000);
});
