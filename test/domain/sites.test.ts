/** Sites in the domain layer: registration and ownership, the one lookup, renaming and re-zoning, verification, and deletion with everything recorded. */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerSite } from "../../worker/domain/registration";
import { deleteSite, insertSite, requireSite, rotateSiteToken, siteVerification, updateSite } from "../../worker/domain/sites";
import { apiKeys } from "../../worker/lib/schema";
import { catchUp, ROLLUP_TABLES } from "../../worker/reports/rollup";
import { addConversions, addEvents, addGoal, addSite, addVitals, at } from "../reports/helpers";
import { openDomainDb, problemOf, type DomainDb } from "./helpers";

let d: DomainDb;
beforeAll(async () => {
  d = await openDomainDb();
}, 60_000);
afterAll(() => d?.close());

const allowlistOf = async (keyId: string) => (await d.db.query.apiKeys.findFirst({ where: eq(apiKeys.id, keyId) }))?.sites;

describe("registerSite", () => {
  it("creates once per domain; the same caller gets the same site back", async () => {
    const admin = await d.caller(["admin"]);
    const first = await registerSite(d.db, admin, { name: "Shop", domain: "shop.example" });
    expect(first.created).toBe(true);
    expect(first.site).toMatchObject({
      name: "Shop",
      domain: "shop.example",
      allowlist: ["shop.example"],
      timezone: "UTC",
      tokenVersion: 1,
    });
    const again = await registerSite(d.db, admin, { name: "Shop again", domain: "shop.example" });
    expect(again).toEqual({ site: first.site, created: false });
    expect(await d.count("sites", { column: "domain", value: "shop.example" })).toBe(1);
  });

  it("adds a site a limited key creates to that key's allowlist, and to no other key's", async () => {
    const limited = await d.caller(["write:sites"], []);
    const everywhere = await d.caller(["write:sites"], ["*"]);
    const { site, created } = await registerSite(d.db, limited, { name: "Blog", domain: "blog.example" });
    expect(created).toBe(true);
    expect(await allowlistOf(limited.key.id)).toEqual([site.id]);
    const other = await registerSite(d.db, everywhere, { name: "Wiki", domain: "wiki.example" });
    expect(await allowlistOf(everywhere.key.id)).toEqual(["*"]);
    expect(await allowlistOf(limited.key.id)).toEqual([site.id]);
    expect(other.site.createdByKey).toBe(everywhere.key.id);
  });

  it("never hands a limited key's site to another key: 409 naming the domain, nothing written", async () => {
    const owner = await d.caller(["write:sites"], []);
    const { site } = await registerSite(d.db, owner, { name: "Mine", domain: "mine.example" });
    const squatter = await d.caller(["write:sites"], ["*"]);
    const refused = await problemOf(registerSite(d.db, squatter, { name: "Theirs", domain: "mine.example" }));
    expect(refused).toEqual({
      status: 409,
      detail: "The domain mine.example is already registered to another site.",
      field: "domain",
    });
    expect(await allowlistOf(squatter.key.id)).toEqual(["*"]);
    expect(await d.count("sites", { column: "domain", value: "mine.example" })).toBe(1);

    // An admin learns which site and key hold it, to take it over deliberately.
    const admin = await d.caller(["admin"]);
    const told = await problemOf(registerSite(d.db, admin, { name: "Mine", domain: "mine.example" }));
    expect(told).toMatchObject({
      status: 409,
      field: "domain",
      site: site.id,
      registered_by: { id: owner.key.id, revoked: false },
    });
  });

  it("hands an operator's site to a key that reaches every site, and to one whose allowlist names it", async () => {
    const { site } = await insertSite(d.db, { name: "Ops", domain: "ops.example", createdByKey: null });
    const everywhere = await d.caller(["write:sites"], ["*"]);
    expect(await registerSite(d.db, everywhere, { name: "x", domain: "ops.example" })).toEqual({ site, created: false });
    const listed = await d.caller(["write:sites"], [site.id]);
    expect(await registerSite(d.db, listed, { name: "x", domain: "ops.example" })).toEqual({ site, created: false });
    const elsewhere = await d.caller(["write:sites"], []);
    expect((await problemOf(registerSite(d.db, elsewhere, { name: "x", domain: "ops.example" }))).status).toBe(409);
  });
});

