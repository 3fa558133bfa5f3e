/**
 * The OpenAPI document, built from the route table in Node (no stack needed): its shape, and
 * operation ids that are unique, hand-named and stable — generated clients call routes by
 * them, so renaming one is a breaking change this test makes deliberate. The e2e stack test
 * checks that the running service serves the same ids; responses.test.ts checks the running
 * service's answers against the document. Typechecked with the workers' types
 * (test/contract/tsconfig.json), since it loads the api worker's route table.
 */
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../worker/api/openapi";
import { apiRoutes } from "../../worker/api/routes/index";
import {
  FRONT_DOOR_OPERATION_IDS,
  OPERATION_IDS,
  PUBLIC_OPERATIONS,
  ROUTE_OPERATION_IDS,
  SESSION_OPERATIONS,
  operationIdsOf,
  operationsOf,
} from "./operation-ids";

const doc = openApiDocument(apiRoutes) as any;

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 with the shared schemas, the API-key and s2s-token schemes", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes).toEqual({
      apiKey: { type: "http", scheme: "bearer", description: expect.any(String) },
      sessionCookie: { type: "apiKey", in: "cookie", name: "wren_session", description: expect.any(String) },
      siteToken: { type: "apiKey", in: "header", name: "X-Service-Token", description: expect.any(String) },
    });
    expect(Object.keys(doc.components.schemas).sort()).toEqual(
      expect.arrayContaining(["ApiKey", "Goal", "KeyUsage", "NewApiKey", "Problem", "SessionDay", "Site", "SiteVerification"]),
    );
    const create = doc.paths["/api/v1/sites"].post;
    expect(create.requestBody.content["application/json"].schema.required).toEqual(["name", "domain"]);
    expect(create.requestBody.content["application/json"].schema.additionalProperties).toBe(false);
    expect(create.responses["201"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Site" });
    expect(create.responses["422"]).toEqual({ $ref: "#/components/responses/KeyUnprocessableContent" });
    expect(doc.components.responses.KeyUnprocessableContent.content).toEqual({
      "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } },
    });
    const goals = doc.paths["/api/v1/sites/{id}/goals"].post;
    expect(goals.parameters).toEqual([expect.objectContaining({ in: "path", name: "id", required: true })]);
    expect(goals.requestBody.content["application/json"].schema.properties.kind.enum).toEqual([
      "page",
      "event",
      "time",
      "scroll",
      "outbound",
      "download",
      "not-found",
    ]);
    // match may be left out: the goals on the tracker's own events count all by default.
    expect(goals.requestBody.content["application/json"].schema.required).toEqual(["kind"]);
    const pages = doc.paths["/api/v1/pages"].get.responses["200"].content;
    expect(Object.keys(pages)).toEqual(["application/json", "text/csv", "application/x-ndjson"]);
  });

  it("secures every route with an API key or a session cookie but the signed webhook, sign-in and the collector's paths, and documents the 401", () => {
    for (const [name, op] of operationsOf(doc)) {
      if (PUBLIC_OPERATIONS.includes(name)) {
        expect(op.security, name).toEqual([]);
      } else if (SESSION_OPERATIONS.includes(name)) {
        expect(op.security, name).toEqual([{ sessionCookie: [] }]);
        expect(op.responses["401"], name).toBeDefined();
      } else if (name in ROUTE_OPERATION_IDS) {
        expect(op.security, name).toEqual(name.startsWith("POST /hooks/") ? [] : [{ apiKey: [] }, { sessionCookie: [] }]);
        expect(op.responses["401"], name).toBeDefined();
      } else {
        expect(op.security, name).toEqual(name === "POST /s2s" ? [{ siteToken: [] }] : []);
        expect(op.responses["401"] !== undefined, name).toBe(name === "POST /s2s");
      }
    }
  });

  it("names the server: WREN_PUBLIC_URL when served, else where the document was fetched from", () => {
    expect(doc.servers).toEqual([{ url: "/", description: expect.any(String) }]);
    const served = openApiDocument(apiRoutes, { serverUrl: "https://wren.example.com" }) as any;
    expect(served.servers).toEqual([{ url: "https://wren.example.com", description: expect.any(String) }]);
  });

  it("documents every member a problem can carry, and no other", () => {
    const problem = doc.components.schemas.Problem;
    expect(Object.keys(problem.properties)).toEqual([
      "type",
      "title",
      "status",
      "detail",
      "field",
      "pointer",
      "required_scope",
      "site",
      "registered_by",
    ]);
    expect(problem.required).toEqual(["type", "title", "status", "detail"]);
    expect(problem.additionalProperties).toBe(false);
    expect(doc.paths["/api/v1/keys"].get.responses["403"]).toEqual({ $ref: "#/components/responses/KeyForbidden" });
    expect(doc.components.responses.KeyForbidden.description).toContain("required_scope");
  });

  it("documents the headers each answer carries: RateLimit on a key's, Retry-After, WWW-Authenticate, Link, Allow", () => {
    const rateLimit = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy"];
    const ok = doc.paths["/api/v1/sites"].get.responses["200"].headers;
    expect(Object.keys(ok)).toEqual(["Cache-Control", ...rateLimit]);
    expect(ok["RateLimit-Limit"]).toEqual({ $ref: "#/components/headers/RateLimit-Limit" });
    expect(doc.components.headers["RateLimit-Limit"]).toMatchObject({ required: true, schema: { type: "integer" } });
    const { responses } = doc.components;
    expect(Object.keys(responses.KeyTooManyRequests.headers)).toEqual(["Cache-Control", ...rateLimit, "Retry-After"]);
    expect(Object.keys(responses.KeyUnauthorized.headers)).toEqual(["Cache-Control", "WWW-Authenticate"]);
    expect(responses.KeyServiceUnavailable.headers["Retry-After"]).toEqual({ $ref: "#/components/headers/Retry-After" });
    expect(responses.KeyServiceUnavailable.headers["RateLimit-Limit"].required).toBe(false);
    expect(Object.keys(responses.MethodNotAllowed.headers)).toEqual(["Cache-Control", "Allow"]);
    const pages = doc.paths["/api/v1/pages"].get.responses["200"].headers;
    expect(pages.Link).toMatchObject({ required: false });
    expect(pages["Wren-Published-Through"]).toMatchObject({ required: true });
    expect(doc.paths["/api/v1/funnels"].get.responses["200"].headers.Link).toBeUndefined();
  });

  it("documents the collector's paths, /healthz and itself beside the route table", () => {
    const beside = operationsOf(doc).filter(([name]) => !(name in ROUTE_OPERATION_IDS));
    expect(Object.fromEntries(beside.map(([name, op]) => [name, op.operationId]))).toEqual(FRONT_DOOR_OPERATION_IDS);
    const s2s = doc.paths["/s2s"].post;
    expect(s2s.responses["202"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/AcceptedEvents" });
    expect(Object.keys(s2s.responses)).toEqual(["202", "400", "401", "403", "405", "413", "415", "422", "503"]);
    expect(Object.keys(doc.paths["/e"].post.requestBody.content)).toEqual(["text/plain", "application/json"]);
    expect(doc.paths["/api/v1/events"].post.responses["202"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/AcceptedEvents",
    });
    const health = doc.components.schemas.Health;
    expect(health.required).toEqual(["status", "database", "storage", "instance", "publisher"]);
    expect(health.additionalProperties).toEqual({});
    expect(doc.paths["/healthz"].get.responses["503"].headers["Retry-After"]).toEqual({
      $ref: "#/components/headers/Retry-After",
    });
  });

  it("documents the deployment webhook by its signature headers, without a key's refusals", () => {
    const hook = doc.paths["/hooks/deployments/{site}"].post;
    expect(hook.parameters.filter((p: { in: string }) => p.in === "header").map((p: { name: string }) => p.name)).toEqual([
      "X-Hub-Signature-256",
      "X-GitHub-Event",
      "webhook-id",
      "webhook-timestamp",
      "webhook-signature",
    ]);
    expect(hook.parameters).toContainEqual(expect.objectContaining({ in: "path", name: "site", required: true }));
    expect(Object.keys(hook.responses).sort()).toEqual(["200", "201", "202", "400", "401", "405", "413", "415", "422", "503"]);
    expect(hook.responses["201"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Deployment" });
    expect(hook.description).toContain("No API key");
    const create = doc.paths["/api/v1/deployments"].post;
    expect(create.requestBody.content["application/json"].schema.required).toEqual(["site", "version"]);
    expect(create.requestBody.content["application/json"].schema.additionalProperties).toBe(false);
    expect(Object.keys(doc.components.schemas.Deployment.properties).sort()).toEqual([
      "created_at",
      "deployed_at",
      "description",
      "environment",
      "external_id",
      "id",
      "site",
      "smoke",
      "source",
      "url",
      "version",
    ]);
    expect(doc.paths["/api/v1/sites/{id}/deployment-hook"].post.responses["200"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/DeploymentHook",
    });
  });

  it("documents the alert notification Wren sends as a webhook: its signed body, headers and types, Slack's message, retries", () => {
    expect(Object.keys(doc.webhooks)).toEqual(["alertNotification"]);
    const hook = doc.webhooks.alertNotification.post;
    expect(hook.parameters.map((p: { in: string; name: string }) => [p.in, p.name])).toEqual([
      ["header", "webhook-id"],
      ["header", "webhook-timestamp"],
      ["header", "webhook-signature"],
    ]);
    expect(hook.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/AlertNotification" });
    const body = doc.components.schemas.AlertNotification;
    expect(body.required).toEqual(["type", "timestamp", "data"]);
    expect(body.properties.type.enum).toEqual(["alert.firing", "alert.resolved", "alert.test"]);
    expect(Object.keys(body.properties.data.properties)).toEqual(["rule", "state", "figure", "window", "deployment", "links"]);
    expect(body.properties.data.required).toEqual(["rule", "state", "figure", "window", "deployment", "links"]);
    expect(Object.keys(body.properties.data.properties.rule.properties)).toEqual([
      "id",
      "site",
      "kind",
      "metric",
      "goal_id",
      "condition",
      "threshold",
      "window_hours",
      "for_minutes",
      "within_minutes",
    ]);
    expect(hook.description).toContain("`slack`");
    expect(hook.description).toContain("unsigned");
    expect(Object.keys(hook.responses)).toEqual(["2XX", "default"]);
    // Not an operation of the API: no key, no operation id among the routes'.
    expect(hook.security).toEqual([]);
    expect(hook.operationId).toBeUndefined();
  });

  it("declares the 405 every path answers a method it does not list with, Allow included, on every operation", () => {
    expect(doc.components.responses.MethodNotAllowed.headers.Allow).toEqual({ $ref: "#/components/headers/Allow" });
    const operations = operationsOf(doc);
    expect(operations.length).toBe(Object.keys(OPERATION_IDS).length);
    for (const [name, op] of operations)
      expect(op.responses["405"], name).toEqual({ $ref: "#/components/responses/MethodNotAllowed" });
  });

  it("describes every tag its operations and webhooks use at the top level, and no other", () => {
    const used = new Set([
      ...operationsOf(doc).flatMap(([, op]) => op.tags as string[]),
      ...Object.values(doc.webhooks).flatMap((item: any) => Object.values(item).flatMap((op: any) => op.tags as string[])),
    ]);
    expect(doc.tags.map((t: { name: string }) => t.name).sort()).toEqual([...used].sort());
    for (const tag of doc.tags) expect(tag.description, tag.name).toMatch(/\w{3}/);
  });

  it("describes a beacon sent as text/plain as a string of Beacon JSON, which a validating proxy takes", () => {
    const { content } = doc.paths["/e"].post.requestBody;
    expect(content["text/plain"].schema).toEqual({
      type: "string",
      contentMediaType: "application/json",
      contentSchema: { $ref: "#/components/schemas/Beacon" },
      description: expect.any(String),
    });
    expect(content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Beacon" });
  });

  it("has only patterns every JSON Schema validator reads alike: no Unicode property escapes, the check named instead", () => {
    const patterns: string[] = [];
    JSON.stringify(doc, (key, value) => {
      if (key === "pattern" && typeof value === "string") patterns.push(value);
      return value;
    });
    expect(patterns.length).toBeGreaterThan(10);
    for (const pattern of patterns) {
      expect(pattern).not.toMatch(/\\[pP]\{/);
      // Read alike with and without JavaScript's Unicode mode (as by ajv, Prism, Python's re).
      expect(() => new RegExp(pattern), pattern).not.toThrow();
      expect(() => new RegExp(pattern, "u"), pattern).not.toThrow();
    }
    const fields = doc.paths["/api/v1/deployments"].post.requestBody.content["application/json"].schema.properties;
    expect(fields.version).not.toHaveProperty("pattern");
    expect(fields.version.description).toContain(
      "Checked by the server: must be a commit SHA, tag or build number (1–128 printable characters, no spaces).",
    );
    expect(fields.environment.description).toContain("Checked by the server: must be printable text (1–64 characters).");
    expect(fields.external_id.description).toContain("Checked by the server: must be printable text (1–200 characters).");
  });

  it("names every operation by hand: unique, stable ids", () => {
    const ids = operationIdsOf(doc);
    expect(ids).toEqual(OPERATION_IDS);
    expect(new Set(Object.values(ids)).size).toBe(Object.keys(ids).length);
    for (const id of Object.values(ids))
      expect(id).toMatch(/^(create|list|get|head|update|delete|revoke|rotate|record|test|preflight)[A-Z][A-Za-z]+$/);
  });

  it("declares each route once, with its operation id in the route table", () => {
    expect(apiRoutes.map((r) => r.operationId).sort()).toEqual(Object.values(ROUTE_OPERATION_IDS).sort());
    expect(apiRoutes.filter((r) => r.auth !== "key").map((r) => [r.operationId, r.auth])).toEqual([
      ["recordDeploymentWebhook", "webhook-signature"],
      ["getAuthMethods", "public"],
      ["createPasskeyRegistrationOptions", "public"],
      ["createPasskey", "public"],
      ["createPasskeySignInOptions", "public"],
      ["createSessionWithPasskey", "public"],
      ["getSession", "session"],
      ["deleteSession", "session"],
      ["listAccountSessions", "session"],
      ["revokeAccountSession", "session"],
    ]);
  });
});
