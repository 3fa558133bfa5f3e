/**
 * Every route × every scope × a site in and out of the key's allowlist. Each key holds one
 * scope and is limited to site A; the expected answer follows from the route's declared scope
 * alone, so a route that forgets its scope or its site check fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../worker/lib/keys";
import { FIXTURES_DIR, GOATCOUNTER_CSV } from "../fixtures/imports/generate";
import { browser, join as joinWith, tokenOf } from "../helpers/passkey";
import { apiFixture, type ApiFixture } from "./fixtures";

interface Case {
  name: string;
  scope: string;
  /** A second scope that is enough on its own (reading alert rules: read:reports or write:alerts). */
  orScope?: string;
  /** True when the route names a site the key must be allowed on. */
  siteBound: boolean;
  success: number;
  /** The problem's `field` when the site is off the allowlist. */
  siteField?: string;
  /**
   * A resource named by its own id (a deployment marker) whose site is off the allowlist reads
   * as missing: this status instead of 403.
   */
  outOfReachStatus?: number;
  consumesSite?: boolean;
  /** Builds the request for site `siteId` (fresh resources where the call consumes them). */
  request(f: ApiFixture, siteId: string): Promise<{ method: string; path: string; body?: unknown; headers?: Record<string, string> }>;
}

let uniq = 0;
const fresh = () => `r${Date.now().toString(36)}${++uniq}`;

/** An alert rule that never fires on an empty site (nothing is above 1000). */
const quietRule = (site: string) => ({ site, metric: "pageviews", condition: "above", threshold: 1000, destinations: [{ url: "https://hooks.example.com/wren" }] });

/** A GoatCounter export no earlier call sent (a path of its own): an import of it is new, 201. */
const freshExport = () => readFileSync(join(FIXTURES_DIR, GOATCOUNTER_CSV), "utf8").replace("/about,", `/${fresh()},`);
const TEXT_CSV = { "content-type": "text/csv" };

/** A fresh import on the site, made by the admin key; its id. */
async function siteImport(f: ApiFixture, site: string): Promise<string> {
  const res = await f.admin("POST", `/api/v1/sites/${site}/imports?from=goatcounter`, freshExport(), TEXT_CSV);
  if (res.status !== 201) throw new Error(`import: ${res.status} ${res.text}`);
  return res.body.import.id;
}

/** A person who joined the site as a viewer through an invitation (a software passkey); their account id. */
async function person(f: ApiFixture, site: string): Promise<string> {
  const invited = await f.admin("POST", "/api/v1/people", { site, role: "viewer" });
  if (invited.status !== 201) throw new Error(`invite: ${invited.status} ${invited.text}`);
  const joined = await joinWith(browser(f.stack.url), tokenOf(invited.body.link), fresh());
  if (joined.status !== 201) throw new Error(`join: ${joined.status} ${joined.text}`);
  return joined.body.account.id;
}

