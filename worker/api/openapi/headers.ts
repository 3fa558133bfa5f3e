/**
 * The response headers the OpenAPI document names, as the code sends them: RateLimit fields
 * (api/ratelimit.ts), Retry-After, WWW-Authenticate (api/auth.ts), Allow (lib/router.ts) and
 * Cache-Control. Each is a component, referenced where it is always sent; where only some
 * answers of a status carry one, the response has an inline copy with `required: false`.
 */
import type { HeaderSpec } from "../reply";

const seconds = { type: "integer", minimum: 0 } as const;

export const HEADERS = {
  "RateLimit-Limit": {
    description:
      "The key's limit: requests per window (the key's `rate_limit`, else WREN_RATE_LIMIT); with several instances on one database, this instance's share of it (the limit divided by the live instances, rounded down).",
    required: true,
    schema: { type: "integer", minimum: 1 },
  },
  "RateLimit-Remaining": {
    description: "Requests left in the key's bucket after this one.",
    required: true,
    schema: { type: "integer", minimum: 0 },
  },
  "RateLimit-Reset": { description: "Seconds until the key's bucket is full again.", required: true, schema: seconds },
  "RateLimit-Policy": {
    description: "The key's policy, `LIMIT;w=WINDOW_SECONDS` (e.g. `600;w=60`).",
    required: true,
    schema: { type: "string", pattern: "^[0-9]+;w=[0-9]+$" },
  },
  "Retry-After": { description: "Seconds to wait before retrying.", required: true, schema: { type: "integer", minimum: 1 } },
  "WWW-Authenticate": {
    description:
      '`Bearer realm="wren"`, with `error="invalid_token"` for a key that is not valid or was revoked; `Share realm="wren"` for a shared dashboard link that is not valid or not unlocked.',
    required: true,
    schema: { type: "string", pattern: '^(Bearer|Share) realm="wren"' },
  },
  Allow: {
    description: "The methods the path answers, e.g. `GET, POST`.",
    required: true,
    schema: { type: "string", pattern: "^[A-Z]+(, [A-Z]+)*$" },
  },
  NoStore: {
    description: "`no-store`: an answer to one caller (a key, a token, an error) is kept by no cache.",
    required: true,
    schema: { type: "string", const: "no-store" },
  },
} satisfies Record<string, HeaderSpec>;

export type HeaderName = keyof typeof HEADERS;

const ref = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });

/** The headers every answer to a key route carries once the key is known (api/pipeline.ts). */
export const RATE_LIMIT_HEADERS = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"] as const;

/**
 * A response's headers: `Cache-Control` as given (NoStore unless told), `always` by reference,
 * `sometimes` inline and not required, and `own` (a route's) inline as declared.
 */
export function responseHeaders({
  cacheControl = "NoStore",
  always = [],
  sometimes = [],
  own = {},
}: {
  cacheControl?: HeaderName | HeaderSpec | null;
  always?: readonly HeaderName[];
  sometimes?: readonly HeaderName[];
  own?: Record<string, HeaderSpec>;
}): Record<string, unknown> {
  return {
    ...(cacheControl === null ? {} : { "Cache-Control": typeof cacheControl === "string" ? ref(cacheControl) : cacheControl }),
    ...Object.fromEntries(always.map((name) => [name, ref(name)])),
    ...Object.fromEntries(sometimes.map((name) => [name, { ...HEADERS[name], required: false }])),
    ...own,
  };
}
