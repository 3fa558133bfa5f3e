/**
 * The OpenAPI 3.1 document, generated from the route table: each route's hand-named operation
 * id, its schemas, its auth kind's security scheme, and the problem responses every route
 * can give. The dashboard's typed client is generated from this document.
 */
import { createDocument } from "zod-openapi";
import type { z } from "zod";
import { problemResource } from "./resources";
import type { AuthKind, Route } from "./registry";

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

/** The security requirement of each auth kind; the schemes are declared in the document's components. */
const SECURITY: Record<AuthKind, Record<string, string[]>[]> = {
  key: [{ apiKey: [] }],
  "site-token": [{ siteToken: [] }],
  // The signature covers the raw body with a per-site secret: headers, not a bearer scheme.
  "webhook-signature": [],
};

const SECURITY_SCHEMES: Record<string, { type: "http"; scheme: "bearer"; description: string }> = {
  apiKey: { type: "http", scheme: "bearer", description: "An API key: `Authorization: Bearer wren_…`" },
  siteToken: { type: "http", scheme: "bearer", description: "A site's s2s token: `Authorization: Bearer site_….…`" },
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
    for (const [status, description] of Object.entries(ERROR_RESPONSES)) {
      if (!spec.body && !spec.documentedBody && ["413", "415", "422"].includes(status)) continue;
      responses[status] ??= { description, content: { "application/problem+json": { schema: problemResource } } };
    }
    const operation: Record<string, unknown> = {
      summary: spec.summary,
      tags: [spec.tag],
      operationId: spec.operationId,
      description: `Requires scope \`${spec.scope}\`${spec.site ? `; the site must be on the key's allowlist` : ""}.`,
      security: SECURITY[spec.auth],
      requestParams: {
        ...(spec.params ? { path: spec.params as z.ZodObject } : {}),
        ...(spec.query ? { query: spec.query as z.ZodObject } : {}),
      },
      ...(spec.body || spec.documentedBody
        ? { requestBody: { required: true, content: { "application/json": { schema: spec.body ?? spec.documentedBody } } } }
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
  });
}
