/**
 * The dashboard's generated API types (scripts/generate-api-types.ts) keep a request field with
 * a default optional, as the API takes it: a client may leave out what the server fills in
 * (`format`, `enabled`, `kind`). Checked twice: in the generated text, and at type level — this
 * file is typechecked (test/contract/tsconfig.json, `npm run typecheck`) against the types.
 */
import { describe, expect, it } from "vitest";
import { apiTypesSource } from "../../scripts/generate-api-types";
import type { operations } from "../../dashboard/src/api/openapi";

type CreateAlertBody = operations["createAlertRule"]["requestBody"]["content"]["application/json"];

/** The smallest rule the API takes: every defaulted field left out. Compiles only while they are optional. */
const minimalRule = {
  site: "site_example",
  destinations: [{ url: "https://hooks.example.com/wren" }],
} satisfies CreateAlertBody;

describe("the dashboard's API types", () => {
  it("leave out of a request body what has a default: the create-alert body's kind, enabled and destination format", async () => {
    const source = await apiTypesSource();
    const start = source.indexOf("AlertRuleCreate: {");
    const body = source.slice(start, source.indexOf("\n        };", start));
    expect(body).toMatch(/\n\s+kind\?: "threshold" \| "deployment_without_smoke";/);
    expect(body).toMatch(/\n\s+enabled\?: boolean;/);
    expect(body).toMatch(/\n\s+format\?: "standard" \| "slack";/);
    expect(body).toMatch(/\n\s+site: string;/);
    expect(Object.keys(minimalRule)).toEqual(["site", "destinations"]);
  });
});
