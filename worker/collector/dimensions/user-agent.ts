/**
 * Coarse device dimensions of a beacon request — browser and OS family with a major version,
 * and the kind of device — from its User-Agent and User-Agent Client Hints. Nothing else of
 * either is returned: not the string, not a model, not a full version.
 *
 * The User-Agent is read by ua-parser-js 1.x (MIT). The Client Hints (Sec-CH-UA*) are read by
 * hand below: ua-parser-js 2.x, which parses them too, is AGPL, and Wren stays on the MIT 1.x
 * line. They take precedence where present: they are structured, they name the real brand
 * (Edge, Opera, Brave on a Chrome-looking UA), and the platform version they carry is the
 * real one where the User-Agent is frozen (Windows 11 says "Windows NT 10.0", macOS says
 * 10.15.7, Chrome on Android says "Android 10; K").
 */
import UAParser from "ua-parser-js";
import { clean, MAX_DIMENSION_LENGTH, macOS, major, withMajor } from "../../lib/ua-names";

export type Device = "desktop" | "mobile" | "tablet";

export interface DeviceDimensions {
  browser: string | null;
  os: string | null;
  device: Device | null;
}

/** The longest value returned (lib/ua-names.ts). */
export { MAX_DIMENSION_LENGTH };
/** How much of a User-Agent is parsed (ua-parser-js itself stops at 500 characters). */
const MAX_USER_AGENT = 512;
/** A Client Hint longer than this is not a browser's: it is ignored. */
const MAX_HINT = 512;
/** Brands read from a Sec-CH-UA list (browsers send three or four). */
const MAX_BRANDS = 16;

const none = (): DeviceDimensions => ({ browser: null, os: null, device: null });

// ---------------------------------------------------------------------------------------
// User-Agent (ua-parser-js 1.x)

/** ua-parser-js names that Wren reports under the browser's own name. */
const BROWSER_NAMES: Record<string, string> = {
  "Mobile Safari": "Safari",
  "Mobile Firefox": "Firefox",
  "Mobile Chrome": "Chrome",
  "Samsung Browser": "Samsung Internet",
  "Opera Mobi": "Opera",
  "Opera Touch": "Opera",
};

/** Linux distributions ua-parser-js tells apart: all reported as "Linux". */
const LINUX_DISTRIBUTIONS = new Set(
  [
    "linux",
    "ubuntu",
    "kubuntu",
    "xubuntu",
    "lubuntu",
    "debian",
    "suse",
    "opensuse",
    "gentoo",
    "arch",
    "slackware",
    "fedora",
    "mandriva",
    "centos",
    "pclinuxos",
    "red hat",
    "redhat",
    "zenwalk",
    "linpus",
    "raspbian",
    "deepin",
    "manjaro",
    "elementary os",
    "sabayon",
    "linspire",
    "mint",
    "mageia",
    "vectorlinux",
  ].map((name) => name.toLowerCase()),
);

/** Chrome's reduced User-Agent on Android: the version and model are frozen, not real. */
const FROZEN_ANDROID = /\bAndroid 10; K\)/;

function userAgentOs(name: string | undefined, version: string | undefined, userAgent: string): string | null {
  if (!name) return null;
  const lower = name.toLowerCase();
  if (lower === "mac os" || lower === "macos" || lower === "mac os x") return macOS(version);
  if (lower === "chromium os" || lower === "chrome os") return "Chrome OS";
  if (LINUX_DISTRIBUTIONS.has(lower)) return "Linux";
  if (lower === "windows") {
    // "10", "8.1", "7", "XP", "Vista", as ua-parser-js reads the NT version (11 says 10).
    const windows = version && /^[A-Za-z0-9.]{1,8}$/.test(version) ? version : null;
    return clean(windows ? `Windows ${windows}` : "Windows");
  }
  if (lower === "android" && FROZEN_ANDROID.test(userAgent)) return "Android";
  return withMajor(name, version);
}

function userAgentDevice(type: string | undefined, os: string | null, userAgent: string): Device {
  if (type === "mobile" || type === "wearable") return "mobile";
  if (type === "tablet") return "tablet";
  // An Android browser whose device ua-parser-js cannot place: phones say "Mobile", tablets
  // do not (the convention Chrome and Firefox follow).
  if (!type && os?.startsWith("Android")) return /\bMobile\b/.test(userAgent) ? "mobile" : "tablet";
  return "desktop";
}

function fromUserAgent(userAgent: string): DeviceDimensions {
  const { browser, os, device } = new UAParser(userAgent).getResult();
  const browserName = browser.name ? (BROWSER_NAMES[browser.name] ?? browser.name) : null;
  const osName = userAgentOs(os.name, os.version, userAgent);
  return {
    browser: browserName ? withMajor(browserName, browser.version) : null,
    os: osName,
    device: userAgentDevice(device.type, osName, userAgent),
  };
}

// ---------------------------------------------------------------------------------------
// Client Hints (by hand: see the top of the file)

