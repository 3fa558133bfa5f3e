/** API keys in the domain layer: issuing (hash stored, listed sites must exist), what a key reaches, revocation, and call counters. */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerFor } from "../../worker/domain/access";
import { addSiteToKey, findActiveKey, issueKey, listKeys, revokeKey } from "../../worker/domain/apikeys";
import { insertSite } from "../../worker/domain/sites";
import { addCalls, keyUsageSince } from "../../worker/domain/usage";
import { hashKey } from "../../worker/lib/keys";
import { apiKeys } from "../../worker/lib/schema";
import { openDomainDb, problemOf, type DomainDb } from "./helpers";

let d: DomainDb;
let site: string;
beforeAll(async () => {
  d = await openDomainDb();
  site = (await insertSite(d.db, { name: "Shop", domain: "shop.example", createdByKey: null })).site.id;
}, 60_000);
afterAll(() => d?.close());

describe("issueKey", () => {
  it("stores the hash of the secret, never the secret, and a visible prefix", async () => {
    const { row, key } = await issueKey(d.db, { name: "ci", scopes: ["read:reports"], sites: [site] });
    expect(key).toMatch(/^wren_[A-Za-z0-9_-]{43}$/);
    expect(row).toMatchObject({ name: "ci", scopes: ["read:reports"], sites: [site], prefix: key.slice(0, 11), revokedAt: null });
    expect(row.secretHash).toBe(await hashKey(key));
    const stored = JSON.stringify(await d.db.query.apiKeys.findFirst({ where: eq(apiKeys.id, row.id) }));
    expect(stored).not.toContain(key.slice(5));
    expect((await findActiveKey(d.db, key))?.id).toBe(row.id);
    expect(await findActiveKey(d.db, `${key}x`)).toBeUndefined();
  });

  it("starts a limited key with an empty allowlist; an admin key's stays null (every site)", async () => {
    expect((await issueKey(d.db, { name: "l", scopes: ["write:sites"], sites: null })).row.sites).toEqual([]);
    expect((await issueKey(d.db, { name: "a", scopes: ["admin"], sites: null })).row.sites).toBeNull();
    expect((await issueKey(d.db, { name: "e", scopes: ["read:sites"], sites: ["*"] })).row.sites).toEqual(["*"]);
  });

  it("refuses an allowlist naming a site that does not exist (422 at its position), writing no key", async () => {
    const before = await d.count("api_keys");
    expect(await problemOf(issueKey(d.db, { name: "x", scopes: ["read:reports"], sites: [site, "site_nope"] }))).toEqual({
      status: 422,
      detail: "sites.1: no site site_nope",
      field: "sites.1",
    });
    expect(await d.count("api_keys")).toBe(before);
  });
});

describe("callerFor", () => {
  it("reaches every site as admin or with *, else only the sites listed", async () => {
    const admin = callerFor((await issueKey(d.db, { name: "a", scopes: ["admin"], sites: null })).row);
    expect([admin.isAdmin, admin.hasScope("write:alerts"), admin.allowedSites(), admin.mayActOn("site_any")]).toEqual([
      true,
      true,
      null,
      true,
    ]);
    const everywhere = callerFor((await issueKey(d.db, { name: "e", scopes: ["read:sites"], sites: ["*"] })).row);
    expect([
      everywhere.hasScope("read:sites"),
      everywhere.hasScope("write:sites"),
      everywhere.allowedSites(),
      everywhere.listsSite(site),
    ]).toEqual([true, false, null, false]);
    const limited = callerFor((await issueKey(d.db, { name: "l", scopes: ["read:reports"], sites: [site] })).row);
    expect([limited.allowedSites(), limited.mayActOn(site), limited.mayActOn("site_other"), limited.listsSite(site)]).toEqual([
      [site],
      true,
      false,
      true,
    ]);
    // A row from before keys were least-privilege (no allowlist) reaches no site.
    expect(callerFor({ ...limited.key, sites: null }).allowedSites()).toEqual([]);
  });

  it("addSiteToKey grows a limited key's allowlist", async () => {
    const { row } = await issueKey(d.db, { name: "g", scopes: ["write:sites"], sites: null });
    await addSiteToKey(d.db, row.id, site);
    await addSiteToKey(d.db, row.id, "site_second");
    expect((await d.db.query.apiKeys.findFirst({ where: eq(apiKeys.id, row.id) }))?.sites).toEqual([site, "site_second"]);
  });
});

describe("revokeKey", () => {
  it("stops the key at once and drops it from the list; a second revocation is a 404", async () => {
    const { row, key } = await issueKey(d.db, { name: "gone", scopes: ["read:sites"], sites: [] });
    await revokeKey(d.db, row.id);
    expect(await findActiveKey(d.db, key)).toBeUndefined();
    expect((await listKeys(d.db)).map((k) => k.id)).not.toContain(row.id);
    expect(await problemOf(revokeKey(d.db, row.id))).toEqual({ status: 404, detail: `No active key ${row.id}.`, field: "id" });
  });
});

describe("call counters", () => {
  const DAY = 86_400_000;
  const now = Date.parse("2026-11-23T10:00:00Z");

  it("adds counted calls per UTC day and route, newest day first, within the asked days", async () => {
    const { row } = await issueKey(d.db, { name: "job", scopes: ["read:reports"], sites: [] });
    const lastUsed = async () => (await d.db.query.apiKeys.findFirst({ where: eq(apiKeys.id, row.id) }))?.lastUsedAt;
    await addCalls(d.db, row.id, [{ day: "2026-11-21", route: "GET /api/v1/pages", calls: 1 }], now - 2 * DAY);
    await addCalls(
      d.db,
      row.id,
      [
        { day: "2026-11-22", route: "GET /api/v1/pages", calls: 1 },
        { day: "2026-11-23", route: "GET /api/v1/pages", calls: 1 },
        { day: "2026-11-23", route: "GET /api/v1/conversions", calls: 1 },
      ],
      now,
    );
    // A later batch adds to the same counter.
    await addCalls(d.db, row.id, [{ day: "2026-11-23", route: "GET /api/v1/pages", calls: 2 }], now + 1000);

    expect(await keyUsageSince(d.db, row.id, 2, now)).toEqual([
      { day: "2026-11-23", route: "GET /api/v1/conversions", calls: 1 },
      { day: "2026-11-23", route: "GET /api/v1/pages", calls: 3 },
      { day: "2026-11-22", route: "GET /api/v1/pages", calls: 1 },
    ]);
    expect(await keyUsageSince(d.db, row.id, 1, now)).toHaveLength(2);
    expect(await keyUsageSince(d.db, row.id, 3, now)).toHaveLength(4);
    expect(await lastUsed()).toBe(now + 1000);
    // An older batch (written late) never moves the last use back; no rows, no write.
    await addCalls(d.db, row.id, [{ day: "2026-11-23", route: "GET /api/v1/sites", calls: 1 }], now);
    expect(await lastUsed()).toBe(now + 1000);
    await addCalls(d.db, row.id, [], now + 5000);
    expect(await lastUsed()).toBe(now + 1000);
  });

  it("drops calls of a key that does not exist instead of failing", async () => {
    const before = await d.count("key_usage");
    await addCalls(d.db, "key_gone", [{ day: "2026-11-23", route: "GET /api/v1/pages", calls: 4 }], now);
    expect(await d.count("key_usage")).toBe(before);
  });

  it("answers 404 for an unknown key", async () => {
    expect(await problemOf(keyUsageSince(d.db, "key_nope", 30, now))).toEqual({
      status: 404,
      detail: "No key key_nope.",
      field: "id",
    });
  });
});
