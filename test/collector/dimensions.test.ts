/**
 * The visitor dimensions derived from a beacon request (worker/collector/dimensions): browser,
 * OS and device from the User-Agent and Client Hints; the country from the IP address in the
 * bundled database; where the address comes from; the referrer's source name and UTM values.
 */
import { readFileSync } from "node:fs";
import { Reader } from "mmdb-lib";
import { createRequire } from "node:module";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { clientAddress, parseAddress } from "../../worker/collector/dimensions/client-address";
import { CountryDatabase, countryOf, setCountryDatabase } from "../../worker/collector/dimensions/country";
import { DIRECT, MAX_UTM_LENGTH, sourceOf, utmValue } from "../../worker/lib/sources";
import sources from "../../worker/lib/sources.json" with { type: "json" };
import { deviceDimensions, MAX_DIMENSION_LENGTH, type DeviceDimensions } from "../../worker/collector/dimensions/user-agent";

const dims = (headers: Record<string, string>) => deviceDimensions(new Headers(headers));
const ua = (userAgent: string) => dims({ "user-agent": userAgent });
const expected = (browser: string | null, os: string | null, device: DeviceDimensions["device"]): DeviceDimensions => ({
  browser,
  os,
  device,
});

describe("deviceDimensions: User-Agent", () => {
  // Real User-Agent strings, as the browsers send them.
  const corpus: [string, DeviceDimensions][] = [
    // Windows (Windows 11 sends "Windows NT 10.0" too: only Client Hints tell it apart).
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      expected("Chrome 131", "Windows 10", "desktop"),
    ],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
      expected("Edge 131", "Windows 10", "desktop"),
    ],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
      expected("Firefox 133", "Windows 10", "desktop"),
    ],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36 OPR/114.0.0.0",
      expected("Opera 114", "Windows 10", "desktop"),
    ],
    [
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Vivaldi/7.0.3495.18",
      expected("Vivaldi 7", "Windows 10", "desktop"),
    ],
    [
      "Mozilla/5.0 (Windows NT 6.1; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36",
      expected("Chrome 109", "Windows 7", "desktop"),
    ],
    [
      "Mozilla/5.0 (Windows NT 6.3; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36",
      expected("Chrome 109", "Windows 8.1", "desktop"),
    ],
    // macOS: every browser freezes the version at 10.15(.7), so none is claimed.
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      expected("Chrome 131", "macOS", "desktop"),
    ],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
      expected("Safari 18", "macOS", "desktop"),
    ],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0",
      expected("Firefox 133", "macOS", "desktop"),
    ],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
      expected("Edge 131", "macOS", "desktop"),
    ],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/14.1.2 Safari/605.1.15",
      expected("Safari 14", "macOS 10.14", "desktop"),
    ],
    // iPhone
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
      expected("Safari 18", "iOS 18", "mobile"),
    ],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
      expected("Chrome 131", "iOS 18", "mobile"),
    ],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/133.0 Mobile/15E148 Safari/605.1.15",
      expected("Firefox 133", "iOS 18", "mobile"),
    ],
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 EdgiOS/131.2903.68 Mobile/15E148 Safari/605.1.15",
      expected("Edge 131", "iOS 18", "mobile"),
    ],
    // iPad (one that asks for the mobile site: by default iPadOS sends the Mac's User-Agent)
    [
      "Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.7 Mobile/15E148 Safari/604.1",
      expected("Safari 17", "iOS 17", "tablet"),
    ],
    [
      "Mozilla/5.0 (iPad; CPU OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
      expected("Chrome 131", "iOS 18", "tablet"),
    ],
    // Android phones: Chrome's reduced User-Agent ("Android 10; K") hides the real version.
    [
      "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
      expected("Chrome 131", "Android", "mobile"),
    ],
    [
      "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36",
      expected("Chrome 120", "Android 14", "mobile"),
    ],
    [
      "Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/27.0 Chrome/125.0.0.0 Mobile Safari/537.36",
      expected("Samsung Internet 27", "Android 14", "mobile"),
    ],
    [
      "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/27.0 Chrome/125.0.0.0 Mobile Safari/537.36",
      expected("Samsung Internet 27", "Android", "mobile"),
    ],
    ["Mozilla/5.0 (Android 15; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0", expected("Firefox 133", "Android 15", "mobile")],
    [
      "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36 OPR/86.0.0.0",
      expected("Opera 86", "Android", "mobile"),
    ],
    [
      "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 EdgA/131.0.0.0",
      expected("Edge 131", "Android", "mobile"),
    ],
    [
      "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A.240805.005; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/127.0.6533.103 Mobile Safari/537.36",
      expected("Chrome WebView 127", "Android 14", "mobile"),
    ],
    // Android tablets: no "Mobile" token.
    [
      "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      expected("Chrome 131", "Android", "tablet"),
    ],
    [
      "Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Safari/537.36",
      expected("Samsung Internet 26", "Android 13", "tablet"),
    ],
    ["Mozilla/5.0 (Android 14; Tablet; rv:133.0) Gecko/133.0 Firefox/133.0", expected("Firefox 133", "Android 14", "tablet")],
    // Linux (distributions are Linux too) and ChromeOS
    [
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      expected("Chrome 131", "Linux", "desktop"),
    ],
    ["Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", expected("Firefox 133", "Linux", "desktop")],
    [
      "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
      expected("Firefox 133", "Linux", "desktop"),
    ],
    [
      "Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
      expected("Chrome 131", "Chrome OS", "desktop"),
    ],
    // In-app browser: the app is the browser; its long build number is cut to the major.
    [
      "Mozilla/5.0 (iPhone; CPU iPhone OS 17_6_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/486.0.0.55.70;FBBV/654829010;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.6.1;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/656398617]",
      expected("Facebook 486", "iOS 17", "mobile"),
    ],
    // Not a browser: nothing to name, but there is a User-Agent.
    ["curl/8.5.0", expected(null, null, "desktop")],
  ];

  it("has a corpus of at least 25 real User-Agents", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(25);
  });

  it.each(corpus)("%s", (userAgent, want) => {
    expect(ua(userAgent)).toEqual(want);
  });

  it("has no device without a User-Agent or Client Hints", () => {
    expect(dims({})).toEqual(expected(null, null, null));
    expect(dims({ "user-agent": "   " })).toEqual(expected(null, null, null));
  });
});

