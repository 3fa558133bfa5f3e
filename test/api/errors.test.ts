/**
 * Bad input on every writing route: a 4xx problem+json naming the field, never a 5xx, and
 * nothing written (the tables' row counts are compared before and after).
 */
import { createClient } from "@libsql/client";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "./fixtures";

const TABLES = ["sites", "goals", "api_keys", "conversions", "events"];

describe("bad input changes nothing", () => {
  let f: ApiFixture;
  let siteId: string;
  let counts: () => Promise<Record<string, number>>;

  beforeAll(async () => {
    f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
    siteId = (await f.makeSite("errors.example")).id;
    const db = createClient({ url: `file:${join(f.stack.dataDir, "wren.db")}` });
    counts = async () => {
      const out: Record<string, number> = {};
      for (const t of TABLES) out[t] = Number((await db.execute(`SELECT count(*) AS n FROM ${t}`)).rows[0]!.n);
      return out;
    };
  }, 60_000);
  afterAll(() => f?.stack.stop());

  const json = { "content-type": "application/json" };
  const cases: { name: string; method: string; path: () => string; body: string; headers?: Record<string, string>; status: number; field: string }[] = [
    { name: "malformed JSON", method: "POST", path: () => "/api/v1/sites", body: '{"name": "x", "domain": ', headers: json, status: 400, field: "body" },
    { name: "wrong content type", method: "POST", path: () => "/api/v1/sites", body: "name=x&domain=y.example", headers: { "content-type": "application/x-www-form-urlencoded" }, status: 415, field: "content-type" },
    { name: "no content type", method: "POST", path: () => "/api/v1/sites", body: '{"name":"x","domain":"y.example"}', headers: { "content-type": "" }, status: 415, field: "content-type" },
    { name: "unknown field", method: "POST", path: () => "/api/v1/sites", body: '{"name":"x","domain":"y.example","owner":"me"}', headers: json, status: 422, field: "owner" },
    { name: "wrong type", method: "POST", path: () => "/api/v1/sites", body: '{"name":["x"],"domain":"y.example"}', headers: json, status: 422, field: "name" },
    { name: "missing field", method: "POST", path: () => "/api/v1/sites", body: '{"name":"x"}', headers: json, status: 422, field: "domain" },
    { name: "absurd length", method: "POST", path: () => "/api/v1/sites", body: JSON.stringify({ name: "x".repeat(5000), domain: "y.example" }), headers: json, status: 422, field: "name" },
    { name: "oversize body", method: "POST", path: () => "/api/v1/sites", body: JSON.stringify({ name: "x", domain: "y.example", pad: "p".repeat(70_000) }), headers: json, status: 413, field: "body" },
    { name: "JSON that is not an object", method: "POST", path: () => "/api/v1/sites", body: "[1,2,3]", headers: json, status: 422, field: "body" },
    { name: "not UTF-8", method: "POST", path: () => "/api/v1/sites", body: "\uFFFE", headers: json, status: 400, field: "body" },
    { name: "goal with bad kind", method: "POST", path: () => `/api/v1/sites/${siteId}/goals`, body: '{"kind":"funnel","match":"/x"}', headers: json, status: 422, field: "kind" },
    { name: "goal threshold as string", method: "POST", path: () => `/api/v1/sites/${siteId}/goals`, body: '{"kind":"time","match":"/x","threshold":"30"}', headers: json, status: 422, field: "threshold" },
    { name: "goal on a malformed site id", method: "POST", path: () => "/api/v1/sites/not-a-site/goals", body: '{"kind":"page","match":"/x"}', headers: json, status: 400, field: "id" },
    { name: "key with a negative limit", method: "POST", path: () => "/api/v1/keys", body: '{"scopes":["admin"],"rate_limit":{"requests":-1,"per_seconds":60}}', headers: json, status: 422, field: "rate_limit.requests" },
    { name: "key with scopes as a string", method: "POST", path: () => "/api/v1/keys", body: '{"scopes":"admin"}', headers: json, status: 422, field: "scopes" },
    { name: "event without a site", method: "POST", path: () => "/api/v1/events", body: '{"goal_id":"goal_x"}', headers: json, status: 422, field: "site" },
    { name: "event with malformed JSON", method: "POST", path: () => "/api/v1/events", body: "{", headers: json, status: 400, field: "body" },
    { name: "event with oversize body", method: "POST", path: () => "/api/v1/events", body: JSON.stringify({ site: "site_x", pad: "p".repeat(300_000) }), headers: json, status: 413, field: "body" },
    // Read to its end by the api before it answers, so the front door relays the 413 (not a failed forward: 503).
    { name: "body just under the front door's bound", method: "POST", path: () => "/api/v1/sites", body: JSON.stringify({ name: "x", pad: "p".repeat(1_900_000) }), headers: json, status: 413, field: "body" },
    // Refused by the front door itself.
    { name: "body over the front door's bound", method: "POST", path: () => "/api/v1/sites", body: JSON.stringify({ name: "x", pad: "p".repeat(2_200_000) }), headers: json, status: 413, field: "body" },
    // Text the database cannot keep as sent (a lone surrogate, NUL) is refused before any write.
    { name: "site name with a lone surrogate", method: "POST", path: () => "/api/v1/sites", body: '{"name":"x\\ud800y","domain":"lone.example"}', headers: json, status: 422, field: "name" },
    { name: "goal name with a lone surrogate", method: "POST", path: () => `/api/v1/sites/${siteId}/goals`, body: '{"name":"\\udc00","kind":"page","match":"/x"}', headers: json, status: 422, field: "name" },
    { name: "key name with a lone surrogate", method: "POST", path: () => "/api/v1/keys", body: '{"name":"k\\ud83d","scopes":["read:reports"]}', headers: json, status: 422, field: "name" },
    { name: "site rename with NUL", method: "PATCH", path: () => `/api/v1/sites/${siteId}`, body: '{"name":"a\\u0000b"}', headers: json, status: 422, field: "name" },
    { name: "event id with NUL", method: "POST", path: () => "/api/v1/events", body: '{"site":"SITE","goal_id":"goal_x","id":"order\\u00001"}', headers: json, status: 422, field: "id" },
    { name: "batched event name with a lone surrogate", method: "POST", path: () => "/api/v1/events", body: '{"site":"SITE","events":[{"name":"ok"},{"name":"\\ud800"}]}', headers: json, status: 422, field: "events.1.name" },
    { name: "query value with NUL", method: "GET", path: () => `/api/v1/deployments?site=${siteId}%00`, body: "", status: 400, field: "site" },
    { name: "PATCH with unknown field", method: "PATCH", path: () => `/api/v1/sites/${siteId}`, body: '{"name":"ok","allowlist":["evil.example"]}', headers: json, status: 422, field: "allowlist" },
  ];

  for (const c of cases) {
    it(`${c.name} → ${c.status} naming "${c.field}", nothing written`, async () => {
      const before = await counts();
      const headers = Object.fromEntries(Object.entries(c.headers ?? {}).filter(([, v]) => v !== ""));
      const body = c.name === "not UTF-8" ? new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) : c.method === "GET" ? undefined : c.body.replace("SITE", siteId);
      const response = await fetch(`${f.stack.url}${c.path()}`, {
        method: c.method,
        headers: { authorization: `Bearer ${f.stack.adminKey}`, ...headers },
        body,
      });
      const problem = (await response.json()) as { status: number; title: string; detail: string; field: string };
      expect(response.status).toBe(c.status);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(problem).toMatchObject({ status: c.status, field: c.field });
      expect(problem.title.length).toBeGreaterThan(0);
      expect(problem.detail.length).toBeGreaterThan(0);
      expect(await counts()).toEqual(before);
    });
  }

  it("unknown routes and methods answer 404 problems", async () => {
    const res = await f.admin("GET", "/api/v1/nothing-here");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.body.detail).toBe("No route for GET /api/v1/nothing-here.");
  });
});
