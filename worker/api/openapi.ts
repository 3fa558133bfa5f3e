/**
 * The OpenAPI 3.1 document, generated from the route table: each route's hand-named operation
 * id, its schemas, its auth kind's security scheme, the refusals every route can give and the
 * headers each answer carries (openapi/headers.ts, openapi/refusals.ts); beside them the paths
 * the table does not hold (openapi/front-door.ts) and what Wren sends (openapi/webhooks.ts).
 * Written for the tools that read it (Redocly, Spectral, Prism, generators): every tag
 * described, the 405 every path gives declared on each operation, and no pattern only a
 * Unicode-mode regex reads (openapi/patterns.ts). The dashboard's typed client is generated
 * from this document.
 */
import { createDocument } from "zod-openapi";
import type { z } from "zod";
import { DEFAULT_PUBLIC_URL } from "../lib/public-url";
import type { AuthKind, Route } from "./registry";
import { FRONT_DOOR_PATHS } from "./openapi/front-door";
import { HEADERS, RATE_LIMIT_HEADERS, responseHeaders } from "./openapi/headers";
import { withoutUnicodePatterns } from "./openapi/patterns";
import { hasRefusal, refusal, refusalComponents, type RefusalKind } from "./openapi/refusals";
import { WEBHOOKS } from "./openapi/webhooks";
import { SHARE_READABLE } from "./share-auth";

/** The refusals a route can give whatever it declares: a key route's, and a signed webhook's (no key: no 403 or 429). */
const GENERIC_REFUSALS: Record<RefusalKind, number[]> = {
  key: [400, 401, 403, 413, 415, 422, 429, 503],
  plain: [400, 401, 413, 415, 422, 503],
};
/** Refusals of a body, which a route without one cannot give. */
const BODY_REFUSALS = [413, 415, 422];

const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

/** The security requirement of each auth kind; the schemes are declared in the document's components. */
const SECURITY: Record<AuthKind, Record<string, string[]>[]> = {
  key: [{ apiKey: [] }, { sessionCookie: [] }],
  public: [],
  session: [{ sessionCookie: [] }],
  "site-token": [{ siteToken: [] }],
  // The signature covers the raw body with a per-site secret: headers (documented as the
  // operation's header parameters), not a scheme OpenAPI can describe; no API key.
  "webhook-signature": [],
  share: [{ shareLink: [] }],
};

/** A key route a share link may also read (api/share-auth.ts) takes either. */
function securityOf(spec: Route): Record<string, string[]>[] {
  return spec.auth === "key" && SHARE_READABLE.has(spec.operationId) ? [...SECURITY.key, ...SECURITY.share] : SECURITY[spec.auth];
}

const SECURITY_SCHEMES = {
  apiKey: { type: "http", scheme: "bearer", description: "An API key: `Authorization: Bearer wren_…`" },
  sessionCookie: {
    type: "apiKey",
    in: "cookie",
    name: "wren_session",
    description:
      "A dashboard session (a person signed in with a passkey). Writes also need `x-wren-csrf` (from GET /api/v1/session) and the dashboard's own Origin.",
  },
  siteToken: {
    type: "apiKey",
    in: "header",
    name: "X-Service-Token",
    description: "A site's s2s token (`site_….…`), from POST /api/v1/sites or POST /api/v1/sites/{id}/token.",
  },
  shareLink: {
    type: "http",
    scheme: "Share",
    description:
      "A shared dashboard link's token: `Authorization: Share <token>`. It reads what a read:reports key on the link's one site reads; a password link also needs the cookie POST /share/{token}/unlock sets.",
  },
} as const;