interface Brand {
  brand: string;
  version: string | null;
}

/**
 * An sf-string (RFC 8941 §3.3.3) at `at` in `text`: its value and where it ends, or null when
 * there is none or it is malformed (only printable ASCII; `\"` and `\\` escapes).
 */
function sfString(text: string, at: number): { value: string; end: number } | null {
  if (text[at] !== '"') return null;
  let value = "";
  for (let i = at + 1; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') return { value, end: i + 1 };
    if (char === "\\") {
      const next = text[++i];
      if (next !== '"' && next !== "\\") return null;
      value += next;
    } else if (char < " " || char > "~") return null;
    else value += char;
  }
  return null;
}

/**
 * The brands of a Sec-CH-UA or Sec-CH-UA-Full-Version-List value, an RFC 8941 list of strings
 * with a `v` parameter: `"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"`.
 * Members that are not a string are skipped; a list that does not parse gives no brands.
 */
function brandList(text: string): Brand[] {
  const brands: Brand[] = [];
  const skipSpace = (i: number) => {
    while (text[i] === " " || text[i] === "\t") i++;
    return i;
  };
  let i = skipSpace(0);
  while (i < text.length && brands.length < MAX_BRANDS) {
    const brand = sfString(text, i);
    let version: string | null = null;
    if (brand) i = brand.end;
    else while (i < text.length && text[i] !== ";" && text[i] !== ",") i++;
    // Parameters: ;key or ;key=value (a string, or a token, number or boolean).
    while (text[i] === ";") {
      i = skipSpace(i + 1);
      const key = /^[a-z*][a-z0-9_.*-]*/.exec(text.slice(i, i + 64))?.[0];
      if (!key) return [];
      i += key.length;
      if (text[i] !== "=") continue;
      const quoted = sfString(text, i + 1);
      let value: string;
      if (quoted) {
        value = quoted.value;
        i = quoted.end;
      } else {
        const bare = /^[^;,\s]*/.exec(text.slice(i + 1, i + 65))![0];
        value = bare;
        i += 1 + bare.length;
      }
      if (key === "v") version = value;
    }
    if (brand) brands.push({ brand: brand.value, version });
    i = skipSpace(i);
    if (i >= text.length) break;
    if (text[i] !== ",") return [];
    i = skipSpace(i + 1);
  }
  return brands;
}

/**
 * GREASE brands: made-up names Chromium adds to the list so that servers do not depend on its
 * shape ("Not A(Brand", "Not_A Brand", " Not;A Brand", "Not)A;Brand", …).
 */
const GREASE = /^\s*Not[^A-Za-z0-9]*A[^A-Za-z0-9]*Brand\s*$/i;

/** Brand names reported under Wren's name for the browser. */
const BRAND_NAMES: Record<string, string> = {
  "Google Chrome": "Chrome",
  "Microsoft Edge": "Edge",
  Opera: "Opera",
  "Opera GX": "Opera GX",
  Brave: "Brave",
  Vivaldi: "Vivaldi",
  "Samsung Internet": "Samsung Internet",
  YaBrowser: "Yandex",
  "Yandex Browser": "Yandex",
  "Android WebView": "Chrome WebView",
  HeadlessChrome: "Chrome Headless",
  DuckDuckGo: "DuckDuckGo",
  Chromium: "Chromium",
};

/**
 * The browser a brand list names: a specific brand (Chrome, Edge, Opera, Brave, …) before the
 * engine ("Chromium"), which is reported only when it is all there is. GREASE is ignored.
 */
function hintedBrowser(brands: Brand[], fullVersions: Brand[]): string | null {
  const real = brands.filter(({ brand }) => !GREASE.test(brand) && clean(brand) !== null);
  const chosen =
    real.find(({ brand }) => brand !== "Chromium" && brand in BRAND_NAMES) ??
    real.find(({ brand }) => brand !== "Chromium") ??
    real.find(({ brand }) => brand === "Chromium");
  if (!chosen) return null;
  const version = fullVersions.find(({ brand }) => brand === chosen.brand)?.version ?? chosen.version;
  return withMajor(BRAND_NAMES[chosen.brand] ?? chosen.brand, version);
}

/** A header that holds one sf-string (Sec-CH-UA-Platform: `"Windows"`), or null. */
function hintString(value: string | null): string | null {
  if (value === null) return null;
  const text = value.trim();
  const parsed = sfString(text, 0);
  if (parsed) return parsed.end === text.length ? parsed.value : null;
  // Unquoted, as a hand-written client might send it: a plain token only.
  return /^[A-Za-z0-9 ._-]{1,32}$/.test(text) ? text : null;
}

/**
 * The OS from Sec-CH-UA-Platform and, when the site asked for it, Sec-CH-UA-Platform-Version;
 * `fromUa` (what the User-Agent says) fills in a version the hints do not give.
 */
