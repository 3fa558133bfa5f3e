/**
 * Where a visit came from: the referrer's host as a known source name ("Google", "Hacker
 * News"), from the list in sources.json, and the UTM parameters as bounded text.
 */
import { cut, withoutUnwanted } from "./beacon-limits";
import sources from "./sources.json" with { type: "json" };

/** The source of a visit without a referrer (typed in, a bookmark, an app that sends none). */
export const DIRECT = "Direct / None";

/** The longest UTM value kept (longer ones are cut). */
export const MAX_UTM_LENGTH = 100;

/** The longest host name (RFC 1035); an unknown host is cut to it. */
const MAX_HOST_LENGTH = 253;

const HOSTS = new Map<string, string>(
  Object.entries(sources.hosts).flatMap(([name, hosts]) => hosts.map((host): [string, string] => [host, name])),
);
const BRANDS = new Map<string, string>(Object.entries(sources.brands));

/** <label>.<tld>, <label>.co.<cc>, <label>.com.<cc>: google.de, google.co.uk, google.com.br. */
const BRAND_DOMAIN = /^([a-z0-9-]+)\.(?:[a-z]{2,63}|com?\.[a-z]{2})$/;

function named(domain: string): string | undefined {
  const exact = HOSTS.get(domain);
  if (exact) return exact;
  const brand = BRAND_DOMAIN.exec(domain)?.[1];
  return brand ? BRANDS.get(brand) : undefined;
}

/**
 * The source name for a referrer host (lowercase; null when there is none or it is the site's
 * own): the known name of the host or of a domain above it ("l.facebook.com" → "Facebook",
 * "www.google.co.uk" → "Google", "news.ycombinator.com" → "Hacker News"); otherwise the host
 * itself without a leading "www."; "Direct / None" for no referrer.
 */
export function sourceOf(referrerHost: string | null): string {
  const host = (referrerHost ?? "").trim().toLowerCase().replace(/\.$/, "");
  if (host === "") return DIRECT;
  // The host, then each domain above it, down to two labels (a bare TLD names nobody); so
  // www.google.com, m.facebook.com and l.facebook.com are found under google.com/facebook.com.
  let domain = host;
  for (;;) {
    const name = named(domain);
    if (name) return name;
    const dot = domain.indexOf(".");
    const parent = domain.slice(dot + 1);
    if (dot < 0 || !parent.includes(".")) break;
    domain = parent;
  }
  return host.replace(/^www\./, "").slice(0, MAX_HOST_LENGTH);
}

/**
 * A UTM parameter (utm_source, utm_medium, …) as kept: a string, control characters and unpaired
 * surrogates removed, trimmed, cut to 100 characters (never inside a surrogate pair); null for
 * anything else or nothing left.
 */
export function utmValue(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  return cut(withoutUnwanted(raw).trim(), MAX_UTM_LENGTH).trimEnd() || null;
}