describe("deviceDimensions: Client Hints", () => {
  const CHROME_WINDOWS =
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
  const CHROME_MAC =
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
  const CHROME_ANDROID =
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";
  const CHROME_ANDROID_TABLET =
    "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

  it("Chrome on Windows 11: platform version 15.0.0", () => {
    expect(
      dims({
        "user-agent": CHROME_WINDOWS,
        "sec-ch-ua": '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
        "sec-ch-ua-mobile": "?0",
        "sec-ch-ua-platform": '"Windows"',
        "sec-ch-ua-platform-version": '"15.0.0"',
      }),
    ).toEqual(expected("Chrome 131", "Windows 11", "desktop"));
  });

  it("Windows platform versions: 13+ is 11, 1–10 is 10, 0 and none leave the User-Agent's", () => {
    const windows = (version?: string) =>
      dims({
        "user-agent": CHROME_WINDOWS,
        "sec-ch-ua-platform": '"Windows"',
        ...(version === undefined ? {} : { "sec-ch-ua-platform-version": `"${version}"` }),
      }).os;
    expect(windows("13.0.0")).toBe("Windows 11");
    expect(windows("19.0.0")).toBe("Windows 11");
    expect(windows("10.0.0")).toBe("Windows 10");
    expect(windows("1.0.0")).toBe("Windows 10");
    expect(windows("0.3.0")).toBe("Windows 10");
    expect(windows()).toBe("Windows 10");
  });

  it("Edge: the specific brand, not Chromium, with GREASE ignored; the full version list's major", () => {
    expect(
      dims({
        "user-agent": CHROME_WINDOWS,
        "sec-ch-ua": '"Microsoft Edge";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
        "sec-ch-ua-full-version-list":
          '"Not_A Brand";v="24.0.0.0", "Chromium";v="131.0.6778.86", "Microsoft Edge";v="131.0.2903.70"',
        "sec-ch-ua-platform": '"Windows"',
      }),
    ).toEqual(expected("Edge 131", "Windows 10", "desktop"));
    // GREASE comes in many shapes, anywhere in the list.
    for (const grease of ["Not A(Brand", "Not)A;Brand", " Not;A Brand", "Not/A)Brand", "Not?A_Brand", "Not.A/Brand"]) {
      expect(dims({ "sec-ch-ua": `"${grease.replace(/"/g, '\\"')}";v="99", "Brave";v="131", "Chromium";v="131"` }).browser).toBe(
        "Brave 131",
      );
    }
    expect(dims({ "sec-ch-ua": '"Opera";v="114", "Chromium";v="128", "Not;A=Brand";v="24"' }).browser).toBe("Opera 114");
    // Chromium shuffles the list: the specific brand wins wherever it stands.
    expect(dims({ "sec-ch-ua": '"Chromium";v="131", "Not(A:Brand";v="24", "Google Chrome";v="131"' }).browser).toBe("Chrome 131");
    expect(dims({ "sec-ch-ua": '"Chromium";v="126", "Not.A/Brand";v="24", "Whale";v="3"' }).browser).toBe("Whale 3");
    expect(dims({ "sec-ch-ua": '"Chromium";v="131", "Not_A Brand";v="24"' }).browser).toBe("Chromium 131");
    expect(dims({ "sec-ch-ua": '"Not_A Brand";v="24"', "user-agent": CHROME_WINDOWS }).browser).toBe("Chrome 131");
    // A hint names the brand even where the User-Agent looks like plain Chrome.
    expect(dims({ "user-agent": CHROME_MAC, "sec-ch-ua": '"Brave";v="131", "Chromium";v="131"' }).browser).toBe("Brave 131");
  });

  it("Sec-CH-UA-Mobile ?1 is a phone; ?0 leaves a tablet a tablet and is otherwise a desktop", () => {
    expect(
      dims({
        "user-agent": CHROME_ANDROID,
        "sec-ch-ua": '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
        "sec-ch-ua-mobile": "?1",
        "sec-ch-ua-platform": '"Android"',
      }),
    ).toEqual(expected("Chrome 131", "Android", "mobile"));
    expect(
      dims({ "user-agent": CHROME_ANDROID_TABLET, "sec-ch-ua-mobile": "?0", "sec-ch-ua-platform": '"Android"' }).device,
    ).toBe("tablet");
    expect(dims({ "user-agent": CHROME_ANDROID, "sec-ch-ua-mobile": "?0" }).device).toBe("desktop");
    expect(dims({ "user-agent": CHROME_WINDOWS, "sec-ch-ua-mobile": "?1" }).device).toBe("mobile");
    // Hints without a User-Agent still place the device.
    expect(dims({ "sec-ch-ua-mobile": "?1" })).toEqual(expected(null, null, "mobile"));
  });

  it("the real Android version from the platform version hint", () => {
    expect(
      dims({
        "user-agent": CHROME_ANDROID,
        "sec-ch-ua-mobile": "?1",
        "sec-ch-ua-platform": '"Android"',
        "sec-ch-ua-platform-version": '"15.0.0"',
      }).os,
    ).toBe("Android 15");
  });

  it("macOS 14 from the platform version hint; without it, just macOS", () => {
    const mac = {
      "user-agent": CHROME_MAC,
      "sec-ch-ua": '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
      "sec-ch-ua-mobile": "?0",
      "sec-ch-ua-platform": '"macOS"',
    };
    expect(dims({ ...mac, "sec-ch-ua-platform-version": '"14.6.1"' })).toEqual(expected("Chrome 131", "macOS 14", "desktop"));
    expect(dims({ ...mac, "sec-ch-ua-platform-version": '"15.1.0"' }).os).toBe("macOS 15");
    expect(dims({ ...mac, "sec-ch-ua-platform-version": '"10.15.7"' }).os).toBe("macOS 10.15");
    expect(dims(mac).os).toBe("macOS");
  });

  it("other platforms", () => {
    expect(dims({ "user-agent": CHROME_WINDOWS, "sec-ch-ua-platform": '"Linux"' }).os).toBe("Linux");
    expect(dims({ "user-agent": CHROME_WINDOWS, "sec-ch-ua-platform": '"Chrome OS"' }).os).toBe("Chrome OS");
    expect(dims({ "user-agent": CHROME_WINDOWS, "sec-ch-ua-platform": '"Chromium OS"' }).os).toBe("Chrome OS");
    expect(dims({ "user-agent": CHROME_WINDOWS, "sec-ch-ua-platform": '"Unknown"' }).os).toBe("Windows 10");
    expect(dims({ "user-agent": CHROME_WINDOWS, "sec-ch-ua-platform": '""' }).os).toBe("Windows 10");
  });

  it("malformed hints are ignored, and the User-Agent is used", () => {
    const fromUa = expected("Chrome 131", "Windows 10", "desktop");
    for (const bad of [
      '"Google Chrome;v="131"',
      '"Microsoft Edge";v="131" "Chromium";v="131"',
      "Google Chrome;v=131",
      '"Edge"; =1',
      ",,,",
      '"\u00e9dge";v="131"',
      `"Brave";v="131", ${'"X";v="1", '.repeat(100)}"Y";v="2"`,
    ]) {
      expect(
        dims({ "user-agent": CHROME_WINDOWS, "sec-ch-ua": bad, "sec-ch-ua-platform": "Windows NT;;;", "sec-ch-ua-mobile": "1" }),
      ).toEqual(fromUa);
    }
  });
});

