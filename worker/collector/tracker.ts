/**
 * `GET /t.js`: the tracker the snippet loads; `GET /t.js?vitals`, the Core Web Vitals part it
 * loads lazily, and `GET /t.js?track`, the outbound-link and download part it loads when the
 * snippet's `data-track` asks. All are built by tracker/build.ts into tracker.generated.ts. The
 * snippet's URL never changes, so caches revalidate hourly with the ETag (a 304 is a few bytes).
 */
import {
  TRACKER_CORE,
  TRACKER_CORE_ETAG,
  TRACKER_TRACK,
  TRACKER_TRACK_ETAG,
  TRACKER_VITALS,
  TRACKER_VITALS_ETAG,
} from "./tracker.generated";

export function serveTracker(request: Request): Response {
  const query = new URL(request.url).searchParams;
  const [body, etag] = query.has("vitals")
    ? [TRACKER_VITALS, TRACKER_VITALS_ETAG]
    : query.has("track")
      ? [TRACKER_TRACK, TRACKER_TRACK_ETAG]
      : [TRACKER_CORE, TRACKER_CORE_ETAG];
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