/** Every tag an operation or webhook uses, described; `openApiDocument` refuses a tag not here. */
const TAGS: Record<string, string> = {
  Sites: "Sites, their domains and time zones, and the registry of who registered a domain first.",
  Goals: "A site's goals: pages, custom events, time on page and scroll depth that count as conversions.",
  Keys: "API keys: their scopes, site allowlists, rate limits and calls per day (admin).",
  Sessions: "A site's sessions of published days, with only what the reports show.",
  Events: "Server-side conversions, with an API key or a site's s2s token.",
  Deployments: "Deployment markers, sent by a CI step or the signed inbound webhook, and the smoke-test conversions after them.",
  Reports:
    "Figures through the k-anonymity filter, each {value, qualifier}: pages, vitals, conversions, funnels, timeseries, breakdowns and the overview.",
  Alerts: "Alert rules and their webhook notifications.",
  Shares: "Shared dashboard links: a site's reports, read-only and k-filtered, for anyone holding the link.",
  Imports: "Another tool's export (Plausible, Umami, GoatCounter) read into a site's past days: upload, list, remove.",
  Digests: "Weekly and monthly digests of a site by email and to alert destinations, every figure k-filtered.",
  People:
    "People and sign-in: passkeys, dashboard sessions (cookie + CSRF), roles per site, invitations and the audit log (admins).",
  Collector: "The tracker script and the beacons it sends: no key, taken only from the site's own pages.",
  Service: "Health and this document.",
};

const DESCRIPTION =
  "Wren's public API, and the collector's paths beside it. Every report figure is {value, qualifier} with qualifier exact, " +
  "estimated or suppressed. Errors are application/problem+json (RFC 9457). A path answers only the methods listed for it: " +
  "another method is 405 with `Allow` naming them, declared on every operation. Any request whose Host header is " +
  "not a host name is 400, and one forwarded to the API (every path but /t.js, /e and /s2s) whose declared body exceeds 2 MiB is " +
  "413, before any route. `/` redirects to the dashboard, /dashboard/, which is not part of this API; nor is a shared " +
  "dashboard's page, /share/{token} (HTML; an unknown, revoked or expired link is one 404 page).";

function responsesOf(spec: Route): Record<string, unknown> {
  const kind: RefusalKind = spec.auth === "webhook-signature" || spec.auth === "public" ? "plain" : "key";
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    // A declared refusal is a problem document like every other error.
    if (!response.schema && hasRefusal(kind, status)) {
      responses[status] = refusal(kind, status, response.description);
      continue;
    }
    responses[status] = {
      description: response.description,
      headers: responseHeaders({ always: kind === "key" ? RATE_LIMIT_HEADERS : [], own: response.headers }),
      ...(response.schema
        ? {
            content: {
              "application/json": { schema: response.schema },
              ...Object.fromEntries((response.alsoAs ?? []).map((type) => [type, { schema: { type: "string" } }])),
            },
          }
        : {}),
    };
  }
  const takesBody = Boolean(spec.documentedBody || spec.rawBody || (spec.auth !== "webhook-signature" && spec.body));
  // Any valid key may call a route of scope "any" that names no site: it forbids nothing.
  const forbidsNothing = spec.auth !== "webhook-signature" && spec.auth !== "public" && spec.scope === "any" && !spec.site;
  // A public route has no credentials to refuse, and may not touch the database: it declares
  // its 401 and 503 itself.
  const generic =
    spec.auth === "public" ? GENERIC_REFUSALS.plain.filter((status) => status !== 401 && status !== 503) : GENERIC_REFUSALS[kind];
  for (const status of generic) {
    if (!takesBody && BODY_REFUSALS.includes(status)) continue;
    if (status === 403 && forbidsNothing) continue;
    responses[status] ??= refusal(kind, status);
  }
  return responses;
}

/** A file sent as the body, as it is: the same bytes under each media type it may be sent as. */
function rawRequestBody({ mediaTypes, description }: NonNullable<Route["rawBody"]>) {
  const file = { type: "string", format: "binary" };
  return { required: true, description, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: file }])) };
}