describe("deviceDimensions: hostile input", () => {
  const VALUE = /^[A-Za-z0-9 ._()-]{1,50}$/;
  const sane = (result: DeviceDimensions) => {
    for (const value of [result.browser, result.os]) if (value !== null) expect(value).toMatch(VALUE);
    expect([null, "desktop", "mobile", "tablet"]).toContain(result.device);
  };

  it("a 10 KB User-Agent", () => {
    const huge = `Mozilla/5.0 (Windows NT 10.0; Win64; x64) ${"A".repeat(10_000)} Chrome/131.0.0.0`;
    const result = ua(huge);
    sane(result);
    expect(result.device).toBe("desktop");
    const allHints = dims({
      "user-agent": huge,
      "sec-ch-ua": `"${"B".repeat(10_000)}";v="1"`,
      "sec-ch-ua-full-version-list": `"${"C".repeat(10_000)}";v="1"`,
      "sec-ch-ua-platform": `"${"D".repeat(10_000)}"`,
      "sec-ch-ua-platform-version": `"${"9".repeat(10_000)}"`,
      "sec-ch-ua-mobile": "?1".repeat(5_000),
    });
    sane(allHints);
  });

  it("garbage, unicode and control characters", () => {
    // What workerd may hand over, without the checks Node's Headers makes on the way in.
    const raw = (userAgent: string) =>
      deviceDimensions({ get: (name: string) => (name === "user-agent" ? userAgent : null) } as Headers);
    for (const garbage of [
      "\u0000\u0001\u0002",
      "))))((((;;;;////",
      "Mozilla/5.0 (\u00ff\u00fe; \u00e9\u00e8) Chrome/\u00bd",
      "Mozilla/5.0 (Windows NT 10.0) Chrome/9999999999999999999999.1",
      "Chrome/",
      "Firefox/-1",
      "<script>alert(1)</script> Chrome/131.0",
      "Mozilla/5.0 (Linux; Android 14; \ud83d\ude00) Chrome/131.0 Mobile Safari/537.36",
      "\t\v\f",
    ]) {
      let result: DeviceDimensions | undefined;
      expect(() => (result = raw(garbage))).not.toThrow();
      sane(result!);
    }
    expect(raw("Mozilla/5.0 (Linux; Android 14; \ud83d\ude00) Chrome/131.0 Mobile Safari/537.36").browser).toBe("Chrome 131");
    // A brand that is nothing but disallowed characters names nothing.
    expect(dims({ "sec-ch-ua": '"<>{}";v="1"' }).browser).toBeNull();
    // Disallowed characters are dropped, and the value is cut to 50.
    expect(dims({ "sec-ch-ua": '"Some/Browser<b>";v="7"' }).browser).toBe("SomeBrowserb 7");
    expect(dims({ "sec-ch-ua": `"${"Long".repeat(40)}";v="7"` }).browser).toBe("Long".repeat(40).slice(0, MAX_DIMENSION_LENGTH));
    expect(dims({ "sec-ch-ua-platform": `"${"Os".repeat(40)}"` }).os).toHaveLength(MAX_DIMENSION_LENGTH);
  });

  it("headers that throw when read give nulls", () => {
    const broken = {
      get: () => {
        throw new Error("boom");
      },
    } as unknown as Headers;
    expect(deviceDimensions(broken)).toEqual(expected(null, null, null));
  });
});

