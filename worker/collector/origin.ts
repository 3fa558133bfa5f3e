/**
 * The origin allowlist: a request is from a site's page when the hostname of its `Origin`
 * (or, when a browser sent none, its `Referer`) is on the site's allowlist. Hostnames are
 * compared as the URL parser normalises them (lower case, IDNA punycode, no trailing dot);
 * scheme and port do not matter, so http://shop.test:8080 belongs to shop.test. A trailing dot
 * (the fully qualified `shop.test.`) names the same host, so it is dropped everywhere an origin
 * is compared or stored; only CORS echoes the origin exactly as the browser declared it.
 */
export interface RequestOrigin {
  /** scheme://host[:port] with the hostname in its canonical form (no trailing dot): what is stored. */
  origin: string;
  /** scheme://host[:port] as the browser declared it (serialised): what CORS must echo. */
  declared: string;
  hostname: string;
  /** Which header it came from. */
  source: "origin" | "referer";
}

/** A URL's hostname as compared and stored: lower case, without the trailing dot of a fully qualified name. */
export function canonicalHostname(hostname: string): string {
  return hostname.replace(/\.$/, "").toLowerCase();
}

function parse(value: string, source: RequestOrigin["source"]): RequestOrigin | null {
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    const hostname = canonicalHostname(url.hostname);
    return { origin: `${url.protocol}//${hostname}${url.port ? `:${url.port}` : ""}`, declared: url.origin, hostname, source };
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
  return { "access-control-allow-origin": origin.declared, vary: "Origin" };
}
