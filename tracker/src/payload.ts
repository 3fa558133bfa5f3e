/**
 * The tracker's events, built from what the page hands it (its URL, its referrer, the site's
 * own calls, measurements): plain functions that core.ts calls and that
 * test/collector/tracker-payload.test.ts runs in Node against the real collector. Every value
 * goes through the limits the collector shares (worker/lib/beacon-limits.ts): text is cleaned
 * and cut, numbers kept in range, and what the collector would still refuse (an event name it
 * does not take) is not sent, so no beacon is lost for what a URL or a measurement held.
 */
import {
  EVENT_NAME_PATTERN,
  MAX_AMOUNT,
  MAX_ENGAGEMENT_SECONDS,
  MAX_EVENT_NAME_LENGTH,
  MAX_PATH_LENGTH,
  MAX_REFERRER_LENGTH,
  MAX_SCROLL,
  MAX_SENT_UTM_LENGTH,
  MAX_VITAL_VALUE,
  bounded,
  cleanText,
  cut,
} from "../../worker/lib/beacon-limits";

export type Outgoing = { type: string; path: string; [field: string]: unknown };

/** The page's path as sent: `location.pathname`, cleaned and cut. */
export const pagePath = (pathname: string): string => cleanText(pathname, MAX_PATH_LENGTH);

/**
 * The landing page's campaign from its query string: utm_source (or ref, or source), utm_medium,
 * utm_campaign, utm_content, utm_term. Only these leave the page; the rest of it never does.
 */
export function campaign(search: string): Record<string, string> | undefined {
  const query = new URLSearchParams(search);
  const get = (key: string) => cleanText(query.get(key) || "", MAX_SENT_UTM_LENGTH);
  const utm: Record<string, string> = {};
  const source = get("utm_source") || get("ref") || get("source");
  if (source) utm.source = source;
  for (const key of ["medium", "campaign", "content", "term"]) {
    const value = get(`utm_${key}`);
    if (value) utm[key] = value;
  }
  return Object.keys(utm).length ? utm : undefined;
}

/** A pageview; the landing one also carries `document.referrer` and the URL's query string. */
export function pageviewEvent(path: string, referrer?: string, search?: string): Outgoing {
  const event: Outgoing = { type: "pageview", path };
  const from = cleanText(referrer || "", MAX_REFERRER_LENGTH);
  if (from) event.referrer = from;
  const utm = search ? campaign(search) : undefined;
  if (utm) event.utm = utm;
  return event;
}

/** A custom event from `wren.track`; null for a name the collector would refuse. */
export function customEvent(path: string, name: unknown, value: unknown): Outgoing | null {
  if (typeof name !== "string") return null;
  const cutName = cut(name, MAX_EVENT_NAME_LENGTH);
  if (!EVENT_NAME_PATTERN.test(cutName)) return null;
  const event: Outgoing = { type: "event", path, name: cutName };
  // A value out of range (or not a number) is left out rather than voiding the event.
  if (typeof value === "number" && Math.abs(value) <= MAX_AMOUNT) event.value = value;
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