describe("requireSite, updateSite, rotateSiteToken", () => {
  it("answers one 404 text for a missing site, naming the field that carried the id", async () => {
    expect(await problemOf(requireSite(d.db, "site_nope"))).toEqual({ status: 404, detail: "No site site_nope.", field: "id" });
    expect(await problemOf(requireSite(d.db, "site_nope", "site"))).toEqual({
      status: 404,
      detail: "No site site_nope.",
      field: "site",
    });
    expect((await problemOf(updateSite(d.db, "site_nope", { name: "x" }))).detail).toBe("No site site_nope.");
    expect((await problemOf(rotateSiteToken(d.db, "site_nope"))).detail).toBe("No site site_nope.");
    expect((await problemOf(deleteSite(d.db, "site_nope"))).detail).toBe("No site site_nope.");
    expect((await problemOf(siteVerification(d.db, "site_nope"))).detail).toBe("No site site_nope.");
  });

  it("renames, and an empty patch changes nothing", async () => {
    const { site } = await insertSite(d.db, { name: "Old", domain: "rename.example", createdByKey: null });
    expect(await updateSite(d.db, site.id, {})).toEqual(site);
    expect(await updateSite(d.db, site.id, { name: "New" })).toEqual({ ...site, name: "New" });
    expect((await requireSite(d.db, site.id)).name).toBe("New");
  });

  it("refolds the site's rollups when its time zone changes", async () => {
    await addSite(d.client, "site_zone");
    // 23:30 UTC on Nov 2 is Nov 3 in Berlin.
    await addEvents(d.client, [{ site: "site_zone", session: "s1", path: "/", ts: at("2026-11-02", 23, 30) }]);
    await catchUp(d.client);
    const days = async () =>
      (await d.client.execute({ sql: "SELECT day FROM rollup_site_day WHERE site_id = 'site_zone'", args: [] })).rows.map(
        (r) => r.day,
      );
    expect(await days()).toEqual(["2026-11-02"]);
    const site = await updateSite(d.db, "site_zone", { timezone: "Europe/Berlin" });
    expect(site.timezone).toBe("Europe/Berlin");
    expect(await days()).toEqual(["2026-11-03"]);
  });

  it("rotating bumps the token version", async () => {
    const { site } = await insertSite(d.db, { name: "Rot", domain: "rotate.example", createdByKey: null });
    expect((await rotateSiteToken(d.db, site.id)).tokenVersion).toBe(2);
    expect((await rotateSiteToken(d.db, site.id)).tokenVersion).toBe(3);
  });
});

describe("siteVerification", () => {
  it("is unverified until a beacon arrives, then names the first one's time, origin and page, whatever came later", async () => {
    const { site } = await insertSite(d.db, { name: "Ver", domain: "verify.example", createdByKey: null });
    expect(await siteVerification(d.db, site.id)).toEqual({ verified: false, firstSeen: null, origin: null, path: null });
    await d.client.batch(
      [
        { sql: "INSERT INTO site_beacons VALUES (?, 'https://www.verify.example', 2000, '/later')", args: [site.id] },
        { sql: "INSERT INTO site_beacons VALUES (?, 'https://verify.example', 1000, '/first')", args: [site.id] },
      ],
      "write",
    );
    // The first beacon of all, from whichever origin sent it; nothing about any later one.
    expect(await siteVerification(d.db, site.id)).toEqual({
      verified: true,
      firstSeen: 1000,
      origin: "https://verify.example",
      path: "/first",
    });
  });
});

