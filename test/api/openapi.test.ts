import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "./fixtures";

describe("GET /api/v1/openapi.json", () => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await apiFixture();
  }, 60_000);
  afterAll(() => f?.stack.stop());

  it("is an OpenAPI 3.1 document generated from the route schemas, open without a key", async () => {
    const res = await fetch(`${f.stack.url}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: "http", scheme: "bearer", description: expect.any(String) });
    expect(Object.keys(doc.components.schemas).sort()).toEqual(
      expect.arrayContaining(["ApiKey", "Goal", "KeyUsage", "NewApiKey", "Problem", "Session", "Site", "SiteVerification"]),
    );
    const create = doc.paths["/api/v1/sites"].post;
    expect(create.requestBody.content["application/json"].schema.required).toEqual(["name", "domain"]);
    expect(create.requestBody.content["application/json"].schema.additionalProperties).toBe(false);
    expect(create.responses["201"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Site" });
    expect(create.responses["422"].content["application/problem+json"].schema).toEqual({ $ref: "#/components/schemas/Problem" });
    const goals = doc.paths["/api/v1/sites/{id}/goals"].post;
    expect(goals.parameters).toEqual([expect.objectContaining({ in: "path", name: "id", required: true })]);
    expect(goals.requestBody.content["application/json"].schema.properties.kind.enum).toEqual(["page", "event", "time", "scroll"]);
    const pages = doc.paths["/api/v1/pages"].get.responses["200"].content;
    expect(Object.keys(pages)).toEqual(["application/json", "text/csv", "application/x-ndjson"]);
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(ops)) {
        expect(op.security, `${method} ${path}`).toEqual([{ apiKey: [] }]);
        expect(op.responses["401"], `${method} ${path}`).toBeDefined();
        expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z]+[A-Za-z]+$/);
      }
    }
  });
});
