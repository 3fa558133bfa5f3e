/**
 * The origin allowlist: a request is from a site's page when the hostname of its `Origin`
 * (or, when a browser sent none, its `Referer`) is on the site's allowlist. Hostnames are
 * compared as the URL parser normalises them (lower case, IDNA punycode, no trailing dot);
 * scheme and port do not matter, so http://shop.test:8080 belongs to shop.test.
 */
export interface RequestOrigin {
  /** scheme://host[:port], as the browser declared it. */
  origin: string;
  hostname: string;
  /** Which header it came from. */
  source: "origin" | "referer";
}

function parse(value: string, source: RequestOrigin["source"]): RequestOrigin | null {
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    return { origin: url.origin, hostname: url.hostname.replace(/\.$/, "").toLowerCase(), source };
  } catch {
    return null;
  }
}

/**
 * The declaring origin, or null when there is none or it is opaque ("null"). When `Origin`
 * is present it alone counts: a page cannot make it lie, whereas `Referer` is only a fallback.
 */
export function requestOrigin(headers: Headers): RequestOrigin | null {
  const origin = headers.get("origin");
  if (origin !== null) return parse(origin, "origin");
  const referer = headers.get("referer");
  return referer ? parse(referer, "referer") : null;
}

export function originAllowed(origin: RequestOrigin | null, allowlist: readonly string[]): boolean {
  return origin !== null && allowlist.includes(origin.hostname);
}

/** CORS headers for a response to an allowlisted origin; none for anyone else. */
export function corsHeaders(origin: RequestOrigin | null, allowed: boolean): Record<string, string> {
  if (!origin || !allowed || origin.source !== "origin") return { vary: "Origin" };
  return { "access-control-allow-origin": origin.origin, vary: "Origin" };
}