// Once on the embedded server, once where nothing cascades by itself: every delete is explicit.
describe.each([
  ["on the embedded server", {}],
  ["without foreign-key enforcement", { foreignKeys: false }],
] as const)("deleteSite %s", (_name, options) => {
  let d: DomainDb;
  beforeAll(async () => {
    d = await openDomainDb(options);
  }, 60_000);
  afterAll(() => d?.close());

  const RAW_TABLES = [
    "events",
    "conversions",
    "smoke_conversions",
    "vitals",
    "sessions",
    "site_beacons",
    "alert_rules",
    "deployments",
    "deployment_hook_receipts",
    "goals",
    "revenue_drops",
    "site_props",
    "prop_drops",
  ];

  async function seed(siteId: string): Promise<void> {
    await addSite(d.client, siteId);
    await addGoal(d.client, siteId, `goal_${siteId}`);
    const ts = at("2026-11-02", 10);
    // With a device and a system, so that the nesting rule's pair cells hold the site too.
    await addEvents(d.client, [
      { site: siteId, session: `${siteId}-s`, path: "/", ts, dims: { device: "desktop", os: "Windows 11" } },
    ]);
    await addConversions(d.client, [{ site: siteId, goal: `goal_${siteId}`, session: `${siteId}-s`, ts }]);
    await addVitals(d.client, [{ site: siteId, session: `${siteId}-s`, path: "/", metric: "LCP", value: 1200, ts }]);
    await d.client.batch(
      [
        {
          sql: "INSERT INTO sessions (id, site_id, first_seen, last_seen) VALUES (?, ?, ?, ?)",
          args: [`${siteId}-s`, siteId, ts, ts],
        },
        { sql: "INSERT INTO site_beacons VALUES (?, 'https://x.example', ?, '/')", args: [siteId, ts] },
        {
          sql: "INSERT INTO alert_rules (id, site_id, kind, metric, goal_id, condition, threshold, window_hours, state_since, updated_at) VALUES (?, ?, 'threshold', 'goal', ?, 'below', 1, 24, 0, 0)",
          args: [`alr_${siteId}`, siteId, `goal_${siteId}`],
        },
        {
          sql: "INSERT INTO alert_destinations (id, rule_id, position, url, format) VALUES (?, ?, 0, 'https://hooks.example.com/', 'standard')",
          args: [`dst_${siteId}`, `alr_${siteId}`],
        },
        {
          sql: "INSERT INTO alert_outbox (id, rule_id, destination_id, type, payload, next_attempt_at, created_at) VALUES (?, ?, ?, 'alert.test', '{}', 0, 0)",
          args: [`msg_${siteId}`, `alr_${siteId}`, `dst_${siteId}`],
        },
        {
          sql: "INSERT INTO deployments (id, site_id, version, external_id, ts) VALUES (?, ?, 'v1', 'v1:production', ?)",
          args: [`dep_${siteId}`, siteId, ts],
        },
        { sql: "INSERT INTO deployment_hook_receipts (site_id, key) VALUES (?, 'github:1')", args: [siteId] },
        {
          sql: "INSERT INTO revenue_drops (site_id, day, reason, count) VALUES (?, '2026-11-02', 'revenue_currency', 2)",
          args: [siteId],
        },
        {
          sql: "INSERT INTO smoke_conversions (conversion_id, site_id, goal_id, external_id, attached, ts) SELECT id, site_id, goal_id, 'v1', 1, ts FROM conversions WHERE site_id = ?",
          args: [siteId],
        },
        // Custom properties: the allowlist, a drop count, and props the fold keeps per unit.
        { sql: "INSERT INTO site_props (site_id, name) VALUES (?, 'plan')", args: [siteId] },
        {
          sql: "INSERT INTO prop_drops (site_id, day, reason, count) VALUES (?, '2026-11-02', 'not_allowed', 1)",
          args: [siteId],
        },
        { sql: `UPDATE events SET props = '{"plan":"pro"}' WHERE site_id = ?`, args: [siteId] },
      ],
      "write",
    );
  }

  it("deletes the site with every raw row and every rollup, and leaves other sites whole", async () => {
    await seed("site_gone");
    await seed("site_kept");
    await catchUp(d.client);
    for (const table of [...RAW_TABLES, ...ROLLUP_TABLES]) {
      // A fold's scratch holds rows only between the statements of one fold.
      if (table === "rollup_dimension_scratch") continue;
      expect(await d.count(table, { column: "site_id", value: "site_gone" }), table).toBeGreaterThan(0);
    }
    const kept = Object.fromEntries(
      await Promise.all(
        [...RAW_TABLES, ...ROLLUP_TABLES].map(async (t) => [t, await d.count(t, { column: "site_id", value: "site_kept" })]),
      ),
    );

    await deleteSite(d.db, "site_gone");

    expect(await d.count("sites", { column: "id", value: "site_gone" })).toBe(0);
    // Its alert rules go with their destinations and undelivered notifications (nothing left to send).
    for (const [table, site] of [
      ["alert_destinations", "site_gone"],
      ["alert_outbox", "site_gone"],
      ["alert_destinations", "site_kept"],
      ["alert_outbox", "site_kept"],
    ] as const) {
      expect(await d.count(table, { column: "rule_id", value: `alr_${site}` }), `${table} of ${site}`).toBe(
        site === "site_gone" ? 0 : 1,
      );
    }
    for (const table of [...RAW_TABLES, ...ROLLUP_TABLES]) {
      expect(await d.count(table, { column: "site_id", value: "site_gone" }), table).toBe(0);
    }
    for (const [table, n] of Object.entries(kept)) {
      expect(await d.count(table, { column: "site_id", value: "site_kept" }), table).toBe(n);
    }
  });
});
