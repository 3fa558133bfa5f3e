import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { deploymentHookBody, goalCreateBody, keyCreateBody, siteCreateBody } from "../../worker/domain/schemas";
import { beaconBody } from "../../worker/collector/schemas";
import { describeIssue } from "../../worker/lib/issues";
import { MAX_PATTERN_LENGTH, MAX_PATTERN_STARS } from "../../worker/lib/glob";
import { pagesQuery, vitalsQuery } from "../../worker/reports/schemas";

function issue(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error("expected a failure");
  return describeIssue(result.error, input);
}

describe("siteCreateBody", () => {
  it("normalises the domain", () => {
    expect(siteCreateBody.parse({ name: " Shop ", domain: "Shop.Example" })).toEqual({ name: "Shop", domain: "shop.example" });
  });
  it("names the field at fault", () => {
    expect(issue(siteCreateBody, { name: "x", domain: "http://a.b" })).toEqual({
      field: "domain",
      message: "domain must be a hostname, without a scheme",
    });
    expect(issue(siteCreateBody, { name: "x", domain: "a.b", extra: 1 })).toEqual({
      field: "extra",
      message: 'unknown field "extra"',
    });
    expect(issue(siteCreateBody, { name: 5, domain: "a.b" }).field).toBe("name");
    expect(issue(siteCreateBody, { name: "x".repeat(101), domain: "a.b" }).field).toBe("name");
  });
});

describe("describeIssue", () => {
  it("says a missing field is required, and lists a discriminator's values", () => {
    expect(issue(siteCreateBody, { domain: "a.b" })).toEqual({ field: "name", message: "is required" });
    expect(issue(siteCreateBody, [])).toEqual({ field: "body", message: "must be a JSON object" });
    const beacon = { site: "site_a", session: "a".repeat(22), events: [{ type: "click", path: "/" }] };
    expect(issue(beaconBody, beacon)).toEqual({
      field: "events.0.type",
      message: "must be one of pageview, event, engagement, vital",
    });
    expect(issue(beaconBody, { ...beacon, events: [{ type: "vital", path: "/", metric: "LCP", value: Infinity }] })).toEqual({
      field: "events.0.value",
      message: "must be a finite number",
    });
  });
});

describe("goalCreateBody", () => {
  it("fills the defaults", () => {
    expect(goalCreateBody.parse({ kind: "page", match: "/thanks" })).toEqual({
      kind: "page",
      match: "/thanks",
      name: "page: /thanks",
      threshold: 0,
      purpose: null,
      currency: null,
    });
    expect(goalCreateBody.parse({ kind: "event", match: "purchase", revenue: { currency: "EUR" } })).toMatchObject({
      currency: "EUR",
    });
  });
  it.each([
    [{ kind: "time", match: "/pricing" }, "threshold"],
    [{ kind: "scroll", match: "/blog/*", threshold: 101 }, "threshold"],
    [{ kind: "page", match: "thanks" }, "match"],
    [{ kind: "event", match: "sign<up>" }, "match"],
    [{ kind: "page", match: "/x", threshold: 5 }, "threshold"],
    [{ kind: "funnel", match: "/x" }, "kind"],
  ])("refuses %j on %s", (body, field) => {
    expect(issue(goalCreateBody, body).field).toBe(field);
  });
  it("creates the goals on the tracker's own events in one step: outbound, download and not-found count all when match is left out", () => {
    expect(goalCreateBody.parse({ kind: "outbound" })).toEqual({
      kind: "outbound",
      match: "*",
      name: "outbound: *",
      threshold: 0,
      purpose: null,
      currency: null,
    });
    expect(goalCreateBody.parse({ kind: "download" })).toEqual({
      kind: "download",
      match: "*",
      name: "download: *",
      threshold: 0,
      purpose: null,
      currency: null,
    });
    expect(goalCreateBody.parse({ kind: "not-found" })).toEqual({
      kind: "not-found",
      match: "/*",
      name: "not-found: /*",
      threshold: 0,
      purpose: null,
      currency: null,
    });
    // Extensions as written become their one stored form, so the same goal is found again.
    expect(goalCreateBody.parse({ kind: "download", match: ".PDF, zip  csv" }).match).toBe("pdf zip csv");
    expect(goalCreateBody.parse({ kind: "not-found", match: "/docs/*" }).match).toBe("/docs/*");
  });
  it.each([
    [{ kind: "page" }, "match"],
    [{ kind: "event" }, "match"],
    [{ kind: "outbound", match: "https://example.com" }, "match"],
    [{ kind: "download", match: "pdf/zip" }, "match"],
    [{ kind: "download", match: "*.pdf" }, "match"],
    [{ kind: "not-found", match: "docs" }, "match"],
    [{ kind: "download", match: "pdf", threshold: 3 }, "threshold"],
    [{ kind: "outbound", threshold: 1 }, "threshold"],
  ])("refuses %j on %s", (body, field) => {
    expect(issue(goalCreateBody, body).field).toBe(field);
  });
  it("bounds a pattern's length and stars", () => {
    expect(goalCreateBody.parse({ kind: "page", match: `/${"a".repeat(MAX_PATTERN_LENGTH - 1)}` }).match).toHaveLength(
      MAX_PATTERN_LENGTH,
    );
    expect(issue(goalCreateBody, { kind: "page", match: `/${"a".repeat(MAX_PATTERN_LENGTH)}` }).field).toBe("match");
    const stars = (n: number) => `/${"*a".repeat(n)}`;
    expect(goalCreateBody.parse({ kind: "time", match: stars(MAX_PATTERN_STARS), threshold: 5 }).match).toBe(
      stars(MAX_PATTERN_STARS),
    );
    expect(issue(goalCreateBody, { kind: "scroll", match: stars(MAX_PATTERN_STARS + 1), threshold: 5 })).toEqual({
      field: "match",
      message: `may have at most ${MAX_PATTERN_STARS} * wildcards`,
    });
  });
});

