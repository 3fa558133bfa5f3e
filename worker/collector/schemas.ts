/**
 * The collector's wire formats, validated with zod. Objects are strict, so a misspelt
 * field is a 422 naming it rather than a silently dropped value.
 *
 * A beacon's limits come from lib/beacon-limits.ts, which the tracker shares. Text that a
 * visitor's URL can carry is cleaned, never refused: the path is cut to its bound; the referrer
 * and the campaign values lose control characters and unpaired surrogates and are cut (never
 * inside a surrogate pair). A beacon is the visitor's one chance to be counted, and its answer
 * reaches no one who could fix it. What no URL produces (a wrong type, an unknown field, a
 * path without its leading /, an event name, a number out of range) is still refused.
 */
import { z } from "zod";
import {
  BEACON_BODY_LIMIT,
  BEACON_MAX_EVENTS,
  EVENT_NAME_PATTERN,
  MAX_AMOUNT,
  MAX_ENGAGEMENT_SECONDS,
  MAX_PATH_LENGTH,
  MAX_PROP_VALUE_LENGTH,
  MAX_PROPS,
  MAX_REFERRER_LENGTH,
  MAX_SCROLL,
  MAX_SENT_UTM_LENGTH,
  MAX_VITAL_VALUE,
  PATH_PATTERN,
  cleanText,
  cut,
} from "../lib/beacon-limits";
import { siteId } from "../lib/ids";
import { revenue } from "../lib/revenue";
import { VITAL_METRICS } from "../lib/schema";
import { isPropsObject, readProps } from "./props";

export { BEACON_BODY_LIMIT, BEACON_MAX_EVENTS, MAX_PATH_LENGTH };
export const S2S_BODY_LIMIT = 256 * 1024;
export const S2S_MAX_EVENTS = 500;

/** The tracker's id: 16 random bytes in base64url (22 characters); other lengths tolerated. */
export const trackerSessionId = z
  .string()
  .regex(/^[A-Za-z0-9_-]{16,64}$/, "must be a session id from wren.session() (16–64 characters of A–Z a–z 0–9 _ -)");
/** A URL path, cut to MAX_PATH_LENGTH (a longer one is kept as its beginning). */
const path = z
  .string()
  .regex(PATH_PATTERN, "must be a URL path starting with / (no query or fragment)")
  .transform((value) => cut(value, MAX_PATH_LENGTH))
  .meta({ description: `A longer path is cut to ${MAX_PATH_LENGTH} characters.` });
export const eventName = z.string().regex(EVENT_NAME_PATTERN, "must be an event name (1–100 letters, digits, space, _ . : / -)");
const amount = z.number().min(-MAX_AMOUNT).max(MAX_AMOUNT);
/** Text from the visitor's URL: cleaned of control characters and unpaired surrogates, and cut. */
const cleanedText = (max: number) =>
  z
    .string()
    .transform((value) => cleanText(value, max))
    .meta({
      description: `Control characters and unpaired surrogates are removed, and a longer value is cut to ${max} characters.`,
    });

const PROPS_DOC = {
  type: "object",
  additionalProperties: { type: "string" },
  description: `Custom properties, name → text (docs/collector.md "Custom properties"). Kept only under the site's allowed names (and the reserved \`url\`, \`file\`); at most ${MAX_PROPS}, names matching /^[A-Za-z0-9_.:-]{1,64}$/, values cleaned and cut to ${MAX_PROP_VALUE_LENGTH} characters. What is dropped is counted per reason, never stored.`,
};
/** A beacon's props: accepted in any shape (a beacon is never refused for them), read by collector/props.ts. */
const beaconProps = z.unknown().transform(readProps).meta(PROPS_DOC);
/** The API's props: an object of text values, or a 422 naming `props`; names then go as on beacons. */
const apiProps = z
  .unknown()
  .superRefine((value, ctx) => {
    if (!isPropsObject(value)) ctx.addIssue({ code: "custom", message: "must be an object of text values" });
    else {
      const bad = Object.entries(value).find(([, v]) => typeof v !== "string");
      if (bad)
        ctx.addIssue({
          code: "custom",
          message: `must be an object of text values (${JSON.stringify(bad[0].slice(0, 64))} is not text)`,
        });
    }
  })
  .transform(readProps)
  .meta(PROPS_DOC);

/** The landing page's campaign parameters, as the tracker read them (utm_* and ref); each trimmed and cut to 100 characters when stored. */
const utmParameter = cleanedText(MAX_SENT_UTM_LENGTH).optional();
const utm = z.strictObject({
  source: utmParameter,
  medium: utmParameter,
  campaign: utmParameter,
  content: utmParameter,
  term: utmParameter,
});
const pageview = z.strictObject({
  type: z.literal("pageview"),
  path,
  referrer: cleanedText(MAX_REFERRER_LENGTH).optional(),
  utm: utm.optional(),
  props: beaconProps.optional(),
});
/**
 * A beacon's revenue is taken in any shape: a bad amount or currency drops the amount (counted
 * in revenue_drops), never the event or its conversion (beacon.ts beaconRevenue).
 */
const beaconRevenue = z
  .unknown()
  .optional()
  .meta({ description: "`{amount, currency}`; an amount the collector cannot keep is dropped and counted, the event is kept." });
const customEvent = z.strictObject({
  type: z.literal("event"),
  path,
  name: eventName,
  value: amount.optional(),
  props: beaconProps.optional(),
  revenue: beaconRevenue,
});
const engagement = z.strictObject({
  type: z.literal("engagement"),
  path,
  seconds: z.number().int().min(0).max(MAX_ENGAGEMENT_SECONDS),
  scroll: z.number().int().min(0).max(MAX_SCROLL),
});
const vital = z.strictObject({
  type: z.literal("vital"),
  path,
  metric: z.enum(VITAL_METRICS),
  value: z.number().min(0).max(MAX_VITAL_VALUE),
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
  revenue: revenue.optional(),
  id: z.string().min(1).max(200).optional(),
  timestamp: z.union([z.string().max(40), z.number()]).optional(),
  props: apiProps.optional(),
});
export type Conversion = z.infer<typeof conversion>;

export const conversionBatch = z.strictObject({ events: z.array(conversion).min(1).max(S2S_MAX_EVENTS) });
