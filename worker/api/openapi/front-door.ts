/**
 * The paths the route table does not hold, as the document describes them: the collector's
 * own (the tracker, beacons, server-to-server conversions: worker/collector/index.ts) and the
 * api worker's (/healthz, this document: worker/api/index.ts). None takes an API key, so none
 * has RateLimit headers. Every answer here is the code's: tracker.ts, beacon.ts, s2s.ts, health.ts.
 */
import { z } from "zod";
import { beaconBody, conversion, conversionBatch } from "../../collector/schemas";
import type { HeaderSpec } from "../reply";
import { acceptedEventsResource, problemResource } from "../resources";
import { responseHeaders } from "./headers";
import { refusal } from "./refusals";

/** A header every answer of the status carries, always with the same value. */
const constant = (value: string, description: string): HeaderSpec => ({
  description,
  required: true,
  schema: { type: "string", const: value },
});

/** What GET and HEAD /t.js send with the script and with a 304 alike. */
const TRACKER_HEADERS = responseHeaders({
  cacheControl: constant(
    "public, max-age=3600, stale-while-revalidate=86400",
    "Kept an hour, then revalidated with the ETag: the snippet's URL never changes.",
  ),
  own: {
    ETag: {
      description: "The build's tag; send it back as If-None-Match.",
      required: true,
      schema: { type: "string", pattern: '^"[^"]+"$' },
    },
    "Cross-Origin-Resource-Policy": constant("cross-origin", "Loadable by pages on other origins, including isolated ones."),
    "X-Content-Type-Options": constant("nosniff", "Run only as the script it says it is."),
  },
});

const TRACKER_PARAMETERS = [
  {
    name: "vitals",
    in: "query",
    required: false,
    description: "Present (with any value or none): the Core Web Vitals part, which the tracker loads lazily.",
    schema: { type: "string" },
  },
  {
    name: "track",
    in: "query",
    required: false,
    description:
      "Present (with any value or none): the outbound-link and download part, which the tracker loads when the snippet has `data-track`.",
    schema: { type: "string" },
  },
  {
    name: "If-None-Match",
    in: "header",
    required: false,
    description: "The ETag of the copy the client holds: 304 when it is current.",
    schema: { type: "string" },
  },
];

const trackerOperation = (method: "get" | "head") => ({
  operationId: method === "get" ? "getTracker" : "headTracker",
  summary:
    method === "get"
      ? "The tracker script the snippet loads (`?vitals`: its Core Web Vitals part; `?track`: its link part)"
      : "The tracker script's headers, without the script",
  description:
    "No key: the script every site's snippet loads, the same for all sites. Kept an hour by caches, then revalidated with its ETag.",
  tags: ["Collector"],
  security: [],
  parameters: TRACKER_PARAMETERS,
  responses: {
    200: {
      description: "The script.",
      headers: TRACKER_HEADERS,
      ...(method === "get" ? { content: { "text/javascript": { schema: { type: "string" } } } } : {}),
    },
    304: { description: "The client's copy (If-None-Match) is current.", headers: TRACKER_HEADERS },
    // A HEAD answer has no body, the problem's included.
    400:
      method === "get"
        ? refusal("plain", 400)
        : { description: "The Host header is not a host name and port.", headers: responseHeaders({}) },
  },
});

const VARY_ORIGIN = constant("Origin", "The CORS headers depend on the request's Origin.");
const ALLOW_ORIGIN: HeaderSpec = {
  description:
    "The request's Origin, echoed: only when it sent one, and for a beacon only when that origin is on its site's allowlist.",
  required: false,
  schema: { type: "string" },
};

const beacon = beaconBody.meta({
  id: "Beacon",
  description: "One session's events from one page load: pageviews, custom events, engagement and vitals (1–30).",
});

const beaconOperation = {
  operationId: "recordBeacon",
  summary: "A beacon from the tracker: a session's pageviews, events, engagement and vitals",
  tags: ["Collector"],
  description:
    "No key: a beacon is taken only from a page of the site. The hostname of `Origin` (or, when a browser sent none, of `Referer`) " +
    "must be on the site's allowlist, and known crawlers, headless browsers and HTTP libraries (by `User-Agent`) are refused. The " +
    "tracker sends text/plain, which needs no CORS preflight; at most 16 KiB.",
  security: [],
  requestBody: {
    required: true,
    content: {
      // The same JSON either way; as text/plain it is a string to a validating proxy (Prism),
      // which would refuse an object schema there, its content described by the Beacon schema.
      "text/plain": {
        schema: {
          type: "string",
          contentMediaType: "application/json",
          contentSchema: { $ref: "#/components/schemas/Beacon" },
          description: "A Beacon as JSON text: what the tracker sends (no CORS preflight).",
        },
      },
      "application/json": { schema: beacon },
    },
  },
  responses: {
    202: {
      description: "Stored: the events are committed.",
      headers: responseHeaders({ own: { Vary: VARY_ORIGIN, "Access-Control-Allow-Origin": ALLOW_ORIGIN } }),
      content: {
        "application/json": {
          schema: z.object({ accepted: z.number().int().min(1).meta({ description: "The events stored." }) }),
        },
      },
    },
    400: refusal("plain", 400),
    403: refusal(
      "plain",
      403,
      "A known crawler or automated client (`field`: `user-agent`), a site this collector does not have (`site`), or a page whose origin is not on the site's allowlist (`origin`). Without CORS headers: the page cannot read why.",
    ),
    413: refusal("plain", 413, "The body is larger than 16 KiB."),
    415: refusal("plain", 415, "The body is neither text/plain nor application/json."),
    422: refusal("plain", 422),
    503: refusal("plain", 503),
  },
};

