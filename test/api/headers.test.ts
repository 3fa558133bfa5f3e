/**
 * Response headers on the real stack: the dashboard's strict Content-Security-Policy and
 * companions on every file it serves (the index.html fallback included), and
 * `Cache-Control: no-store` on every answer that carries a key or an s2s token, on every
 * problem, and on the redirect and OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client } from "../helpers/http";
import { apiFixture, type ApiFixture } from "./fixtures";

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

let f: ApiFixture;
beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
}, 60_000);
afterAll(() => f?.stack.stop());

function securityHeadersOf(response: Response) {
  return {
    status: response.status,
    csp: response.headers.get("content-security-policy"),
    nosniff: response.headers.get("x-content-type-options"),
    referrer: response.headers.get("referrer-policy"),
    frame: response.headers.get("x-frame-options"),
  };
}

describe("dashboard headers", () => {
  it("every dashboard file, the fallback and deep links carry the strict CSP and its companions", async () => {
    const expected = { status: 200, csp: CSP, nosniff: "nosniff", referrer: "no-referrer", frame: "DENY" };
    for (const [path, type] of [
      ["/dashboard", "text/html; charset=utf-8"],
      ["/dashboard/", "text/html; charset=utf-8"],
      ["/dashboard/index.html", "text/html; charset=utf-8"],
      ["/dashboard/sites/x", "text/html; charset=utf-8"],
      ["/dashboard/missing.js", "text/html; charset=utf-8"],
      ["/dashboard/app.js", "text/javascript; charset=utf-8"],
      ["/dashboard/style.css", "text/css; charset=utf-8"],
    ]) {
      for (const method of ["GET", "HEAD"]) {
        const response = await fetch(`${f.stack.url}${path}`, { method });
        await response.arrayBuffer();
        expect({ path, method, type: response.headers.get("content-type"), ...securityHeadersOf(response) }).toEqual({
          path,
          method,
          type,
          ...expected,
        });
      }
    }
  });

  it("the page it serves needs nothing the policy forbids: no inline script or style, one script and one stylesheet of its own", async () => {
    const html = await (await fetch(`${f.stack.url}/dashboard/`)).text();
    expect([...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual(['<script type="module" src="/dashboard/app.js">']);
    // The icon is data: (img-src allows it), so Chromium asks for no /favicon.ico.
    expect([...html.matchAll(/<link\b[^>]*>/g)].map((m) => m[0])).toEqual([
      '<link rel="icon" href="data:," />',
      '<link rel="stylesheet" href="/dashboard/style.css" />',
    ]);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
  });
});

describe("Cache-Control: no-store", () => {
  it("on every answer that carries a key or an s2s token", async () => {
    const key = await f.admin("POST", "/api/v1/keys", { name: "ci", scopes: ["write:sites", "write:events", "read:sites"] });
    expect([key.status, typeof key.body.key, key.headers.get("cache-control")]).toEqual([201, "string", "no-store"]);

    const ci = client(f.stack.url, key.body.key);
    const created = await ci("POST", "/api/v1/sites", { name: "Shop", domain: "headers.example" });
    expect([created.status, typeof created.body.s2s_token, created.headers.get("cache-control")]).toEqual([
      201,
      "string",
      "no-store",
    ]);
    const again = await ci("POST", "/api/v1/sites", { name: "Shop", domain: "headers.example" });
    expect([again.status, again.body.s2s_token, again.headers.get("cache-control")]).toEqual([
      200,
      created.body.s2s_token,
      "no-store",
    ]);

    const rotated = await ci("POST", `/api/v1/sites/${created.body.id}/token`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.s2s_token).not.toBe(created.body.s2s_token);
    expect(rotated.headers.get("cache-control")).toBe("no-store");

    // Reads of the registry never carry the token, and are not cached either.
    for (const path of [`/api/v1/sites/${created.body.id}`, "/api/v1/sites"]) {
      const read = await ci("GET", path);
      expect([read.status, read.headers.get("cache-control"), read.text.includes(rotated.body.s2s_token)]).toEqual([
        200,
        "no-store",
        false,
      ]);
    }
  });

  it("on every problem: 401, 403, 404, 405, and the collector's refused token", async () => {
    const narrow = await f.makeKey(["read:reports"]);
    const site = await f.makeSite("problems.example");
    const answers = [
      await client(f.stack.url)("GET", "/api/v1/sites"),
      await client(f.stack.url, "wren_not-a-real-key-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")("POST", "/api/v1/keys", {}),
      await narrow.call("POST", "/api/v1/keys", { scopes: ["admin"] }),
      await narrow.call("POST", `/api/v1/sites/${site.id}/token`),
      await f.admin("GET", "/api/v1/nothing-here"),
      await f.admin("PUT", "/s2s"),
      await client(f.stack.url)("POST", "/s2s", { goal_id: "goal_x" }, { "x-service-token": `${site.id}.${"A".repeat(43)}` }),
    ];
    expect(answers.map((a) => [a.status, a.headers.get("content-type"), a.headers.get("cache-control")])).toEqual([
      [401, "application/problem+json", "no-store"],
      [401, "application/problem+json", "no-store"],
      [403, "application/problem+json", "no-store"],
      [403, "application/problem+json", "no-store"],
      [404, "application/problem+json", "no-store"],
      [405, "application/problem+json", "no-store"],
      [401, "application/problem+json", "no-store"],
    ]);
  });

  it("on the / redirect and the OpenAPI document", async () => {
    const root = await fetch(`${f.stack.url}/`, { redirect: "manual" });
    expect([root.status, root.headers.get("location"), root.headers.get("cache-control")]).toEqual([
      302,
      "/dashboard/",
      "no-store",
    ]);
    const openapi = await fetch(`${f.stack.url}/api/v1/openapi.json`);
    await openapi.arrayBuffer();
    expect([openapi.status, openapi.headers.get("cache-control")]).toEqual([200, "no-store"]);
  });
});
