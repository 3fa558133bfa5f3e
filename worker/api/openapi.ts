/**
 * The OpenAPI 3.1 document, generated from the route table: each route's hand-named operation
 * id, its schemas, its auth kind's security scheme, and the problem responses every route
 * can give. The dashboard's typed client is generated from this document.
 */
import { createDocument, type ZodOpenApiPathsObject } from "zod-openapi";
import type { z } from "zod";
import { alertNotificationResource, problemResource } from "./resources";
import type { AuthKind, Route } from "./registry";

/** The refusals a key route can give whatever it declares. */
const ERROR_RESPONSES: Record<number, string> = {
  400: "Malformed request (not JSON, bad path or query parameter).",
  401: "No API key, or an invalid or revoked one.",
  403: "The key lacks the scope, or may not act on the site.",
  413: "The body is too large.",
  415: "The body is not application/json.",
  422: "A field is invalid; `field` names it.",
  429: "The key's request limit is used up; see Retry-After.",
  503: "The database is not answering; retry after Retry-After.",
};

const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

/** The refusals a signed webhook route can give whatever it declares (no key: no 403 or 429). */
const SIGNED_ERROR_RESPONSES: Record<number, string> = {
  400: "Malformed request (bad path parameter, body not JSON).",
  401: "The signature does not verify, or a signature header is missing.",
  413: "The body is too large.",
  415: "The body is not application/json.",
  422: "A field is invalid; `field` names it.",
  503: "The database is not answering; retry after Retry-After.",
};

/** The security requirement of each auth kind; the schemes are declared in the document's components. */
const SECURITY: Record<AuthKind, Record<string, string[]>[]> = {
  key: [{ apiKey: [] }],
  "site-token": [{ siteToken: [] }],
  // The signature covers the raw body with a per-site secret: headers (documented as the
  // operation's header parameters), not a scheme OpenAPI can describe; no API key.
  "webhook-signature": [],
};

const SECURITY_SCHEMES: Record<string, { type: "http"; scheme: "bearer"; description: string }> = {
  apiKey: { type: "http", scheme: "bearer", description: "An API key: `Authorization: Bearer wren_…`" },
  siteToken: { type: "http", scheme: "bearer", description: "A site's s2s token: `Authorization: Bearer site_….…`" },
};

/**
 * What Wren sends: an alert rule's notification, POSTed to each of its destinations
 * (worker/alerts/send.ts). A `standard` destination gets the AlertNotification signed per
 * Standard Webhooks; a `slack` destination gets a Slack message, unsigned.
 */
const WEBHOOKS: ZodOpenApiPathsObject = {
  alertNotification: {
    post: {
      summary: "An alert rule's notification: alert.firing, alert.resolved or alert.test",
      tags: ["Alerts"],
      description:
        "POSTed to each destination of an alert rule when it fires (`alert.firing`), resolves (`alert.resolved`) or is tested " +
        "(`alert.test`, POST /api/v1/alerts/{id}/test). A `standard` destination gets this body, signed per Standard Webhooks " +
        "(https://www.standardwebhooks.com) with the destination's secret (`whsec_…`, shown once when the destination was made): " +
        "verify `webhook-signature` over `webhook-id.webhook-timestamp.body` before trusting it. A `slack` destination gets " +
        '`{"text": "…"}`, a Slack incoming-webhook message saying the same in words, with none of the three headers (unsigned). ' +
        "Each attempt has 10 s; redirects are not followed; at most 4 KiB of the answer is read.",
      parameters: [
        {
          name: "webhook-id",
          in: "header",
          required: false,
          description:
            "The message's id (`msg_…`), the same on every attempt: a receiver that sees it twice has seen a retry. Absent for `slack` destinations.",
          schema: { type: "string" },
        },
        {
          name: "webhook-timestamp",
          in: "header",
          required: false,
          description: "Unix seconds when this attempt was signed; reject one far from now. Absent for `slack` destinations.",
          schema: { type: "string" },
        },
        {
          name: "webhook-signature",
          in: "header",
          required: false,
          description:
            "`v1,` + base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body` with the destination's secret. Absent for `slack` destinations.",
          schema: { type: "string" },
        },
      ],
      requestBody: { required: true, content: { "application/json": { schema: alertNotificationResource } } },
      responses: {
        "2XX": { description: "Delivered: the notification is not sent again." },
        default: {
          description:
            "Anything else (a 3xx, 4xx or 5xx, a timeout, no answer): not delivered. Retried with the same webhook-id, " +
            "the wait doubling from WREN_WEBHOOK_RETRY_SECONDS (default 30 s) up to 12 h; after 13 attempts it is marked failed in the rule's history.",
        },
      },
    },
  },
};

export function openApiDocument(routes: Route[]): ReturnType<typeof createDocument> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const spec of routes) {
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(spec.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.schema
          ? {
              content: {
                "application/json": { schema: response.schema },
                ...Object.fromEntries((response.alsoAs ?? []).map((type) => [type, { schema: { type: "string" } }])),
              },
            }
          : Number(status) >= 400
            ? // A declared refusal is a problem document like every other error.
              { content: { "application/problem+json": { schema: problemResource } } }
            : {}),
      };
    }
    const signed = spec.auth === "webhook-signature";
    const body = signed ? undefined : spec.body;
    const query = signed ? undefined : spec.query;
    for (const [status, description] of Object.entries(signed ? SIGNED_ERROR_RESPONSES : ERROR_RESPONSES)) {
      if (!body && !spec.documentedBody && ["413", "415", "422"].includes(status)) continue;
      responses[status] ??= { description, content: { "application/problem+json": { schema: problemResource } } };
    }
    const operation: Record<string, unknown> = {
      summary: spec.summary,
      tags: [spec.tag],
      operationId: spec.operationId,
      description: signed
        ? spec.signedWith.description
        : spec.scope === "any"
          ? "Any valid key may call it."
          : `Requires scope \`${spec.scope}\`${spec.orScope ? ` or \`${spec.orScope}\`` : ""}${spec.site ? `; the site must be on the key's allowlist` : ""}.`,
      security: SECURITY[spec.auth],
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
      responses,
    };
    (paths[toOpenApiPath(spec.path)] ??= {})[spec.method.toLowerCase()] = operation;
  }
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Wren API",
      version: "1",
      description:
        "Wren's public API. Every report figure is {value, qualifier} with qualifier exact, estimated or suppressed. Errors are application/problem+json (RFC 9457).",
    },
    components: {
      securitySchemes: Object.fromEntries(
        Object.entries(SECURITY_SCHEMES).filter(([name]) =>
          routes.some((spec) => SECURITY[spec.auth].some((requirement) => name in requirement)),
        ),
      ),
    },
    paths: paths as never,
    webhooks: WEBHOOKS,
  });
}
