/**
 * Least privilege for keys, attacked as a leaked CI key, a squatter and an anonymous prober
 * would: a limited key without a site list reaches only the sites it creates, a registered
 * domain is never handed over, the s2s token goes only to keys that may write events, and the
 * collector's preflight does not tell which domains are registered.
 */
import Database from "libsql";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyMigrations, MIGRATIONS_FOLDER, openDatabase } from "../../cli/database";
import { loadSettings } from "../../cli/settings";
import { BROWSER_UA } from "../collector/helpers";
import { apiFixture, type ApiFixture } from "./fixtures";

let f: ApiFixture;
/** A site the operator registered, and its goal. */
let shop: { id: string; s2s_token: string; domain: string };
let shopGoal: string;

beforeAll(async () => {
  f = await apiFixture();
  shop = await f.makeSite("shop.example");
  shopGoal = (await f.makeGoal(shop.id)).id;
});
afterAll(async () => {
  await f.stack.stop();
});

/** Counts rows straight from the database file (read-only), to prove nothing was written. */
function count(sql: string, ...args: string[]): number {
  const db = new Database(join(f.stack.dataDir, "wren.db"), { readonly: true });
  try {
    return Number((db.prepare(sql).raw(true).get(...args) as [number])[0]);
  } finally {
    db.close();
  }
}

describe("a CI key (write:sites, write:events) created without sites", () => {
  it("cannot touch a site it did not create, and changes nothing trying", async () => {
    const ci = await f.makeKey(["write:sites", "write:events"]);
    const before = (await f.admin("GET", `/api/v1/sites/${shop.id}`)).body;

    const repost = await ci.call("POST", "/api/v1/sites", { name: "mine now", domain: "shop.example" });
    expect(repost.status).toBe(409);
    expect(repost.body.field).toBe("domain");
    expect(repost.text).not.toContain(shop.id);
    expect(repost.text).not.toContain(shop.s2s_token);

    expect((await ci.call("PATCH", `/api/v1/sites/${shop.id}`, { name: "renamed" })).status).toBe(403);
    expect((await ci.call("POST", `/api/v1/sites/${shop.id}/token`)).status).toBe(403);
    expect((await ci.call("DELETE", `/api/v1/sites/${shop.id}`)).status).toBe(403);
    const event = await ci.call("POST", "/api/v1/events", { site: shop.id, goal_id: shopGoal, id: "ci-1" });
    expect(event.status).toBe(403);
    expect(event.body.field).toBe("site");

    expect((await f.admin("GET", `/api/v1/sites/${shop.id}`)).body).toEqual(before);
    expect(count("SELECT count(*) FROM conversions WHERE site_id = ?", shop.id)).toBe(0);
    // The operator's token still works: it was neither rotated nor handed out.
    const s2s = await fetch(`${f.stack.url}/s2s`, {
      method: "POST",
      headers: { "x-service-token": shop.s2s_token, "content-type": "application/json" },
      body: JSON.stringify({ goal_id: shopGoal, id: "owner-1" }),
    });
    expect(s2s.status).toBe(202);
  });

  it("registers its own preview sites, gets their token, and works on them (safe to re-run)", async () => {
    const ci = await f.makeKey(["write:sites", "write:events"]);
    const created = await ci.call("POST", "/api/v1/sites", { name: "PR 1", domain: "pr-1.preview.example" });
    expect(created.status).toBe(201);
    expect(created.body.s2s_token).toMatch(new RegExp(`^${created.body.id}\\.`));
    const again = await ci.call("POST", "/api/v1/sites", { name: "PR 1", domain: "pr-1.preview.example" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: created.body.id, s2s_token: created.body.s2s_token });
    expect((await ci.call("PATCH", `/api/v1/sites/${created.body.id}`, { name: "PR 1 (rebased)" })).status).toBe(200);

    const keys = (await f.admin("GET", "/api/v1/keys")).body.keys;
    expect(keys.find((k: { id: string }) => k.id === ci.id).sites).toEqual([created.body.id]);
  });
});