function hintedOs(platform: string | null, platformVersion: string | null, fromUa: string | null): string | null {
  if (platform === null) return fromUa;
  const sameFamily = (family: string) => (fromUa?.startsWith(family) ? fromUa : family);
  const version = major(platformVersion);
  switch (platform.trim().toLowerCase()) {
    case "windows":
      // Microsoft's mapping: 13 and later are Windows 11; 1 to 10 are Windows 10's releases;
      // 0 is 7, 8 or 8.1, which only the User-Agent tells apart.
      if (version !== null && version >= 13) return "Windows 11";
      if (version !== null && version >= 1) return "Windows 10";
      return sameFamily("Windows");
    case "macos":
      return platformVersion !== null && version !== null ? macOSFromHint(platformVersion) : sameFamily("macOS");
    case "android":
      return version !== null && version > 0 ? `Android ${version}` : sameFamily("Android");
    case "ios":
      return version !== null && version > 0 ? `iOS ${version}` : sameFamily("iOS");
    case "chrome os":
    case "chromium os":
      return "Chrome OS";
    case "linux":
      return "Linux";
    case "":
    case "unknown":
      return fromUa;
    default:
      return clean(platform) ?? fromUa;
  }
}

/** The real macOS version a hint gives ("14.6.1" → "macOS 14", "10.15.7" → "macOS 10.15"). */
function macOSFromHint(version: string): string {
  const [first, second] = version.split(".").map((part) => major(part));
  if (first === 10 && second !== null && second !== undefined) return `macOS 10.${second}`;
  return first !== null && first !== undefined && first >= 11 ? `macOS ${first}` : "macOS";
}

/** A header that holds one sf-boolean (Sec-CH-UA-Mobile: `?1`), or null. */
function hintBoolean(value: string | null): boolean | null {
  const text = value?.trim();
  return text === "?1" ? true : text === "?0" ? false : null;
}

/** A header's value, or null when it is absent, empty or longer than `limit`. */
function header(headers: Headers, name: string, limit: number): string | null {
  const value = headers.get(name);
  return value === null || value.length === 0 || value.length > limit ? null : value;
}

// ---------------------------------------------------------------------------------------

/**
 * Browser ("Chrome 131"), OS ("Windows 11", "macOS", "iOS 18", "Android 15", "Linux",
 * "Chrome OS") and device ("desktop" | "mobile" | "tablet") of the request's sender; null
 * for what cannot be told. Device is null only when there is neither a User-Agent nor
 * Sec-CH-UA-Mobile. Never throws.
 */
export function deviceDimensions(headers: Headers): DeviceDimensions {
  // A site's visitors share a few hundred User-Agents: parsing one costs more than the rest of
  // a beacon, so each isolate keeps what it derived (only the derived values, never the header).
  let values: string[];
  try {
    values = CACHE_KEY_HEADERS.map((name) => headers.get(name) ?? "");
  } catch {
    return none();
  }
  // Oversized headers (never a real browser's) are parsed every time, and kept out of the cache.
  if (values.some((v) => v.length > MAX_USER_AGENT)) return derive(headers);
  const key = values.join("\n");
  const cached = derived.get(key);
  if (cached) return cached;
  const result = Object.freeze(derive(headers));
  if (derived.size >= MAX_CACHED) derived.clear();
  derived.set(key, result);
  return result;
}

const CACHE_KEY_HEADERS = [
  "user-agent",
  "sec-ch-ua",
  "sec-ch-ua-full-version-list",
  "sec-ch-ua-platform",
  "sec-ch-ua-platform-version",
  "sec-ch-ua-mobile",
];
const MAX_CACHED = 2_000;
const derived = new Map<string, DeviceDimensions>();

function derive(headers: Headers): DeviceDimensions {
  try {
    const rawUa = headers.get("user-agent")?.trim() ?? "";
    const userAgent = rawUa.slice(0, MAX_USER_AGENT);
    const fromUa = userAgent ? fromUserAgent(userAgent) : none();

    const brands = brandList(header(headers, "sec-ch-ua", MAX_HINT) ?? "");
    const fullVersions = brandList(header(headers, "sec-ch-ua-full-version-list", MAX_HINT) ?? "");
    const platform = hintString(header(headers, "sec-ch-ua-platform", MAX_HINT));
    const platformVersion = hintString(header(headers, "sec-ch-ua-platform-version", MAX_HINT));
    const mobile = hintBoolean(header(headers, "sec-ch-ua-mobile", MAX_HINT));

    const browser = hintedBrowser(brands.length > 0 ? brands : fullVersions, fullVersions) ?? fromUa.browser;
    const os = hintedOs(platform, platformVersion, fromUa.os);
    let device = fromUa.device;
    // "?1" is a phone. "?0" is not: a tablet when the User-Agent says so, otherwise a desktop
    // (Chrome's "desktop site" on a phone sends ?0 with a desktop User-Agent).
    if (mobile === true) device = "mobile";
    else if (mobile === false) device = fromUa.device === "tablet" ? "tablet" : "desktop";
    return { browser: clean(browser), os: clean(os), device };
  } catch {
    return none();
  }
}
