/**
 * The collector's wire formats, validated with zod. Objects are strict, so a misspelt
 * field is a 422 naming it rather than a silently dropped value.
 */
import { z } from "zod";
import { siteId } from "../lib/ids";
import { VITAL_METRICS } from "../lib/schema";

export const BEACON_BODY_LIMIT = 16 * 1024;
export const BEACON_MAX_EVENTS = 30;
export const S2S_BODY_LIMIT = 256 * 1024;
export const S2S_MAX_EVENTS = 500;

/** The tracker's id: 16 random bytes in base64url (22 characters); other lengths tolerated. */
export const trackerSessionId = z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, "must be a session id from wren.session() (16–64 characters of A–Z a–z 0–9 _ -)");
/** Paths are bounded so that matching them against goal patterns stays cheap (lib/glob.ts). */
export const MAX_PATH_LENGTH = 1024;
const path = z.string().min(1).max(MAX_PATH_LENGTH).regex(/^\/[^\s?#]*$/, "must be a URL path starting with / (no query or fragment)");
export const eventName = z.string().regex(/^[\p{L}\p{N} _.:/-]{1,100}$/u, "must be an event name (1–100 letters, digits, space, _ . : / -)");
const amount = z.number().min(-1e12).max(1e12);

/** The landing page's campaign parameters, as the tracker read them (utm_* and ref); each trimmed and cut to 100 characters when stored. */
const utmParameter = z.string().max(500).optional();
const utm = z.strictObject({ source: utmParameter, medium: utmParameter, campaign: utmParameter, content: utmParameter, term: utmParameter });
const pageview = z.strictObject({ type: z.literal("pageview"), path, referrer: z.string().max(2048).optional(), utm: utm.optional() });
const customEvent = z.strictObject({ type: z.literal("event"), path, name: eventName, value: amount.optional() });
const engagement = z.strictObject({
  type: z.literal("engagement"),
  path,
  seconds: z.number().int().min(0).max(86_400),
  scroll: z.number().int().min(0).max(100),
});
const vital = z.strictObject({
  type: z.literal("vital"),
  path,
  metric: z.enum(VITAL_METRICS),
  // Milliseconds for the timings, a unitless score for CLS; an hour bounds both.
  value: z.number().min(0).max(3_600_000),
});

export const beaconEvent = z.discriminatedUnion("type", [pageview, customEvent, engagement, vital]);
export const beaconBody = z.strictObject({
  site: siteId,
  session: trackerSessionId,
  events: z.array(beaconEvent).min(1).max(BEACON_MAX_EVENTS),
});
export type BeaconBody = z.infer<typeof beaconBody>;
export type BeaconEvent = z.infer<typeof beaconEvent>;

export const conversion = z.strictObject({
  goal_id: z.string().min(1).max(100),
  session: trackerSessionId.optional(),
  value: amount.optional(),
  id: z.string().min(1).max(200).optional(),
  timestamp: z.union([z.string().max(40), z.number()]).optional(),
});
export type Conversion = z.infer<typeof conversion>;

export const conversionBatch = z.strictObject({ events: z.array(conversion).min(1).max(S2S_MAX_EVENTS) });