describe("the s2s token", () => {
  it("goes only to keys that also hold write:events", async () => {
    const sitesOnly = await f.makeKey(["write:sites"]);
    const created = await sitesOnly.call("POST", "/api/v1/sites", { name: "No token", domain: "no-token.example" });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty("s2s_token");
    const again = await sitesOnly.call("POST", "/api/v1/sites", { name: "No token", domain: "no-token.example" });
    expect(again.status).toBe(200);
    expect(again.body).not.toHaveProperty("s2s_token");
    const rotated = await sitesOnly.call("POST", `/api/v1/sites/${created.body.id}/token`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ id: created.body.id });
    // The admin (who holds every scope) still gets it.
    const adminRotated = await f.admin("POST", `/api/v1/sites/${created.body.id}/token`);
    expect(adminRotated.body.s2s_token).toMatch(new RegExp(`^${created.body.id}\\.`));
  });
});

describe("a domain a limited key registered first (squatting)", () => {
  let squatter: Awaited<ReturnType<ApiFixture["makeKey"]>>;
  let squatted: { id: string; s2s_token: string };

  beforeAll(async () => {
    squatter = await f.makeKey(["write:sites", "write:events"], null, { name: "squatter" });
    squatted = (await squatter.call("POST", "/api/v1/sites", { name: "Real Shop", domain: "realshop.example" })).body;
  });

  it("is not handed to an admin who posts it: 409 naming the site and the key that holds it", async () => {
    const res = await f.admin("POST", "/api/v1/sites", { name: "Real Shop", domain: "realshop.example" });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      field: "domain",
      site: squatted.id,
      registered_by: { id: squatter.id, name: "squatter", revoked: false },
    });
    expect(res.text).not.toContain(squatted.s2s_token);
  });

  it("is not handed to a key granted every site either, and that key learns no id", async () => {
    const everySite = await f.makeKey(["write:sites", "write:events"], ["*"]);
    const res = await everySite.call("POST", "/api/v1/sites", { name: "Real Shop", domain: "realshop.example" });
    expect(res.status).toBe(409);
    expect(res.text).not.toContain(squatted.id);
    expect(res.body).not.toHaveProperty("registered_by");
  });

  it("goes to a key an admin explicitly gave that site, and an admin can take it over by deleting it", async () => {
    const granted = await f.makeKey(["write:sites", "write:events"], [squatted.id]);
    const res = await granted.call("POST", "/api/v1/sites", { name: "Real Shop", domain: "realshop.example" });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(squatted.id);

    expect((await f.admin("DELETE", `/api/v1/sites/${squatted.id}`)).status).toBe(204);
    const taken = await f.admin("POST", "/api/v1/sites", { name: "Real Shop", domain: "realshop.example" });
    expect(taken.status).toBe(201);
    expect((await squatter.call("PATCH", `/api/v1/sites/${taken.body.id}`, { name: "gotcha" })).status).toBe(403);
  });

  it("an operator's site is re-posted as before: 200 for an admin and for a key granted every site", async () => {
    expect((await f.admin("POST", "/api/v1/sites", { name: "Shop", domain: "shop.example" })).body.id).toBe(shop.id);
    const everySite = await f.makeKey(["write:sites", "write:events"], "*" as never);
    const res = await everySite.call("POST", "/api/v1/sites", { name: "Shop", domain: "shop.example" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: shop.id, s2s_token: expect.stringMatching(new RegExp(`^${shop.id}\\.`)) });
  });
});

describe("granting every site", () => {
  it('takes an explicit "*", alone, from an admin only', async () => {
    const everySite = await f.admin("POST", "/api/v1/keys", { name: "all", scopes: ["read:sites"], sites: "*" });
    expect(everySite.status).toBe(201);
    expect(everySite.body.sites).toEqual(["*"]);
    const mixed = await f.admin("POST", "/api/v1/keys", { name: "mixed", scopes: ["read:sites"], sites: ["*", shop.id] });
    expect(mixed.status).toBe(422);
    expect(mixed.body.field).toBe("sites");

    const nonAdmin = await f.makeKey(["write:sites", "write:events", "read:sites"], ["*"]);
    const escalate = await nonAdmin.call("POST", "/api/v1/keys", { name: "escalate", scopes: ["read:sites"], sites: "*" });
    expect(escalate.status).toBe(403);
    expect((await f.admin("GET", "/api/v1/keys")).body.keys.some((k: { name: string }) => k.name === "escalate")).toBe(false);
  });

  it("a key without sites reads no site it did not create", async () => {
    const reader = await f.makeKey(["read:sites", "read:reports"]);
    expect((await reader.call("GET", "/api/v1/sites")).body.sites).toEqual([]);
    expect((await reader.call("GET", `/api/v1/sites/${shop.id}`)).status).toBe(403);
    expect((await reader.call("GET", `/api/v1/pages?site=${shop.id}`)).status).toBe(403);
  });
});

