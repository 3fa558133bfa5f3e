/**
 * A destination's URL as every answer but the one that made it shows it: scheme, host (and
 * port), and at most the first path segment, then "/…". A webhook URL is often its own secret:
 * Slack's `/services/T…/B…/token`, Discord's `/api/webhooks/id/token`, or a `?token=` a receiver
 * checks. So the rest of the path, the query and the fragment are never shown (userinfo is
 * refused when the destination is made); the first segment only when more follow it, since a
 * path of one segment may be the token itself.
 */

/** Long or odd first segments are hidden too: a token may sit there. */
const SHOWN_SEGMENT = /^[A-Za-z0-9._-]{1,24}$/;

export function maskedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "…";
  }
  const origin = `${parsed.protocol}//${parsed.host}`;
  const segments = parsed.pathname.split("/").filter((s) => s !== "");
  const first = segments[0];
  if (first === undefined) return parsed.search || parsed.hash ? `${origin}/…` : `${origin}/`;
  if (segments.length > 1 && SHOWN_SEGMENT.test(first)) return `${origin}/${first}/…`;
  return `${origin}/…`;
}
