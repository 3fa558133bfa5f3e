/**
 * The beacon's limits and its one way of cleaning text, shared by the tracker (tracker/src,
 * whose build inlines this file) and the collector (worker/collector/schemas.ts): the edge and
 * its client agree by construction, so the tracker never sends what the collector refuses.
 * No imports and nothing but plain functions, so it bundles into the tracker as it is.
 *
 * Text a visitor's URL can carry (the path, the referrer, the campaign) is cut and cleaned,
 * never refused: a cut never splits a surrogate pair, and control characters (NUL included)
 * and unpaired surrogates are removed, since the database could not keep them as sent.
 */

/** Events in one beacon; the tracker splits more into several beacons. */
export const BEACON_MAX_EVENTS = 30;
/** A beacon's body in bytes (UTF-8); the tracker splits its events by this size as well as by count. */
export const BEACON_BODY_LIMIT = 16 * 1024;
/** Paths are bounded so that matching them against goal patterns stays cheap (lib/glob.ts). */
export const MAX_PATH_LENGTH = 1024;
/** A URL path as the URL parser serialises it: starts with /, no query, fragment or whitespace. */
export const PATH_PATTERN = /^\/[^\s?#]*$/;
/** The referrer as sent (the collector keeps only its hostname). */
export const MAX_REFERRER_LENGTH = 2048;
/** A campaign parameter as sent (stored trimmed and cut to 100, worker/lib/sources.ts). */
export const MAX_SENT_UTM_LENGTH = 500;
/** Custom event names: matched exactly against event goals, so refused rather than changed. */
export const EVENT_NAME_PATTERN = /^[\p{L}\p{N} _.:/-]{1,100}$/u;
export const MAX_EVENT_NAME_LENGTH = 100;
/** Custom properties on a pageview or event (Plausible's number); the tracker sends no more. */
export const MAX_PROPS = 30;
/** A property name: matched exactly against the site's allowlist, so never changed, only dropped. */
export const PROP_NAME_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;
/** A property value after cleanText; longer values are cut, as paths are. */
export const MAX_PROP_VALUE_LENGTH = 200;
/** Props the tracker's opt-ins send (outbound links: `url`, downloads: `file`): always kept, on no allowlist. */
export const RESERVED_PROPS: readonly string[] = ["url", "file"];
/** An event's or conversion's value, either sign. */
export const MAX_AMOUNT = 1e12;
/** Engagement: seconds visible (a day), scroll depth in percent. */
export const MAX_ENGAGEMENT_SECONDS = 86_400;
export const MAX_SCROLL = 100;
/** Milliseconds for the timings, a unitless score for CLS; an hour bounds both. */
export const MAX_VITAL_VALUE = 3_600_000;

/** Control characters (C0, DEL, C1) and unpaired surrogates (with the u flag a pair is one code point, not \p{Cs}). */
const UNWANTED = /[\p{Cc}\p{Cs}]/gu;

/** `text` cut to at most `max` UTF-16 units, never between the two halves of a surrogate pair. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end);
}

/** `text` without control characters or unpaired surrogates. */
export function withoutUnwanted(text: string): string {
  return text.replace(UNWANTED, "");
}

/** `text` without control characters or unpaired surrogates, then cut to `max`. */
export function cleanText(text: string, max: number): string {
  return cut(withoutUnwanted(text), max);
}

/** `n` within [min, max]; NaN becomes `min`, so a broken measurement never voids a beacon. */
export function bounded(n: number, min: number, max: number): number {
  return n >= min ? (n <= max ? n : max) : min;
}
