/**
 * `GET /t.js`: the tracker the snippet loads, and `GET /t.js?vitals`, the Core Web Vitals
 * part it loads lazily. Both are built by tracker/build.ts into tracker.generated.ts. The
 * snippet's URL never changes, so caches revalidate hourly with the ETag (a 304 is a few bytes).
 */
import { TRACKER_CORE, TRACKER_CORE_ETAG, TRACKER_VITALS, TRACKER_VITALS_ETAG } from "./tracker.generated";

export function serveTracker(request: Request): Response {
  const vitals = new URL(request.url).searchParams.has("vitals");
  const [body, etag] = vitals ? [TRACKER_VITALS, TRACKER_VITALS_ETAG] : [TRACKER_CORE, TRACKER_CORE_ETAG];
  const headers = {
    "content-type": "text/javascript; charset=utf-8",
    "cache-control": "public, max-age=3600, stale-while-revalidate=86400",
    etag,
    // Loaded by pages on other origins, including ones that isolate themselves (COEP).
    "cross-origin-resource-policy": "cross-origin",
    "x-content-type-options": "nosniff",
  };
  const presented = request.headers.get("if-none-match");
  if (presented && presented.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(request.method === "HEAD" ? null : body, { status: 200, headers });
}