describe("countryOf", () => {
  const require = createRequire(import.meta.url);
  const FILE = require.resolve("@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb");
  // A plain Uint8Array, as workerd's bundle gives it (not a Node Buffer).
  const bytes = () => new Uint8Array(readFileSync(FILE));

  beforeAll(() => setCountryDatabase(bytes));
  afterEach(() => vi.restoreAllMocks());

  it("public addresses: what the bundled database says", () => {
    expect(countryOf("8.8.8.8")).toBe("US"); // Google Public DNS
    expect(countryOf("1.1.1.1")).toBe("AU"); // APNIC's (Cloudflare's resolver): registered in Australia
    expect(countryOf("9.9.9.9")).toBe("US"); // Quad9
    expect(countryOf("88.198.0.1")).toBe("DE"); // Hetzner
    expect(countryOf("5.9.0.1")).toBe("DE"); // Hetzner
    expect(countryOf("133.242.0.1")).toBe("JP"); // Sakura Internet
    expect(countryOf("210.140.92.183")).toBe("JP");
    expect(countryOf("200.147.67.142")).toBe("BR"); // UOL
    expect(countryOf("77.88.55.242")).toBe("RU"); // Yandex
    expect(countryOf("2001:4860:4860::8888")).toBe("US"); // Google Public DNS
    expect(countryOf("2a01:4f8::1")).toBe("DE"); // Hetzner
    expect(countryOf("2001:12ff::1")).toBe("BR"); // NIC.br
  });

  it("strips a port and brackets; IPv4-mapped IPv6 is its IPv4 address", () => {
    expect(countryOf("8.8.8.8:5678")).toBe("US");
    expect(countryOf("[2001:4860:4860::8888]:443")).toBe("US");
    expect(countryOf("[2001:4860:4860::8888]")).toBe("US");
    expect(countryOf(" 88.198.0.1 ")).toBe("DE");
    expect(countryOf("::ffff:88.198.0.1")).toBe("DE");
    expect(countryOf("[::ffff:8.8.8.8]:80")).toBe("US");
  });

  it("non-public addresses: null, without a lookup", () => {
    for (const address of [
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1", // the database places this one in AU: the range check is what keeps it out
      "127.0.0.1",
      "169.254.10.1",
      "100.64.0.1",
      "100.127.255.254",
      "192.0.2.1",
      "198.51.100.7",
      "203.0.113.9",
      "198.18.0.1",
      "224.0.0.251",
      "239.255.255.250",
      "255.255.255.255",
      "0.0.0.0",
      "240.0.0.1",
      "::1",
      "::",
      "fe80::1",
      "fc00::1",
      "fd12:3456:789a::1",
      "ff02::1",
      "2001:db8::1",
      "3fff::1",
      "2002:808:808::1",
      "2001:0:4136:e378::1",
      "64:ff9b::808:808",
      "::10.0.0.1",
      "::ffff:10.0.0.1",
      "::ffff:127.0.0.1",
      "::ffff:192.168.0.1",
      "[::ffff:100.64.1.1]:443",
      "127.0.0.1:8787",
      "[::1]:51458",
    ]) {
      expect(countryOf(address), address).toBeNull();
    }
  });

  it("malformed input: null", () => {
    for (const address of [
      null,
      undefined,
      "",
      "   ",
      "8.8.8",
      "8.8.8.8.8",
      "256.1.1.1",
      "08.8.8.8",
      "8.8.8.8:",
      "8.8.8.8:port",
      "8.8.8.8:123456",
      "134744072", // 8.8.8.8 as one number
      "0x8.8.8.8",
      "[2001:4860:4860::8888",
      "[2001:4860:4860::8888]x",
      "[8.8.8.8]:80",
      "2001:4860:4860::8888:443:1:2:3",
      "fe80::1%eth0",
      "example.com",
      "8.8.8.8, 1.1.1.1",
      "8".repeat(10_000),
      "\u0000",
      "\u00e9.\u00e9.\u00e9.\u00e9",
    ]) {
      expect(countryOf(address as string), String(address).slice(0, 40)).toBeNull();
    }
  });

  it("a public address the database places nowhere: null", () => {
    // Unallocated global unicast space: looked up, no record.
    expect(countryOf("2f00::1")).toBeNull();
    expect(countryOf("2c0f:ffff::1")).toBeNull();
    expect(new CountryDatabase(bytes()).country("8.8.8.8")).toBe("US");
  });

  it("a record that is not a country code: null", () => {
    const database = new CountryDatabase(bytes());
    const get = vi.spyOn(Reader.prototype, "get");
    for (const record of [
      { country_code: "ZZ" },
      { country_code: "EU" },
      { country_code: "AP" },
      { country_code: "us" },
      { country_code: "USA" },
      { country_code: 1 },
      {},
      "US",
      null,
    ]) {
      get.mockReturnValueOnce(record as never);
      expect(database.country("8.8.8.8"), JSON.stringify(record)).toBeNull();
    }
    get.mockImplementationOnce(() => {
      throw new Error("corrupt");
    });
    expect(database.country("8.8.8.8")).toBeNull();
    get.mockReturnValueOnce({ country_code: "XK" } as never);
    expect(database.country("8.8.8.8")).toBe("XK");
  });

  it("no database, or one that does not open: null, never a throw", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      setCountryDatabase(null);
      expect(countryOf("8.8.8.8")).toBeNull();
      setCountryDatabase(() => new Uint8Array([1, 2, 3]));
      expect(countryOf("8.8.8.8")).toBeNull();
      expect(countryOf("8.8.8.8")).toBeNull();
      // The broken database is reported once, not on every lookup.
      expect(error).toHaveBeenCalledTimes(1);
      setCountryDatabase(() => {
        throw new Error("missing");
      });
      expect(countryOf("8.8.8.8")).toBeNull();
      expect(() => new CountryDatabase(new Uint8Array(64))).toThrow();
    } finally {
      setCountryDatabase(bytes);
    }
    expect(countryOf("8.8.8.8")).toBe("US");
  });

  it("builds the reader once", () => {
    let loads = 0;
    setCountryDatabase(() => {
      loads++;
      return bytes();
    });
    for (const address of ["8.8.8.8", "1.1.1.1", "2001:4860:4860::8888", "10.0.0.1"]) countryOf(address);
    expect(loads).toBe(1);
  });
});

