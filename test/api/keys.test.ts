import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client } from "../helpers/http";
import { apiFixture, type ApiFixture } from "./fixtures";

describe("keys, limits and counters", () => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await apiFixture({ WREN_RATE_LIMIT: "1000/60" });
  }, 60_000);
  afterAll(() => f?.stack.stop());

  it("issues a key once, lists it by prefix without the secret, and revokes it at once", async () => {
    const site = await f.makeSite("keys.example");
    const created = await f.admin("POST", "/api/v1/keys", {
      name: "warehouse",
      scopes: ["read:reports"],
      sites: [site.id],
      rate_limit: { requests: 100, per_seconds: 3600 },
    });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^wren_[A-Za-z0-9_-]{43}$/);
    expect(created.body).toMatchObject({
      name: "warehouse",
      prefix: created.body.key.slice(0, 11),
      scopes: ["read:reports"],
      sites: [site.id],
      rate_limit: { requests: 100, per_seconds: 3600 },
      last_used_at: null,
    });

    const listed = (await f.admin("GET", "/api/v1/keys")).body.keys.find((k: { id: string }) => k.id === created.body.id);
    expect(listed.key).toBeUndefined();
    expect(JSON.stringify(listed)).not.toContain(created.body.key);
    expect(listed.prefix).toBe(created.body.prefix);

    const reporter = client(f.stack.url, created.body.key);
    expect((await reporter("GET", "/api/v1/sites")).status).toBe(403);
    expect((await f.admin("DELETE", `/api/v1/keys/${created.body.id}`)).status).toBe(204);
    const revoked = await reporter("GET", "/api/v1/sites");
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get("www-authenticate")).toContain("invalid_token");
  });

  it("refuses keys for unknown sites and unknown scopes", async () => {
    const unknownSite = await f.admin("POST", "/api/v1/keys", { scopes: ["read:reports"], sites: ["site_nope"] });
    expect(unknownSite.status).toBe(422);
    expect(unknownSite.body.field).toBe("sites.0");
    const unknownScope = await f.admin("POST", "/api/v1/keys", { scopes: ["read:everything"] });
    expect(unknownScope.status).toBe(422);
    expect(unknownScope.body.field).toBe("scopes.0");
  });

  it("counts calls per day and route: a nightly job calling twice shows 2 calls", async () => {
    const nightly = await f.makeKey(["read:sites"]);
    await nightly.call("GET", "/api/v1/sites");
    await nightly.call("GET", "/api/v1/sites");
    await nightly.call("GET", "/api/v1/keys"); // refused (403), still a call
    const usage = await f.admin("GET", `/api/v1/keys/${nightly.id}/usage`);
    const today = new Date().toISOString().slice(0, 10);
    expect(usage.body).toEqual({
      key_id: nightly.id,
      usage: [
        { day: today, route: "GET /api/v1/keys", calls: 1 },
        { day: today, route: "GET /api/v1/sites", calls: 2 },
      ],
    });
    const keyRow = (await f.admin("GET", "/api/v1/keys")).body.keys.find((k: { id: string }) => k.id === nightly.id);
    expect(Date.parse(keyRow.last_used_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("writes no counter per request: last_used_at follows on the limiter's alarm, usage is exact at once", async () => {
    const job = await f.makeKey(["read:sites"]);
    const lastUsed = async (): Promise<string | null> =>
      (await f.admin("GET", "/api/v1/keys")).body.keys.find((k: { id: string }) => k.id === job.id).last_used_at;
    const started = Date.now();
    for (let i = 0; i < 3; i++) expect((await job.call("GET", "/api/v1/sites")).status).toBe(200);
    // The calls wait in the key's RateLimiter; the list does not ask it to write them.
    expect(await lastUsed()).toBeNull();
    const deadline = Date.now() + 30_000;
    while ((await lastUsed()) === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(Date.parse((await lastUsed())!)).toBeGreaterThanOrEqual(started - 1000);

    // Two more calls are not written yet; the usage route has them written first, once each.
    await job.call("GET", "/api/v1/sites");
    expect((await job.call("GET", "/api/v1/sites/site_nope")).status).toBe(403); // refused, still a call
    const today = new Date().toISOString().slice(0, 10);
    const exact = [
      { day: today, route: "GET /api/v1/sites", calls: 4 },
      { day: today, route: "GET /api/v1/sites/:id", calls: 1 },
    ];
    expect((await f.admin("GET", `/api/v1/keys/${job.id}/usage`)).body.usage).toEqual(exact);
    // Asking again writes nothing twice.
    expect((await f.admin("GET", `/api/v1/keys/${job.id}/usage`)).body.usage).toEqual(exact);
    expect((await f.admin("GET", "/api/v1/keys/key_nope/usage")).status).toBe(404);
  }, 45_000);

  it("enforces a per-key limit with 429, Retry-After and RateLimit headers on every answer", async () => {
    const limited = await f.makeKey(["read:sites"], null, { rate_limit: { requests: 3, per_seconds: 60 } });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await limited.call("GET", "/api/v1/sites");
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBe("3");
      expect(res.headers.get("ratelimit-policy")).toBe("3;w=60");
      remaining.push(res.headers.get("ratelimit-remaining")!);
    }
    expect(remaining).toEqual(["2", "1", "0"]);
    const refused = await limited.call("GET", "/api/v1/sites");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(20);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    // Another key is not affected.
    expect((await f.admin("GET", "/api/v1/sites")).status).toBe(200);
    // The default limit applies to keys without their own.
    const defaulted = await f.admin("GET", "/api/v1/sites");
    expect(defaulted.headers.get("ratelimit-limit")).toBe("1000");
  });

  it("401 without a key or with a malformed one, before anything else", async () => {
    const anonymous = client(f.stack.url);
    const none = await anonymous("GET", "/api/v1/sites");
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ status: 401, field: "authorization" });
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="wren"');
    expect((await client(f.stack.url, "not-a-key")("GET", "/api/v1/sites")).status).toBe(401);
    expect((await client(f.stack.url, `wren_${"A".repeat(43)}`)("GET", "/api/v1/sites")).status).toBe(401);
  });

  it("GET /api/v1/keys/current describes the calling key to any key, and to no one else", async () => {
    const site = await f.makeSite("current.example");
    const reader = await f.makeKey(["read:reports"], [site.id]);
    const me = await reader.call("GET", "/api/v1/keys/current");
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      id: reader.id,
      name: expect.stringMatching(/^test /),
      prefix: reader.key.slice(0, 11),
      scopes: ["read:reports"],
      sites: [site.id],
      rate_limit: null,
      created_at: expect.any(String),
      last_used_at: null,
    });
    expect(JSON.stringify(me.body)).not.toContain(reader.key);
    const admin = await f.admin("GET", "/api/v1/keys/current");
    expect(admin.body).toMatchObject({ scopes: ["admin"], sites: null });
    expect((await client(f.stack.url)("GET", "/api/v1/keys/current")).status).toBe(401);
    expect((await f.admin("DELETE", `/api/v1/keys/${reader.id}`)).status).toBe(204);
    const revoked = await reader.call("GET", "/api/v1/keys/current");
    expect(revoked.status).toBe(401);
    expect(revoked.body.field).toBe("authorization");
  });
});
