/**
 * Another tool's names for a value, in Wren's spelling (docs/reports.md "Breakdowns"): source
 * names from lib/sources.ts, "Chrome 131", "macOS 14", "Windows 11", desktop/mobile/tablet,
 * ISO country codes, paths and UTM values cut as the collector cuts them. A value Wren would not
 * hold becomes null: no cell.
 */
import { cleanText, MAX_PATH_LENGTH } from "../../../lib/beacon-limits";
import { DIRECT, sourceOf, utmValue } from "../../../lib/sources";
import { clean, macOS, withMajor } from "../../../lib/ua-names";

export { DIRECT, utmValue };

/** Browser names other tools use for what Wren calls otherwise (lower case → Wren's). */
const BROWSERS: Record<string, string> = {
  "samsung browser": "Samsung Internet",
  samsung: "Samsung Internet",
  "microsoft edge": "Edge",
  "edge-chromium": "Edge",
  "mobile safari": "Safari",
  "chrome mobile": "Chrome",
  "chrome mobile ios": "Chrome",
  "chrome ios": "Chrome",
  crios: "Chrome",
  "firefox mobile": "Firefox",
  "firefox ios": "Firefox",
  fxios: "Firefox",
  "opera mini": "Opera Mini",
  "opera-mini": "Opera Mini",
  ios: "Safari",
  "ios-webview": "Safari",
  "edge-ios": "Edge",
  yandexbrowser: "Yandex",
  "yandex browser": "Yandex",
  chrome: "Chrome",
  firefox: "Firefox",
  safari: "Safari",
  edge: "Edge",
  opera: "Opera",
  ie: "IE",
  "internet explorer": "IE",
  android: "Android Browser",
  facebook: "Facebook",
  instagram: "Instagram",
  silk: "Silk",
  miui: "MIUI Browser",
  kakaotalk: "KakaoTalk",
  brave: "Brave",
  vivaldi: "Vivaldi",
};

/** "Chrome 131" from a family and a version ("131.0.6778"); the family alone without one. */
export function browserName(family: string, version: string | null = null): string | null {
  const name = family.trim();
  if (name === "" || /^\(not set\)$/i.test(name)) return null;
  return withMajor(BROWSERS[name.toLowerCase()] ?? name, version);
}

/** "Windows 11", "macOS 14", "iOS 18", "Android 15", "Linux", "Chrome OS" from a family and a version. */
export function osName(family: string, version: string | null = null): string | null {
  const name = family.trim();
  const lower = name.toLowerCase();
  if (name === "" || lower === "(not set)") return null;
  if (lower === "mac" || lower === "mac os" || lower === "macos" || lower === "mac os x" || lower === "os x")
    return macOS(version);
  if (lower === "gnu/linux" || lower === "linux" || lower === "ubuntu" || lower === "debian" || lower === "fedora")
    return "Linux";
  if (lower === "chrome os" || lower === "chromeos" || lower === "chromium os") return "Chrome OS";
  if (lower === "android os") return withMajor("Android", version);
  if (lower === "windows") {
    // "10", "11", "8.1", "7", "XP": the release is the version, not only its major number.
    const release = version && /^[A-Za-z0-9.]{1,8}$/.test(version.trim()) ? version.trim() : null;
    return clean(release ? `Windows ${release}` : "Windows");
  }
  if (lower === "ios" || lower === "ipados" || lower === "android")
    return withMajor(lower === "android" ? "Android" : "iOS", version);
  return withMajor(name, version);
}

/** A name with its version in one field ("Firefox 68", "Windows 10", "macOS 10.15"): split at the last space. */
export function splitVersion(text: string): { family: string; version: string | null } {
  const match = /^(.*\S)\s+(\d[\d._]*)$/.exec(text.trim());
  return match ? { family: match[1]!, version: match[2]! } : { family: text.trim(), version: null };
}

/** desktop, mobile or tablet (a laptop is a desktop); null for anything else. */
export function deviceName(name: string): "desktop" | "mobile" | "tablet" | null {
  const lower = name.trim().toLowerCase();
  if (lower === "desktop" || lower === "laptop") return "desktop";
  if (lower === "mobile" || lower === "smartphone" || lower === "phone") return "mobile";
  if (lower === "tablet") return "tablet";
  return null;
}

/** An ISO 3166-1 alpha-2 code ("US" from "us" or "US-TX"); null for none or ZZ (unknown). */
export function countryCode(text: string): string | null {
  const code = text.trim().toUpperCase().split("-")[0]!;
  return /^[A-Z]{2}$/.test(code) && code !== "ZZ" && code !== "XX" ? code : null;
}

/** A page path as the collector keeps it: from "/", without query or fragment, cut to 1024 characters. */
export function pagePath(text: string): string | null {
  let path = text.trim();
  if (path === "") return null;
  path = path.replace(/[?#].*$/, "");
  if (!path.startsWith("/")) path = `/${path}`;
  return cleanText(path.replace(/\s/g, "%20"), MAX_PATH_LENGTH) || null;
}

/**
 * The source of a referrer host; the site's own hosts (and none) are "Direct / None".
 * `ownHosts` are lower case, without "www.".
 */
export function sourceOfHost(host: string, ownHosts: ReadonlySet<string>): string {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^www\./, "");
  if (bare === "" || ownHosts.has(bare)) return DIRECT;
  return sourceOf(bare);
}

/** The host of a referrer given as a URL or as host/path ("https://www.google.com/", "google.com/search"). */
export function referrerHost(text: string): string {
  const rest = text.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  return rest.replace(/[/?#:].*$/, "").toLowerCase();
}

/**
 * A source named by another tool ("Google", "Hacker News", "news.ycombinator.com", ""): a host
 * is grouped as the collector groups it, a name is kept (cut to 100), nothing is Direct / None.
 */
export function sourceOfName(name: string, ownHosts: ReadonlySet<string>): string {
  const text = name.trim();
  if (text === "" || /^direct( \/ none)?$/i.test(text) || /^\(none\)$/i.test(text)) return DIRECT;
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(text)) return sourceOfHost(text, ownHosts);
  return utmValue(text) ?? DIRECT;
}