describe("clientAddress", () => {
  const request = (headers: Record<string, string>, clientIp?: unknown) => {
    const r = new Request("http://wren.test/e", { method: "POST", headers });
    if (clientIp !== undefined) Object.defineProperty(r, "cf", { value: { clientIp } });
    return r;
  };

  it("without a header name: workerd's cf.clientIp, with or without a port", () => {
    expect(clientAddress(request({}, "203.0.113.7"), undefined)).toBe("203.0.113.7");
    expect(clientAddress(request({}, "203.0.113.7:51234"), undefined)).toBe("203.0.113.7");
    expect(clientAddress(request({}, "[2001:db8::1]:51458"), undefined)).toBe("2001:db8::1");
    expect(clientAddress(request({}, "2001:DB8:0:0::1"), undefined)).toBe("2001:db8::1");
    expect(clientAddress(request({}, "[::ffff:198.51.100.1]:80"), undefined)).toBe("198.51.100.1");
    expect(clientAddress(request({}, "203.0.113.7"), "")).toBe("203.0.113.7");
    expect(clientAddress(request({}, "203.0.113.7"), "  ")).toBe("203.0.113.7");
  });

  it("without a header name, forged headers are ignored", () => {
    const forged = {
      "x-forwarded-for": "8.8.8.8",
      "x-real-ip": "8.8.8.8",
      "cf-connecting-ip": "8.8.8.8",
      forwarded: "for=8.8.8.8",
    };
    expect(clientAddress(request(forged, "203.0.113.7:4000"), undefined)).toBe("203.0.113.7");
    // No cf (not received on a socket): no address, even with the headers.
    expect(clientAddress(request(forged), undefined)).toBeNull();
    expect(clientAddress(request(forged, 12345), undefined)).toBeNull();
    expect(clientAddress(request(forged, "not an address"), undefined)).toBeNull();
  });

  it("with a header name: that header alone, its last entry", () => {
    expect(clientAddress(request({ "x-forwarded-for": "8.8.8.8, 203.0.113.9" }, "127.0.0.1:3000"), "X-Forwarded-For")).toBe(
      "203.0.113.9",
    );
    expect(clientAddress(request({ "x-forwarded-for": "8.8.8.8,203.0.113.9 " }), "x-forwarded-for")).toBe("203.0.113.9");
    expect(clientAddress(request({ "x-real-ip": "198.51.100.4" }), "X-Real-IP")).toBe("198.51.100.4");
    expect(clientAddress(request({ "x-real-ip": "[2001:db8::7]:443" }), "X-Real-IP")).toBe("2001:db8::7");
    // Two header lines: Headers joins them with ", ", and the last line's last entry is taken.
    const twoLines = new Headers();
    twoLines.append("x-forwarded-for", "8.8.8.8");
    twoLines.append("x-forwarded-for", "192.0.2.44");
    expect(clientAddress(new Request("http://wren.test/", { headers: twoLines }), "X-Forwarded-For")).toBe("192.0.2.44");
  });

  it("with a header name, a missing or unusable header: null (cf.clientIp is not used)", () => {
    expect(clientAddress(request({}, "203.0.113.7:4000"), "X-Forwarded-For")).toBeNull();
    expect(clientAddress(request({ "x-forwarded-for": "203.0.113.9, " }, "203.0.113.7"), "X-Forwarded-For")).toBeNull();
    expect(clientAddress(request({ "x-forwarded-for": "203.0.113.9, unknown" }), "X-Forwarded-For")).toBeNull();
    expect(clientAddress(request({ "x-real-ip": "" }), "X-Real-IP")).toBeNull();
    expect(clientAddress(request({ "x-real-ip": "1".repeat(5_000) }), "X-Real-IP")).toBeNull();
    expect(clientAddress(request({}, "203.0.113.7"), "not a header name")).toBeNull();
  });

  it("parseAddress is strict", () => {
    for (const text of ["127.1", "0177.0.0.1", "1.2.3.4:", "1.2.3.4:99999x", "[::1", "::1]", "fe80::1%1", "1.2.3.4/24", ""]) {
      expect(parseAddress(text), text).toBeNull();
    }
    expect(parseAddress("1.2.3.4:65535")?.toString()).toBe("1.2.3.4");
  });
});