function operationOf(spec: Route): Record<string, unknown> {
  const signed = spec.auth === "webhook-signature";
  const body = signed ? undefined : spec.body;
  const query = signed ? undefined : spec.query;
  return {
    summary: spec.summary,
    tags: [spec.tag],
    operationId: spec.operationId,
    description: signed
      ? spec.signedWith.description
      : spec.auth === "share"
        ? "A shared dashboard link's reader: `Authorization: Share <token>`, or the token in the path."
        : spec.auth === "public"
          ? "No credentials: anyone may call it. A POST must come from the dashboard's own Origin."
          : spec.scope === "any"
            ? "Any valid key may call it."
            : `Requires scope \`${spec.scope}\`${spec.orScope ? ` or \`${spec.orScope}\`` : ""}${spec.site ? `; the site must be on the key's allowlist` : ""}.${SHARE_READABLE.has(spec.operationId) ? " A shared dashboard link of the site may read it too." : ""}`,
    security: securityOf(spec),
    ...(signed
      ? {
          parameters: Object.entries(spec.signedWith.headers).map(([name, description]) => ({
            name,
            in: "header",
            required: false,
            description,
            schema: { type: "string" },
          })),
        }
      : {}),
    requestParams: {
      ...(spec.params ? { path: spec.params as z.ZodObject } : {}),
      ...(query ? { query: query as z.ZodObject } : {}),
    },
    ...(body || spec.documentedBody
      ? { requestBody: { required: true, content: { "application/json": { schema: body ?? spec.documentedBody } } } }
      : {}),
    ...(spec.rawBody ? { requestBody: rawRequestBody(spec.rawBody) } : {}),
    responses: responsesOf(spec),
  };
}

export interface DocumentOptions {
  /**
   * Where the service is reached: WREN_PUBLIC_URL in the worker (never the request's Host).
   * Without it (a document built in Node, for the dashboard's types) the server is "/", the
   * origin the document itself was fetched from, rather than a default that may not be this box.
   */
  serverUrl?: string;
}

type Operation = { tags?: string[]; responses: Record<string, unknown> };

/**
 * Every path answers a method it does not list with 405 and `Allow` (lib/router.ts), before any
 * route runs; OpenAPI has no path-level responses, so each operation declares it.
 */
function withMethodNotAllowed(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(item).map(([method, operation]) => {
      const { responses } = operation as Operation;
      return [method, { ...(operation as Operation), responses: { ...responses, 405: responses[405] ?? refusal("plain", 405) } }];
    }),
  );
}

/** The document's top-level tags: each one its operations and webhooks use, in TAGS' order. */
function tagsOf(items: object[]): { name: string; description: string }[] {
  const used = new Set(items.flatMap((item) => Object.values(item).flatMap((operation) => (operation as Operation).tags ?? [])));
  const unknown = [...used].filter((tag) => !(tag in TAGS));
  if (unknown.length > 0) throw new Error(`OpenAPI tags without a description (openapi.ts TAGS): ${unknown.join(", ")}`);
  return Object.entries(TAGS)
    .filter(([name]) => used.has(name))
    .map(([name, description]) => ({ name, description }));
}

export function openApiDocument(routes: Route[], options: DocumentOptions = {}): ReturnType<typeof createDocument> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of routes) (paths[toOpenApiPath(spec.path)] ??= {})[spec.method.toLowerCase()] = operationOf(spec);
  for (const [path, item] of Object.entries(FRONT_DOOR_PATHS)) paths[path] = { ...paths[path], ...item };
  for (const [path, item] of Object.entries(paths)) paths[path] = withMethodNotAllowed(item);
  return createDocument(
    {
      openapi: "3.1.0",
      info: { title: "Wren API", version: "1", description: DESCRIPTION, license: { name: "MIT", identifier: "MIT" } },
      servers: [
        options.serverUrl
          ? { url: options.serverUrl, description: "This Wren (WREN_PUBLIC_URL)." }
          : { url: "/", description: `Where this document was fetched from (by default ${DEFAULT_PUBLIC_URL}).` },
      ],
      tags: tagsOf([...Object.values(paths), ...Object.values(WEBHOOKS)]),
      components: { securitySchemes: SECURITY_SCHEMES, headers: HEADERS, responses: refusalComponents() as never },
      paths: paths as never,
      webhooks: WEBHOOKS,
    },
    { override: withoutUnicodePatterns as never },
  );
}
