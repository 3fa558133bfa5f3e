/** The OpenAPI 3.1 document, generated from the route table's zod schemas. */
import { createDocument } from "zod-openapi";
import type { z } from "zod";
import { problemResource } from "./resources";
import type { RouteSpec } from "./registry";

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

export function openApiDocument(routes: RouteSpec[]): ReturnType<typeof createDocument> {
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
      operationId: `${spec.method.toLowerCase()}${toOpenApiPath(spec.path).replace(/[^A-Za-z]+(\w)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
      description: `Requires scope \`${spec.scope}\`${spec.site ? `; the site must be on the key's allowlist` : ""}.`,
      security: [{ apiKey: [] }],
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
      securitySchemes: { apiKey: { type: "http", scheme: "bearer", description: "An API key: `Authorization: Bearer wren_…`" } },
    },
    paths: paths as never,
  });
}