describe("sourceOf", () => {
  it.each([
    ["google.com", "Google"],
    ["www.google.com", "Google"],
    ["www.google.co.uk", "Google"],
    ["google.de", "Google"],
    ["www.google.com.br", "Google"],
    ["images.google.fr", "Google"],
    ["com.google.android.googlequicksearchbox", "Google"],
    ["news.google.com", "Google News"],
    ["gemini.google.com", "Gemini"],
    ["bing.com", "Bing"],
    ["www.bing.com", "Bing"],
    ["duckduckgo.com", "DuckDuckGo"],
    ["search.yahoo.com", "Yahoo"],
    ["uk.search.yahoo.com", "Yahoo"],
    ["search.yahoo.co.jp", "Yahoo"],
    ["yandex.ru", "Yandex"],
    ["ya.ru", "Yandex"],
    ["www.baidu.com", "Baidu"],
    ["www.ecosia.org", "Ecosia"],
    ["search.brave.com", "Brave Search"],
    ["www.qwant.com", "Qwant"],
    ["www.startpage.com", "Startpage"],
    ["m.search.naver.com", "Naver"],
    ["search.seznam.cz", "Seznam"],
    ["l.facebook.com", "Facebook"],
    ["m.facebook.com", "Facebook"],
    ["lm.facebook.com", "Facebook"],
    ["www.facebook.com", "Facebook"],
    ["l.instagram.com", "Instagram"],
    ["t.co", "Twitter"],
    ["twitter.com", "Twitter"],
    ["x.com", "Twitter"],
    ["www.linkedin.com", "LinkedIn"],
    ["lnkd.in", "LinkedIn"],
    ["old.reddit.com", "Reddit"],
    ["out.reddit.com", "Reddit"],
    ["m.youtube.com", "YouTube"],
    ["youtu.be", "YouTube"],
    ["www.pinterest.co.uk", "Pinterest"],
    ["pin.it", "Pinterest"],
    ["www.tiktok.com", "TikTok"],
    ["news.ycombinator.com", "Hacker News"],
    ["github.com", "GitHub"],
    ["bsky.app", "Bluesky"],
    ["www.threads.net", "Threads"],
    ["web.whatsapp.com", "WhatsApp"],
    ["t.me", "Telegram"],
    ["discord.com", "Discord"],
    ["app.slack.com", "Slack"],
    ["chatgpt.com", "ChatGPT"],
    ["www.perplexity.ai", "Perplexity"],
    ["en.m.wikipedia.org", "Wikipedia"],
  ])("%s → %s", (host, name) => {
    expect(sourceOf(host)).toBe(name);
  });

  it("an unknown host is itself, without www.", () => {
    expect(sourceOf("blog.example.com")).toBe("blog.example.com");
    expect(sourceOf("www.example.org")).toBe("example.org");
    expect(sourceOf("m.example.org")).toBe("m.example.org");
    expect(sourceOf("Example.COM")).toBe("example.com");
    // Not Google: "google" must be the registrable label.
    expect(sourceOf("google.example.com")).toBe("google.example.com");
    expect(sourceOf("notgoogle.com")).toBe("notgoogle.com");
    expect(sourceOf("mygoogle.co.uk")).toBe("mygoogle.co.uk");
    expect(sourceOf("localhost")).toBe("localhost");
    expect(sourceOf("co")).toBe("co");
  });

  it("no referrer: Direct / None", () => {
    expect(sourceOf(null)).toBe(DIRECT);
    expect(sourceOf("")).toBe("Direct / None");
    expect(sourceOf("  ")).toBe("Direct / None");
  });

  it("keeps the list short, one name per host", () => {
    const hosts = Object.values(sources.hosts).flat();
    expect(hosts.length).toBeGreaterThanOrEqual(50);
    expect(hosts.length).toBeLessThanOrEqual(100);
    expect(new Set(hosts).size).toBe(hosts.length);
    for (const host of hosts) expect(host).toMatch(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/);
  });
});