describe("registered domains are not enumerable without a key", () => {
  it("the collector's preflight answers a registered and an unknown origin alike", async () => {
    const preflight = (origin: string) =>
      fetch(`${f.stack.url}/e`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
      });
    const registered = await preflight("https://shop.example");
    const unknown = await preflight("https://never-registered.example");
    const shape = async (res: Response, origin: string) => {
      const headers = Object.fromEntries([...res.headers].filter(([name]) => name !== "date"));
      return { status: res.status, body: await res.text(), headers: { ...headers, "access-control-allow-origin": headers["access-control-allow-origin"] === origin } };
    };
    expect(await shape(registered, "https://shop.example")).toEqual(await shape(unknown, "https://never-registered.example"));
    expect(registered.status).toBe(204);

    // The beacon itself is still refused from an origin that is not the site's, unreadably.
    const beacon = await fetch(`${f.stack.url}/e`, {
      method: "POST",
      headers: { origin: "https://never-registered.example", "content-type": "text/plain", "user-agent": BROWSER_UA },
      body: JSON.stringify({ site: shop.id, session: "s".repeat(22), events: [{ type: "pageview", path: "/" }] }),
    });
    expect(beacon.status).toBe(403);
    expect(((await beacon.json()) as { field: string }).field).toBe("origin");
    expect(beacon.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("upgrading keys made before least privilege (migration 0002)", () => {
  it("a limited key without a site list keeps only the sites it created; admin keys and listed keys are untouched", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wren-migration-"));
    const db = await openDatabase(loadSettings({ WREN_DATA: dir }));
    await applyMigrations(db);
    const client = db.$client;
    const key = (id: string, scopes: string[], sites: string[] | null) =>
      client.execute({
        sql: "INSERT INTO api_keys (id, name, prefix, secret_hash, scopes, sites, created_at) VALUES (?, ?, ?, ?, ?, ?, 0)",
        args: [id, id, id, `hash-${id}`, JSON.stringify(scopes), sites === null ? null : JSON.stringify(sites)],
      });
    const site = (id: string, createdBy: string | null) =>
      client.execute({
        sql: "INSERT INTO sites (id, name, domain, allowlist, timezone, token_version, created_by_key, created_at) VALUES (?, ?, ?, '[]', 'UTC', 1, ?, 0)",
        args: [id, id, `${id}.example`, createdBy],
      });
    await key("key_ci", ["write:sites", "write:events"], null);
    await key("key_reader", ["read:reports"], null);
    await key("key_admin", ["admin"], null);
    await key("key_listed", ["read:reports"], ["site_b"]);
    await site("site_a", "key_ci");
    await site("site_b", null);
    await site("site_c", "key_ci");
    // The migration as shipped, run again over these legacy rows.
    const migration = readFileSync(join(MIGRATIONS_FOLDER, "0002_key_allowlists.sql"), "utf8");
    await client.executeMultiple(migration);
    const rows = await client.execute("SELECT id, sites FROM api_keys ORDER BY id");
    const sitesOf = (value: unknown) => (value === null ? null : (JSON.parse(String(value)) as string[]).sort());
    expect(Object.fromEntries(rows.rows.map((r) => [r.id, sitesOf(r.sites)]))).toEqual({
      key_admin: null,
      key_ci: ["site_a", "site_c"],
      key_listed: ["site_b"],
      key_reader: [],
    });
    client.close();
  });
});