const preflightOperation = {
  operationId: "preflightBeacon",
  summary: "The CORS preflight of a beacon sent as application/json",
  tags: ["Collector"],
  description:
    "Answered alike for every origin, so it tells no one without a key which domains this Wren serves; the beacon itself is refused unless its origin is on its site's allowlist.",
  security: [],
  responses: {
    204: {
      description: "Preflight granted.",
      headers: responseHeaders({
        cacheControl: null,
        own: {
          "Access-Control-Allow-Origin": { ...ALLOW_ORIGIN, description: "The request's Origin, echoed, when it sent one." },
          "Access-Control-Allow-Methods": constant("POST", "Beacons are POSTed."),
          "Access-Control-Allow-Headers": constant("content-type", "The one header a beacon sets."),
          "Access-Control-Max-Age": { description: "A day.", required: true, schema: { type: "integer", const: 86400 } },
          Vary: VARY_ORIGIN,
        },
      }),
    },
    400: refusal("plain", 400),
  },
};

const s2sBody = z.union([
  conversion.meta({ id: "S2sConversion", description: "One conversion." }),
  conversionBatch.meta({ id: "S2sConversionBatch", description: "1–500 conversions, stored together or not at all." }),
]);

const s2sOperation = {
  operationId: "recordConversions",
  summary: "Record server-side conversions with the site's s2s token (one, or {events: [...]} up to 500)",
  tags: ["Events"],
  description:
    "The site's token instead of an API key. A request that sends `Origin` must come from the site's allowlist. " +
    "POST /api/v1/events takes the same path after checking its key, so validation, the 24-hour window and idempotency are the same.",
  security: [{ siteToken: [] }],
  requestBody: { required: true, content: { "application/json": { schema: s2sBody } } },
  responses: {
    202: {
      description: "Stored (each event's outcome in `events`).",
      headers: responseHeaders({}),
      content: { "application/json": { schema: acceptedEventsResource } },
    },
    400: refusal("plain", 400),
    401: refusal(
      "plain",
      401,
      "X-Service-Token is missing, not a token of this server, rotated, or its site was deleted (`field`: `X-Service-Token`).",
    ),
    403: refusal("plain", 403, "`Origin` is not on the site's allowlist (`field`: `origin`)."),
    413: refusal("plain", 413, "The body is larger than 256 KiB."),
    415: refusal("plain", 415, "The body is not application/json."),
    422: refusal("plain", 422, "A field is invalid (unknown goal, outside the 24-hour window, …); `field` names it."),
    503: refusal("plain", 503),
  },
};

const instance = z.string().nullable().meta({ description: "The id `wren start` gave this start (WREN_INSTANCE), or null." });

/** /healthz as api/health.ts answers it; open to fields added later, which monitors may ignore. */
const healthResource = z
  .looseObject({
    status: z.literal("ok"),
    database: z.literal("ok").meta({ description: "The database answered a read." }),
    storage: z.literal("ok").meta({ description: "The database and the Durable Object storage took a write." }),
    instance,
    publisher: z
      .looseObject({
        status: z.enum(["starting", "current", "behind"]).meta({
          description: "`starting` before the first publication; `behind` when it lags more than the grace and an interval.",
        }),
        published_through: z.string().nullable().meta({ format: "date-time", description: "The instant published through." }),
        lag_seconds: z.number().int().min(0).nullable().meta({ description: "How far that is behind now." }),
      })
      .meta({ description: "How fresh the reports are." }),
  })
  .meta({ id: "Health" });

/** The 503 of /healthz: a Problem that also says what failed. */
const healthProblem = z
  .looseObject({
    ...problemResource.pick({ type: true, title: true, status: true, detail: true }).shape,
    database: z.string().meta({ description: "`ok`, or `not answering`." }),
    storage: z.string().optional().meta({ description: "When the database answers but a write failed: why." }),
    instance,
  })
  .meta({ id: "HealthProblem" });

const healthOperation = {
  operationId: "getHealth",
  summary: "Whether the service answers, its database and storage take writes, and how fresh the reports are",
  description: "No key: for monitors and load balancers. 200 while the database answers and takes a write; 503 otherwise.",
  tags: ["Service"],
  security: [],
  responses: {
    200: { description: "Healthy.", headers: responseHeaders({}), content: { "application/json": { schema: healthResource } } },
    400: refusal("plain", 400),
    503: {
      description:
        "The database does not answer, or it or the Durable Object storage does not take a write; retry after Retry-After.",
      headers: responseHeaders({ always: ["Retry-After"] }),
      content: { "application/problem+json": { schema: healthProblem } },
    },
  },
};

const documentOperation = {
  operationId: "getOpenApiDocument",
  summary: "This document",
  description: "No key: the OpenAPI 3.1 document, generated from the route table; its server is WREN_PUBLIC_URL.",
  tags: ["Service"],
  security: [],
  responses: {
    200: {
      description: "The OpenAPI 3.1 document, generated from the route table.",
      headers: responseHeaders({}),
      content: {
        "application/json": {
          schema: z.looseObject({ openapi: z.literal("3.1.0"), info: z.looseObject({}), paths: z.looseObject({}) }),
        },
      },
    },
    400: refusal("plain", 400),
  },
};

/** Path items by OpenAPI path. */
export const FRONT_DOOR_PATHS: Record<string, Record<string, unknown>> = {
  "/t.js": { get: trackerOperation("get"), head: trackerOperation("head") },
  "/e": { post: beaconOperation, options: preflightOperation },
  "/s2s": { post: s2sOperation },
  "/healthz": { get: healthOperation },
  "/api/v1/openapi.json": { get: documentOperation },
};
