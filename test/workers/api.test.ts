/** The api worker inside workerd, with its Durable Object, against a real libSQL server. */
import { env, exports } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { runRoute } from "../../worker/api/pipeline";
import type { RateLimiter } from "../../worker/api/ratelimit";
import { apiRoutes } from "../../worker/api/routes/index";

const call = (path: string, init?: RequestInit) => exports.default.fetch(new Request(`http://wren.test${path}`, init));

describe("api worker in workerd", () => {
  it("answers /healthz from the database", async () => {
    const response = await call("/healthz");
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; database: string; publisher: { status: string } };
    expect(body).toMatchObject({ status: "ok", database: "ok" });
    // Its first request starts the publisher, whose first run may or may not have ended yet.
    expect(["starting", "current"]).toContain(body.publisher.status);
  });

  it("serves the OpenAPI document and problem+json 404s", async () => {
    expect((await call("/api/v1/openapi.json")).status).toBe(200);
    const missing = await call("/api/v1/none");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toBe("application/problem+json");
  });

  it("authenticates a key and counts the call", async () => {
    const headers = { authorization: `Bearer ${inject("adminKey")}` };
    const response = await call("/api/v1/keys", { headers });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { keys: { name: string }[] };
    expect(body.keys.map((k) => k.name)).toContain("workers test admin");
    expect(response.headers.get("ratelimit-limit")).toBe("600");
    expect((await call("/api/v1/keys", { headers: { authorization: "Bearer wren_nope" } })).status).toBe(401);
  });
});

describe("the pipeline", () => {
  it("authenticates by the route's auth kind, and will not mount a route whose kind has no authenticator", () => {
    const [route] = apiRoutes;
    expect(route!.auth).toBe("key");
    expect(typeof runRoute(route!)).toBe("function");
    expect(() => runRoute({ ...route!, auth: "site-token" } as typeof route)).toThrow('createKey: no authenticator for auth kind "site-token"');
  });
});

describe("RateLimiter durable object", () => {
  it("refills at requests/perSeconds and refuses when empty", async () => {
    const ns = (env as unknown as { RATE_LIMITER: DurableObjectNamespace<RateLimiter> }).RATE_LIMITER;
    const stub = ns.get(ns.idFromName("bucket-test"));
    const limit = { requests: 2, perSeconds: 10 };
    const counted = { keyId: "key_buckettest", route: "GET /api/v1/sites" };
    const t0 = 1_000_000;
    expect(await stub.take(limit, counted, t0)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await stub.take(limit, counted, t0)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 10 });
    expect(await stub.take(limit, counted, t0)).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 5 });
    // 5 s later one token has come back; a minute later the bucket is full again.
    expect(await stub.take(limit, counted, t0 + 5_000)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await stub.take(limit, counted, t0 + 60_000)).toMatchObject({ allowed: true, remaining: 1 });
  });
});