describe("utmValue", () => {
  it("keeps a trimmed string", () => {
    expect(utmValue("newsletter")).toBe("newsletter");
    expect(utmValue("  spring sale  ")).toBe("spring sale");
    expect(utmValue("Ünïcödé 🚀")).toBe("Ünïcödé 🚀");
  });

  it("removes control characters", () => {
    expect(utmValue("news\u0000let\nter\t")).toBe("newsletter");
    expect(utmValue("a\u007fb\u0085c\u009fd")).toBe("abcd");
    expect(utmValue("\ud800x\udc00")).toBe("x");
  });

  it("cuts at 100 characters, never inside a surrogate pair", () => {
    expect(utmValue("x".repeat(500))).toBe("x".repeat(MAX_UTM_LENGTH));
    expect(utmValue(`${"x".repeat(99)}🚀🚀`)).toBe("x".repeat(99));
    expect(utmValue(`${"x".repeat(98)}🚀🚀`)).toBe(`${"x".repeat(98)}🚀`);
    expect(utmValue(`${"x".repeat(99)} yz`)).toBe("x".repeat(99));
  });

  it("anything else, or nothing left: null", () => {
    for (const raw of [undefined, null, 42, true, {}, ["a"], "", "   ", "\u0000\n\t"]) expect(utmValue(raw)).toBeNull();
  });
});
