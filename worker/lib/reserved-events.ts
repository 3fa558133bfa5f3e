/**
 * The events the tracker sends on its own (its `t.js?track` part and `wren.notFound()`), and
 * the goal kinds that count them: shared by the tracker's build and the collector's goal
 * matcher, so the names cannot drift apart. No imports, so it bundles into the tracker as it is.
 */

/** A click on a link to another origin; props `{url: origin}`. Goal kind `outbound`. */
export const OUTBOUND_EVENT = "Outbound Link: Click";
/** A click on a link to a file with a listed extension; props `{file: path}`. Goal kind `download`. */
export const DOWNLOAD_EVENT = "File Download";
/** `wren.notFound()` on the site's 404 page, on the missing path. Goal kind `not-found`. */
export const NOT_FOUND_EVENT = "404";
/**
 * The prop the collector gives a `404` event: its own path, the missing one, so that a not-found
 * goal's paths are a `prop:path` breakdown like an outbound goal's hosts (the pages of the
 * visits that reached one would list every page they saw).
 */
export const NOT_FOUND_PROP = "path";

/** A download goal's `match`: space-separated extensions without their dot, or `*` for any. */
export const DOWNLOAD_MATCH_PATTERN = /^(\*|[a-z0-9]{1,10}( [a-z0-9]{1,10}){0,49})$/;

/** Whether a download goal's `match` counts the file at `file` (a path, or host/path). */
export function downloadMatches(match: string, file: string | undefined): boolean {
  if (file === undefined) return false;
  if (match === "*") return true;
  const lower = file.toLowerCase();
  return match.split(" ").some((extension) => lower.endsWith(`.${extension}`));
}
