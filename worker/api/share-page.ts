/**
 * The shared dashboard page, `GET /share/{token}` (and any path below it, the dashboard's own
 * routes): the built dashboard's index.html, which sees the /share/ path and runs read-only in
 * share mode. An unknown, revoked or expired token gets one and the same 404 page.
 *
 * Headers: the dashboard's securityHeaders, except that a link made with `embed` may be framed
 * by the site's own origins (its `frame-ancestors` sources, and no X-Frame-Options: DENY);
 * `Referrer-Policy: no-referrer` (as everywhere) keeps the token, which is in the path, out of
 * every Referer; `X-Robots-Tag` keeps the page out of search engines; nothing is cached.
 */
import type { IRequest } from "itty-router";
import { findOpenShare } from "../domain/shares";
import { database } from "../lib/db";
import { securityHeaders } from "./dashboard";
import type { ApiEnv } from "./env";

const NOT_FOUND_PAGE = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><meta name="viewport" content="width=device-width, initial-scale=1" /><link rel="icon" href="data:," /><title>Not found · Wren</title></head>
  <body><h1>This shared dashboard is not available</h1><p>The link is not valid: it may have been revoked or have expired. Ask whoever shared it for a new one.</p></body>
</html>
`;

/** securityHeaders with this page's framing rule: `sources` may frame it, or nobody when null. */
export function sharePageHeaders(frameAncestors: string | null): Headers {
  const headers = new Headers(securityHeaders);
  if (frameAncestors) {
    const csp = headers.get("content-security-policy")!.replace("frame-ancestors 'none'", `frame-ancestors ${frameAncestors}`);
    headers.set("content-security-policy", csp);
    headers.delete("x-frame-options");
  }
  headers.set("cache-control", "no-store");
  headers.set("x-robots-tag", "noindex, nofollow");
  return headers;
}

function notFound(method: string): Response {
  const headers = sharePageHeaders(null);
  headers.set("content-type", "text/html; charset=utf-8");
  return new Response(method === "HEAD" ? null : NOT_FOUND_PAGE, { status: 404, headers });
}

export async function serveSharePage(request: IRequest, env: ApiEnv): Promise<Response> {
  const token = String(request.params?.token ?? "");
  const share = await findOpenShare(database(env), token);
  if (!share || !env.DASHBOARD) return notFound(request.method);
  const page = await env.DASHBOARD.fetch(new Request("http://dashboard/index.html", { method: request.method }));
  if (!page.ok) return notFound(request.method);
  const headers = sharePageHeaders(share.embedOrigin);
  headers.set("content-type", "text/html; charset=utf-8");
  return new Response(page.body, { status: 200, headers });
}