describe("keyCreateBody", () => {
  it("takes scopes, sites and a rate limit", () => {
    expect(
      keyCreateBody.parse({
        scopes: ["read:reports"],
        sites: ["site_a", "site_b"],
        rate_limit: { requests: 10, per_seconds: 60 },
      }),
    ).toEqual({
      name: "api key",
      scopes: ["read:reports"],
      sites: ["site_a", "site_b"],
      rate_limit: { requests: 10, per_seconds: 60 },
    });
  });
  it("refuses unknown scopes and empty scope lists", () => {
    expect(issue(keyCreateBody, { scopes: ["root"] }).field).toBe("scopes.0");
    expect(issue(keyCreateBody, { scopes: [] }).field).toBe("scopes");
    expect(issue(keyCreateBody, { scopes: ["admin"], sites: ["nope"] }).field).toBe("sites.0");
  });
});

describe("page filters", () => {
  const query = (page: string) => ({ site: "site_a", page });
  it.each([pagesQuery, vitalsQuery])("bound the pattern's length and stars", (schema) => {
    expect(schema.safeParse(query(`/${"*a".repeat(MAX_PATTERN_STARS)}`)).success).toBe(true);
    expect(issue(schema, query(`/${"*a".repeat(MAX_PATTERN_STARS + 1)}`))).toEqual({
      field: "page",
      message: `may have at most ${MAX_PATTERN_STARS} * wildcards`,
    });
    expect(schema.safeParse(query(`/${"a".repeat(MAX_PATTERN_LENGTH - 1)}`)).success).toBe(true);
    expect(issue(schema, query(`/${"a".repeat(MAX_PATTERN_LENGTH)}`)).field).toBe("page");
  });
});

// The OpenAPI document leaves these Unicode patterns out (api/openapi.ts); the server checks them all the same.
describe("deployment fields", () => {
  const accepts = (fields: Record<string, unknown>) => deploymentHookBody.safeParse({ version: "v1", ...fields }).success;

  it("takes a version of letters, digits, punctuation and symbols in any script, and nothing else", () => {
    for (const version of ["3f9c2ab", "v1.2.3-rc.1+build.5", "release/2026-11", "版本1", "ünïcødé", "€5", "a".repeat(128)])
      expect(accepts({ version }), version).toBe(true);
    for (const version of ["", "v 1", "v\t1", "v\u00a01", "v\u200b1", "v\u00001", "a".repeat(129)])
      expect(accepts({ version }), JSON.stringify(version)).toBe(false);
  });

  it("takes printable text as environment and external_id, without control or format characters or line separators", () => {
    for (const environment of ["production", "staging eu-1", "Prüfung", "café ☕", " trimmed "])
      expect(accepts({ environment }), environment).toBe(true);
    for (const environment of ["", "   ", "a\nb", "a\u0007b", "a\u200bb", "a\u2028b", "a\u2029b", "a".repeat(65)])
      expect(accepts({ environment }), JSON.stringify(environment)).toBe(false);
    expect(accepts({ external_id: "ci:run 42" })).toBe(true);
    expect(accepts({ external_id: "a\u200eb" })).toBe(false);
  });

  it("takes a description of printable text with tabs and line breaks", () => {
    expect(accepts({ description: "Fixes:\n\t- the header\r\n" })).toBe(true);
    expect(accepts({ description: "a\u0000b" })).toBe(false);
    expect(accepts({ description: "a\u200bb" })).toBe(false);
    expect(accepts({ description: "a\u2028b" })).toBe(true);
  });
});
