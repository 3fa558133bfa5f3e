/**
 * The tracker's events, built from what the page hands it (its URL, its referrer, the site's
 * own calls, measurements): plain functions that core.ts calls and that
 * test/collector/tracker-payload.test.ts runs in Node against the real collector. Every value
 * goes through the limits the collector shares (worker/lib/beacon-limits.ts): text is cleaned
 * and cut, numbers kept in range, and what the collector would still refuse (an event name it
 * does not take) is not sent, so no beacon is lost for what a URL or a measurement held.
 * Custom properties are coerced as the collector keeps them, and events are split into beacons
 * by size as well as by count, so no body is ever over the collector's limit.
 */
import {
  BEACON_BODY_LIMIT,
  BEACON_MAX_EVENTS,
  EVENT_NAME_PATTERN,
  MAX_AMOUNT,
  MAX_ENGAGEMENT_SECONDS,
  MAX_EVENT_NAME_LENGTH,
  MAX_PATH_LENGTH,
  MAX_PROPS,
  MAX_PROP_VALUE_LENGTH,
  MAX_REFERRER_LENGTH,
  MAX_SCROLL,
  MAX_SENT_UTM_LENGTH,
  MAX_VITAL_VALUE,
  PROP_NAME_PATTERN,
  bounded,
  cleanText,
  cut,
} from "../../worker/lib/beacon-limits";

export type Outgoing = { type: string; path: string; props?: Props; [field: string]: unknown };
export type Props = Record<string, string>;

/**
 * The page's path as sent: `location.pathname`, cleaned and cut. Under hash routing (`data-hash`)
 * the route after `#` joins it as segments, without its own query: `/app/#/settings?x=1` is
 * `/app/settings` (the collector's paths hold no `#`).
 */
export function pagePath(pathname: string, hash?: string | false): string {
  // A serialised URL's fragment holds no whitespace (it is percent-encoded), so no path gets any.
  const route = hash ? hash.slice(1).split(/[?#]/)[0]!.replace(/^\/+/, "") : "";
  return cleanText(route ? pathname.replace(/\/?$/, "/") + route : pathname, MAX_PATH_LENGTH);
}

/**
 * Custom properties as sent: numbers and booleans become strings, anything else that is not a
 * string (null, undefined, objects) is left out, as are names off the pattern and empty values;
 * values are cleaned and cut, and at most MAX_PROPS go. Undefined when none is left.
 */
export function cleanProps(input: unknown): Props | undefined {
  // Only an object's names: a string's indices are no names (for-in over null is nothing).
  if (typeof input !== "object") return undefined;
  const props: Props = {};
  let kept = 0;
  for (const name in input) {
    let value = (input as Record<string, unknown>)[name];
    if (/^[bn]/.test(typeof value)) value = String(value); // boolean, number, bigint
    if (
      typeof value === "string" &&
      PROP_NAME_PATTERN.test(name) &&
      (value = cleanText(value, MAX_PROP_VALUE_LENGTH)) &&
      kept < MAX_PROPS
    ) {
      props[name] = value as string;
      kept++;
    }
  }
  return kept ? props : undefined;
}

/**
 * The beacons' bodies for `events`, in order: each at most BEACON_MAX_EVENTS events and
 * BEACON_BODY_LIMIT bytes of UTF-8, the collector's two bounds. An event too big alone (30 long
 * props of 3-byte characters) goes without its props: the event itself is still counted.
 * `events` is never empty (the core sends nothing then).
 */
export function beaconBodies(site: string, session: string, events: Outgoing[]): string[] {
  const bodies: string[] = [];
  let batch: Outgoing[] = [];
  const body = (list: Outgoing[]) => JSON.stringify({ site, session, events: list });
  const over = (list: Outgoing[]) => list.length > BEACON_MAX_EVENTS || new Blob([body(list)]).size > BEACON_BODY_LIMIT;
  for (const event of events) {
    if (over([event])) delete event.props;
    batch.push(event);
    // Without props an event is far under the limit (~11 KB at most), so what goes is never empty.
    if (over(batch)) {
      batch.pop();
      bodies.push(body(batch));
      batch = [event];
    }
  }
  bodies.push(body(batch));
  return bodies;
}

/**
 * The landing page's campaign from its query string: utm_source (or ref, or source), utm_medium,
 * utm_campaign, utm_content, utm_term. Only these leave the page; the rest of it never does.
 */
export function campaign(search: string): Record<string, string> | undefined {
  const query = new URLSearchParams(search);
  const get = (key: string) => cleanText(query.get(key) || "", MAX_SENT_UTM_LENGTH);
  const utm: Record<string, string> = {};
  let found;
  for (const key of ["source", "medium", "campaign", "content", "term"]) {
    const value = get(`utm_${key}`) || (key === "source" ? get("ref") || get("source") : "");
    if (value) found = utm[key] = value;
  }
  return found ? utm : undefined;
}

/** A pageview; the landing one also carries `document.referrer` and the URL's query string. */
export function pageviewEvent(path: string, referrer?: string, search?: string, props?: Props): Outgoing {
  // `props` as cleanProps left them; undefined ones are left out by JSON.stringify.
  const event: Outgoing = { type: "pageview", path, props };
  const from = cleanText(referrer || "", MAX_REFERRER_LENGTH);
  if (from) event.referrer = from;
  const utm = search ? campaign(search) : undefined;
  if (utm) event.utm = utm;
  return event;
}

/** A custom event from `wren.track`; null for a name the collector would refuse. */
export function customEvent(path: string, name: unknown, value: unknown, props?: unknown, revenue?: unknown): Outgoing | null {
  if (typeof name !== "string") return null;
  const cutName = cut(name, MAX_EVENT_NAME_LENGTH);
  if (!EVENT_NAME_PATTERN.test(cutName)) return null;
  const event: Outgoing = { type: "event", path, name: cutName, props: cleanProps(props) };
  // A value out of range (or not a number) is left out rather than voiding the event.
  if (typeof value === "number" && Math.abs(value) <= MAX_AMOUNT) event.value = value;
  // Revenue goes only with a finite number (Number.isFinite is false for any other type) and an
  // ISO 4217 code as the collector takes it, 3 upper-case letters.
  const r = revenue as { amount: number; currency: string } | undefined;
  if (r && Number.isFinite(r.amount) && /^[A-Z]{3}$/.test(r.currency)) event.revenue = { amount: r.amount, currency: r.currency };
  return event;
}

export function engagementEvent(path: string, seconds: number, scroll: number): Outgoing {
  return {
    type: "engagement",
    path,
    seconds: bounded(Math.floor(seconds), 0, MAX_ENGAGEMENT_SECONDS),
    scroll: bounded(Math.round(scroll), 0, MAX_SCROLL),
  };
}

export function vitalEvent(path: string, metric: string, value: number): Outgoing {
  return { type: "vital", path, metric, value: bounded(value, 0, MAX_VITAL_VALUE) };
}
