import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { goalCreateBody, keyCreateBody, siteCreateBody } from "../../worker/domain/schemas";
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