/** A fresh alert rule on the site, made by the admin key; its id. */
async function alertRule(f: ApiFixture, site: string): Promise<string> {
  const res = await f.admin("POST", "/api/v1/alerts", quietRule(site));
  if (res.status !== 201) throw new Error(`alert rule create: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A fresh alert rule's destination on the site (digests go to one); its id. */
async function alertDestination(f: ApiFixture, site: string): Promise<string> {
  const res = await f.admin("POST", "/api/v1/alerts", quietRule(site));
  if (res.status !== 201) throw new Error(`alert rule create: ${res.status} ${res.text}`);
  return res.body.destinations[0].id;
}

/** A fresh weekly digest of the site to a destination, made by the admin key; its id. */
async function digest(f: ApiFixture, site: string): Promise<string> {
  const res = await f.admin("POST", `/api/v1/sites/${site}/digests`, { frequency: "weekly", destination_id: await alertDestination(f, site) });
  if (res.status !== 201) throw new Error(`digest create: ${res.status} ${res.text}`);
  return res.body.id;
}

const cases: Case[] = [
  { name: "POST /api/v1/sites", scope: "write:sites", siteBound: false, success: 201, request: async () => ({ method: "POST", path: "/api/v1/sites", body: { name: "n", domain: `${fresh()}.example` } }) },
  { name: "GET /api/v1/sites", scope: "read:sites", siteBound: false, success: 200, request: async () => ({ method: "GET", path: "/api/v1/sites" }) },
  { name: "GET /api/v1/sites/:id", scope: "read:sites", siteBound: true, siteField: "id", success: 200, request: async (_f, s) => ({ method: "GET", path: `/api/v1/sites/${s}` }) },
  { name: "PATCH /api/v1/sites/:id", scope: "write:sites", siteBound: true, siteField: "id", success: 200, request: async (_f, s) => ({ method: "PATCH", path: `/api/v1/sites/${s}`, body: { name: "renamed" } }) },
  {
    name: "DELETE /api/v1/sites/:id",
    scope: "write:sites",
    siteBound: true,
    siteField: "id",
    success: 204,
    consumesSite: true,
    request: async (_f, s) => ({ method: "DELETE", path: `/api/v1/sites/${s}` }),
  },
  { name: "POST /api/v1/sites/:id/token", scope: "write:sites", siteBound: true, siteField: "id", success: 200, request: async (_f, s) => ({ method: "POST", path: `/api/v1/sites/${s}/token` }) },
  { name: "GET /api/v1/sites/:id/verification", scope: "read:sites", siteBound: true, siteField: "id", success: 200, request: async (_f, s) => ({ method: "GET", path: `/api/v1/sites/${s}/verification` }) },
  { name: "GET /api/v1/sites/:id/arrivals", scope: "read:reports", siteBound: true, siteField: "id", success: 200, request: async (_f, s) => ({ method: "GET", path: `/api/v1/sites/${s}/arrivals` }) },
  { name: "POST /api/v1/sites/:id/goals", scope: "write:goals", siteBound: true, siteField: "id", success: 201, request: async (_f, s) => ({ method: "POST", path: `/api/v1/sites/${s}/goals`, body: { kind: "event", match: fresh() } }) },
  {
    name: "PATCH /api/v1/sites/:id/goals/:goal",
    scope: "write:goals",
    siteBound: true,
    siteField: "id",
    success: 200,
    request: async (f, s) => ({ method: "PATCH", path: `/api/v1/sites/${s}/goals/${(await f.makeGoal(s)).id}`, body: { name: "Renamed" } }),
  },
  { name: "GET /api/v1/sites/:id/props", scope: "read:sites", siteBound: true, siteField: "id", success: 200, request: async (_f, s) => ({ method: "GET", path: `/api/v1/sites/${s}/props` }) },
  { name: "PUT /api/v1/sites/:id/props/:name", scope: "write:goals", siteBound: true, siteField: "id", success: 201, request: async (_f, s) => ({ method: "PUT", path: `/api/v1/sites/${s}/props/${fresh()}` }) },
  {
    name: "DELETE /api/v1/sites/:id/props/:name",
    scope: "write:goals",
    siteBound: true,
    siteField: "id",
    success: 204,
    request: async (f, s) => {
      const name = fresh();
      const made = await f.admin("PUT", `/api/v1/sites/${s}/props/${name}`);
      if (made.status !== 201) throw new Error(`prop put: ${made.status} ${made.text}`);
      return { method: "DELETE", path: `/api/v1/sites/${s}/props/${name}` };
    },
  },
  { name: "GET /api/v1/sites/:id/goals", scope: "read:sites", siteBound: true, siteField: "id", success: 200, request: async (_f, s) => ({ method: "GET", path: `/api/v1/sites/${s}/goals` }) },
  { name: "POST /api/v1/sites/:id/shares", scope: "write:sites", siteBound: true, siteField: "id", success: 201, request: async (_f, s) => ({ method: "POST", path: `/api/v1/sites/${s}/shares`, body: {} }) },
  { name: "GET /api/v1/sites/:id/shares", scope: "write:sites", siteBound: true, siteField: "id", success: 200, request: async (_f, s) => ({ method: "GET", path: `/api/v1/sites/${s}/shares` }) },
  {
    name: "DELETE /api/v1/sites/:id/shares/:share",
    scope: "write:sites",
    siteBound: true,
    siteField: "id",
    success: 204,
    request: async (f, s) => ({ method: "DELETE", path: `/api/v1/sites/${s}/shares/${(await f.admin("POST", `/api/v1/sites/${s}/shares`, {})).body.id}` }),
  },
  {
    name: "POST /api/v1/sites/:id/imports",
    scope: "write:sites",
    siteBound: true,
    siteField: "id",
    success: 201,
    request: async (_f, s) => ({ method: "POST", path: `/api/v1/sites/${s}/imports?from=goatcounter`, body: freshExport(), headers: TEXT_CSV }),
  },
  { name: "GET /api/v1/sites/:id/imports", scope: "write:sites", siteBound: true, siteField: "id", success: 200, request: async (_f, s) => ({ method: "GET", path: `/api/v1/sites/${s}/imports` }) },
  {
    name: "DELETE /api/v1/sites/:id/imports/:import_id",
    scope: "write:sites",
    siteBound: true,
    siteField: "id",
    success: 204,
    request: async (f, s) => ({ method: "DELETE", path: `/api/v1/sites/${s}/imports/${await siteImport(f, s)}` }),
  },
  {
    name: "DELETE /api/v1/sites/:id/goals/:goal",
    scope: "write:goals",
    siteBound: true,
    siteField: "id",
    success: 204,
    request: async (f, s) => ({ method: "DELETE", path: `/api/v1/sites/${s}/goals/${(await f.makeGoal(s)).id}` }),
  },
  { name: "GET /api/v1/sessions", scope: "read:sessions", siteBound: true, siteField: "site", success: 200, request: async (_f, s) => ({ method: "GET", path: `/api/v1/sessions?site=${s}` }) },
  {
    name: "POST /api/v1/events",
    scope: "write:events",
    siteBound: true,
    siteField: "site",
    success: 202,
    request: async (f, s) => ({ method: "POST", path: "/api/v1/events", body: { site: s, goal_id: (await f.makeGoal(s)).id } }),
  },
  ...["pages", "vitals", "conversions", "timeseries"].map(
    (report): Case => ({
      name: `GET /api/v1/${report}`,
      scope: "read:reports",
      siteBound: true,
      siteField: "site",
      success: 200,
      request: async (_f, s) => ({ method: "GET", path: `/api/v1/${report}?site=${s}&period=7d` }),
    }),
  ),
  {
    name: "GET /api/v1/breakdown",
    scope: "read:reports",
    siteBound: true,
    siteField: "site",
    success: 200,
    request: async (_f, s) => ({ method: "GET", path: `/api/v1/breakdown?site=${s}&period=7d&dimension=country` }),
  },
  {
    name: "GET /api/v1/aggregate",
    scope: "read:reports",
    siteBound: true,
    siteField: "site",
    success: 200,
    request: async (_f, s) => ({ method: "GET", path: `/api/v1/aggregate?site=${s}&period=7d&filter=country:DE` }),
  },
  {
    name: "POST /api/v1/query",
    scope: "read:reports",
    siteBound: true,
    siteField: "site_id",
    success: 200,
    request: async (_f, s) => ({
      method: "POST",
      path: "/api/v1/query",
      body: { site_id: s, metrics: ["visitors"], date_range: "7d", filters: [["is", "visit:country", ["DE"]]] },
    }),
  },
  {
    name: "GET /api/v1/overview",
    scope: "read:reports",
    siteBound: true,
    siteField: "site",
    success: 200,
    request: async (_f, s) => ({ method: "GET", path: `/api/v1/overview?site=${s}` }),
  },
  {
    name: "GET /api/v1/live",
    scope: "read:reports",
    siteBound: true,
    siteField: "site",
    success: 200,
    request: async (_f, s) => ({ method: "GET", path: `/api/v1/live?site=${s}` }),
  },
  {
    name: "GET /api/v1/funnels",
    scope: "read:reports",
    siteBound: true,
    siteField: "site",
    success: 200,
    request: async (f, s) => ({
      method: "GET",
      path: `/api/v1/funnels?site=${s}&period=7d&goals=${(await f.makeGoal(s)).id},${(await f.makeGoal(s)).id}`,
    }),
  },
  {
    name: "POST /api/v1/deployments",
    scope: "write:deployments",
    siteBound: true,
    siteField: "site",
    success: 201,
    request: async (_f, s) => ({ method: "POST", path: "/api/v1/deployments", body: { site: s, version: fresh() } }),
  },
  { name: "GET /api/v1/deployments", scope: "read:reports", siteBound: true, siteField: "site", success: 200, request: async (_f, s) => ({ method: "GET", path: `/api/v1/deployments?site=${s}` }) },
  {
    name: "GET /api/v1/deployments/:id",
    scope: "read:reports",
    siteBound: true,
    siteField: "id",
    outOfReachStatus: 404,
    success: 200,
    request: async (f, s) => ({ method: "GET", path: `/api/v1/deployments/${(await f.admin("POST", "/api/v1/deployments", { site: s, version: fresh() })).body.id}` }),
  },
  {
    name: "DELETE /api/v1/deployments/:id",
    scope: "write:deployments",
    siteBound: true,
    siteField: "id",
    outOfReachStatus: 404,
    success: 204,
    request: async (f, s) => ({ method: "DELETE", path: `/api/v1/deployments/${(await f.admin("POST", "/api/v1/deployments", { site: s, version: fresh() })).body.id}` }),
  },
  {
    name: "POST /api/v1/sites/:id/deployment-hook",
    scope: "write:deployments",
    siteBound: true,
    siteField: "id",
    success: 200,
    request: async (_f, s) => ({ method: "POST", path: `/api/v1/sites/${s}/deployment-hook` }),
  },
  {
    name: "POST /api/v1/alerts",
    scope: "write:alerts",
    siteBound: true,
    siteField: "site",
    success: 201,
    request: async (_f, s) => ({ method: "POST", path: "/api/v1/alerts", body: quietRule(s) }),
  },
  {
    name: "GET /api/v1/alerts",
    scope: "read:reports",
    orScope: "write:alerts",
    siteBound: true,
    siteField: "site",
    success: 200,
    request: async (_f, s) => ({ method: "GET", path: `/api/v1/alerts?site=${s}` }),
  },
  {
    name: "GET /api/v1/alerts/:id",
    scope: "read:reports",
    orScope: "write:alerts",
    siteBound: true,
    siteField: "id",
    outOfReachStatus: 404,
    success: 200,
    request: async (f, s) => ({ method: "GET", path: `/api/v1/alerts/${await alertRule(f, s)}` }),
  },
  {
    name: "PATCH /api/v1/alerts/:id",
    scope: "write:alerts",
    siteBound: true,
    siteField: "id",
    outOfReachStatus: 404,
    success: 200,
    request: async (f, s) => ({ method: "PATCH", path: `/api/v1/alerts/${await alertRule(f, s)}`, body: { enabled: false } }),
  },
  {
    name: "DELETE /api/v1/alerts/:id",
    scope: "write:alerts",
    siteBound: true,
    siteField: "id",
    outOfReachStatus: 404,
    success: 204,
    request: async (f, s) => ({ method: "DELETE", path: `/api/v1/alerts/${await alertRule(f, s)}` }),
  },
  {
    name: "GET /api/v1/alerts/:id/history",
    scope: "read:reports",
    orScope: "write:alerts",
    siteBound: true,
    siteField: "id",
    outOfReachStatus: 404,
    success: 200,
    request: async (f, s) => ({ method: "GET", path: `/api/v1/alerts/${await alertRule(f, s)}/history` }),
  },
  {
    name: "POST /api/v1/alerts/:id/test",
    scope: "write:alerts",
    siteBound: true,
    siteField: "id",
    outOfReachStatus: 404,
    success: 202,
    request: async (f, s) => ({ method: "POST", path: `/api/v1/alerts/${await alertRule(f, s)}/test` }),
  },
  {
    name: "POST /api/v1/sites/:id/digests",
    scope: "write:alerts",
    siteBound: true,
    siteField: "id",
    success: 201,
    request: async (f, s) => ({ method: "POST", path: `/api/v1/sites/${s}/digests`, body: { frequency: "weekly", destination_id: await alertDestination(f, s) } }),
  },
  {
    name: "GET /api/v1/sites/:id/digests",
    scope: "read:reports",
    orScope: "write:alerts",
    siteBound: true,
    siteField: "id",
    success: 200,
    request: async (_f, s) => ({ method: "GET", path: `/api/v1/sites/${s}/digests` }),
  },
  {
    name: "DELETE /api/v1/sites/:id/digests/:digestId",
    scope: "write:alerts",
    siteBound: true,
    siteField: "id",
    success: 204,
    request: async (f, s) => ({ method: "DELETE", path: `/api/v1/sites/${s}/digests/${await digest(f, s)}` }),
  },
  {
    name: "POST /api/v1/sites/:id/digests/:digestId/preview",
    scope: "read:reports",
    orScope: "write:alerts",
    siteBound: true,
    siteField: "id",
    success: 200,
    request: async (f, s) => ({ method: "POST", path: `/api/v1/sites/${s}/digests/${await digest(f, s)}/preview` }),
  },
  { name: "POST /api/v1/keys", scope: "admin", siteBound: false, success: 201, request: async () => ({ method: "POST", path: "/api/v1/keys", body: { scopes: ["read:reports"] } }) },
  { name: "GET /api/v1/keys", scope: "admin", siteBound: false, success: 200, request: async () => ({ method: "GET", path: "/api/v1/keys" }) },
  // Every key may describe itself: the dashboard learns its scopes from it.
  { name: "GET /api/v1/keys/current", scope: "any", siteBound: false, success: 200, request: async () => ({ method: "GET", path: "/api/v1/keys/current" }) },
  {
    name: "DELETE /api/v1/keys/:id",
    scope: "admin",
    siteBound: false,
    success: 204,
    request: async (f) => ({ method: "DELETE", path: `/api/v1/keys/${(await f.makeKey(["read:reports"])).id}` }),
  },
  {
    name: "GET /api/v1/keys/:id/usage",
    scope: "admin",
    siteBound: false,
    success: 200,
    request: async (f) => ({ method: "GET", path: `/api/v1/keys/${(await f.makeKey(["read:reports"])).id}/usage` }),
  },
  // People: admins only (an account that administers one site manages that site's people: test/api/people.test.ts).
  { name: "GET /api/v1/people", scope: "admin", siteBound: false, success: 200, request: async () => ({ method: "GET", path: "/api/v1/people" }) },
  { name: "POST /api/v1/people", scope: "admin", siteBound: false, success: 201, request: async (_f, s) => ({ method: "POST", path: "/api/v1/people", body: { site: s, role: "viewer" } }) },
  {
    name: "PATCH /api/v1/people/:id",
    scope: "admin",
    siteBound: false,
    success: 200,
    request: async (f, s) => ({ method: "PATCH", path: `/api/v1/people/${await person(f, s)}`, body: { site: s, role: "editor" } }),
  },
  {
    name: "DELETE /api/v1/people/:id",
    scope: "admin",
    siteBound: false,
    success: 204,
    request: async (f, s) => ({ method: "DELETE", path: `/api/v1/people/${await person(f, s)}` }),
  },
  { name: "GET /api/v1/invitations", scope: "admin", siteBound: false, success: 200, request: async () => ({ method: "GET", path: "/api/v1/invitations" }) },
  {
    name: "DELETE /api/v1/invitations/:id",
    scope: "admin",
    siteBound: false,
    success: 204,
    request: async (f, s) => ({ method: "DELETE", path: `/api/v1/invitations/${(await f.admin("POST", "/api/v1/people", { site: s, role: "viewer" })).body.id}` }),
  },
  { name: "GET /api/v1/audit", scope: "admin", siteBound: false, success: 200, request: async () => ({ method: "GET", path: "/api/v1/audit" }) },
];

describe("route × scope × site allowlist", () => {
  let f: ApiFixture;
  let siteA: string;
  let siteB: string;

  beforeAll(async () => {
    f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
    siteA = (await f.makeSite("a.example")).id;
    siteB = (await f.makeSite("b.example")).id;
  }, 120_000);
  afterAll(() => f?.stack.stop());

  it("covers every route of the OpenAPI document that takes a key (the signed deployment hook and the collector's paths take none)", async () => {
    const doc = await f.admin("GET", "/api/v1/openapi.json");
    type Operation = { security: Record<string, string[]>[] };
    const documented = Object.entries(doc.body.paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([m, op]) => ({
        name: `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`,
        keyed: op.security.some((requirement) => "apiKey" in requirement),
      })),
    );
    expect(documented.filter((op) => op.name.startsWith("POST /hooks/"))).toEqual([{ name: "POST /hooks/deployments/:site", keyed: false }]);
    expect(cases.map((c) => c.name).sort()).toEqual(documented.filter((op) => op.keyed).map((op) => op.name).sort());
  });

  for (const c of cases) {
    for (const scope of SCOPES) {
      const allowed = c.scope === "any" || scope === c.scope || scope === c.orScope || scope === "admin";
      for (const where of c.siteBound ? (["in", "out"] as const) : (["-"] as const)) {
        const outOfReach = where === "out" && scope !== "admin";
        const expected = !allowed ? 403 : outOfReach ? (c.outOfReachStatus ?? 403) : c.success;
        it(`${c.name} with ${scope}${c.siteBound ? `, site ${where} of the allowlist` : ""} → ${expected}`, async () => {
          // A route that consumes its site (DELETE) always gets a fresh one.
          const target = c.consumesSite ? (await f.makeSite(`${fresh()}.example`)).id : where === "out" ? siteB : siteA;
          const reach = where === "out" ? [siteA] : [target];
          const key = await f.makeKey([scope], scope === "admin" ? null : reach);
          const { method, path, body, headers } = await c.request(f, target);
          const res = await key.call(method, path, body, headers);
          expect(res.status, res.text).toBe(expected);
          if (expected === 403 || expected === c.outOfReachStatus) {
            expect(res.headers.get("content-type")).toBe("application/problem+json");
            expect(res.body.field).toBe(allowed ? c.siteField : "authorization");
          }
        });
      }
    }
  }

  it("GET /api/v1/sites lists only the key's sites", async () => {
    const key = await f.makeKey(["read:sites"], [siteA]);
    const res = await key.call("GET", "/api/v1/sites");
    expect(res.body.sites.map((s: { id: string }) => s.id)).toEqual([siteA]);
  });

  it("a site created by a limited key joins its allowlist", async () => {
    const creator = await f.makeKey(["write:sites", "read:sites"], [siteA]);
    const created = await creator.call("POST", "/api/v1/sites", { name: "Preview 7", domain: "pr-7.preview.example" });
    expect(created.status).toBe(201);
    const listed = await creator.call("GET", "/api/v1/sites");
    expect(listed.body.sites.map((s: { id: string }) => s.id)).toEqual([siteA, created.body.id]);
    const keyRow = (await f.admin("GET", "/api/v1/keys")).body.keys.find((k: { id: string }) => k.id === creator.id);
    expect(keyRow.sites).toEqual([siteA, created.body.id]);
  });
});
