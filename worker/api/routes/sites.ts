/** Sites and the registry: register (idempotent per domain), list, read, rename, delete, rotate the s2s token, verify the snippet. */
import type { InValue } from "@libsql/client/web";
import { desc, eq } from "drizzle-orm";
import { z } from "zod";
import { siteCreateBody, sitePatchBody } from "../../domain/schemas";
import { findSiteByDomain, getSite, insertSite, listSites, rotateSiteToken, type SiteRow } from "../../domain/sites";
import { importHmacKey } from "../../lib/crypto";
import type { Database } from "../../lib/db";
import { HttpProblem } from "../../lib/problem";
import { addSiteToKey, findRegistrant, type Registrant } from "../../domain/apikeys";
import { alertRules, conversions, deployments, events, goals, sessions, siteBeacons, sites, vitals } from "../../lib/schema";
import { siteToken } from "../../lib/tokens";
import { deleteSiteRollupsStatements, rebuildSiteRollups } from "../../reports/rollup";
import type { Caller } from "../auth";
import { siteParams } from "../params";
import { json, route } from "../registry";
import { siteResource, toSite, verificationResource } from "../resources";

let cachedKey: { secret: string; key: Promise<CryptoKey> } | undefined;
function serverKey(secret: string): Promise<CryptoKey> {
  if (cachedKey?.secret !== secret) cachedKey = { secret, key: importHmacKey(secret) };
  return cachedKey.key;
}

async function tokenFor(secret: string, site: SiteRow): Promise<string> {
  return siteToken(await serverKey(secret), site.id, site.tokenVersion);
}

/** The s2s token goes only to a key that may itself write events: whoever holds the token can. */
async function tokenForCaller(caller: Caller, secret: string, site: SiteRow): Promise<string | undefined> {
  return caller.hasScope("write:events") ? tokenFor(secret, site) : undefined;
}

async function existingSite(db: Database, id: string): Promise<SiteRow> {
  const site = await getSite(db, id);
  if (!site) throw new HttpProblem(404, `No site ${id}.`, { field: "id" });
  return site;
}

/** A site made by a key limited to some sites joins that key's allowlist. */
async function grantSite(db: Database, caller: Caller, siteId: string): Promise<void> {
  if (caller.allowedSites() === null) return;
  await addSiteToKey(db, caller.key.id, siteId);
}

/**
 * Whether re-posting a registered domain hands this caller the existing site. Only when the
 * site is plainly the caller's: it registered it, or an admin listed it on the key, or the key
 * reaches every site and the site was registered by the operator (the CLI or an admin key).
 * A site a limited key registered first is never handed over silently — else whoever posts a
 * domain first could squat it and keep reading what its real owner later records there.
 */
function mayTakeExisting(caller: Caller, site: SiteRow, registrant: Registrant | undefined): boolean {
  if (site.createdByKey === caller.key.id || caller.listsSite(site.id)) return true;
  const byOperator = site.createdByKey === null || registrant?.admin === true;
  return byOperator && caller.mayActOn(site.id);
}

function domainTaken(caller: Caller, site: SiteRow, registrant: Registrant | undefined): HttpProblem {
  if (!caller.isAdmin) {
    return new HttpProblem(409, `The domain ${site.domain} is already registered to another site.`, { field: "domain" });
  }
  // An admin is told who holds it, to take it over deliberately (delete that site, re-post).
  const by = registrant ? `key ${registrant.id} ("${registrant.name}"${registrant.revoked ? ", revoked" : ""})` : "an unknown key";
  return new HttpProblem(
    409,
    `The domain ${site.domain} is registered to site ${site.id} by ${by}, a key limited to its own sites. ` +
      `To take the domain over, delete that site (DELETE /api/v1/sites/${site.id}) and register it again.`,
    { field: "domain", site: site.id, registered_by: registrant ? { id: registrant.id, name: registrant.name, revoked: registrant.revoked } : null },
  );
}

export const siteRoutes = [
  route({
    method: "POST",
    path: "/api/v1/sites",
    summary: "Register a site; returns its snippet and s2s token",
    tag: "Sites",
    scope: "write:sites",
    body: siteCreateBody,
    responses: {
      201: { description: "Registered.", schema: siteResource },
      200: { description: "This key already registered the domain: the same site (safe to re-run from CI).", schema: siteResource },
      409: {
        description:
          "The domain belongs to another site: one outside this key's allowlist, or one a limited key registered first. An admin is told which site and key; anyone else learns no id or token.",
      },
    },
    async handle({ db, env, caller, body, baseUrl }) {
      const reuse = async (site: SiteRow) => {
        const registrant = site.createdByKey === null ? undefined : await findRegistrant(db, site.createdByKey);
        if (!mayTakeExisting(caller, site, registrant)) throw domainTaken(caller, site, registrant);
        return json(toSite(site, baseUrl, await tokenForCaller(caller, env.WREN_SECRET, site)), 200);
      };
      const existing = await findSiteByDomain(db, body.domain);
      if (existing) return reuse(existing);
      const { site, created } = await insertSite(db, { ...body, createdByKey: caller.key.id });
      if (!created) return reuse(site);
      await grantSite(db, caller, site.id);
      return json(toSite(site, baseUrl, await tokenForCaller(caller, env.WREN_SECRET, site)), 201);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/sites",
    summary: "The site registry (only sites on the key's allowlist)",
    tag: "Sites",
    scope: "read:sites",
    responses: { 200: { description: "Sites.", schema: z.object({ sites: z.array(siteResource) }) } },
    async handle({ db, caller, baseUrl }) {
      return json({ sites: (await listSites(db, caller.allowedSites())).map((s) => toSite(s, baseUrl)) });
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/sites/:id",
    summary: "One site",
    tag: "Sites",
    scope: "read:sites",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: { 200: { description: "The site.", schema: siteResource }, 404: { description: "No such site." } },
    async handle({ db, params, baseUrl }) {
      return json(toSite(await existingSite(db, params.id), baseUrl));
    },
  }),
  route({
    method: "PATCH",
    path: "/api/v1/sites/:id",
    summary: "Rename a site or change its time zone (the domain is fixed: register a new site for another domain)",
    tag: "Sites",
    scope: "write:sites",
    params: siteParams,
    body: sitePatchBody,
    site: { from: "params", name: "id" },
    responses: { 200: { description: "The updated site.", schema: siteResource }, 404: { description: "No such site." } },
    async handle({ db, params, body, baseUrl }) {
      const before = await existingSite(db, params.id);
      if (body.name === undefined && body.timezone === undefined) return json(toSite(before, baseUrl));
      const [site] = await db.update(sites).set(body).where(eq(sites.id, params.id)).returning();
      if (!site) throw new HttpProblem(404, `No site ${params.id}.`, { field: "id" });
      // Report days are cut in the zone in force when rows are folded: refold under the new one.
      if (site.timezone !== before.timezone) await rebuildSiteRollups(db.$client, site.id);
      return json(toSite(site, baseUrl));
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/sites/:id",
    summary: "Delete a site and everything recorded for it",
    tag: "Sites",
    scope: "write:sites",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: { 204: { description: "Deleted." }, 404: { description: "No such site." } },
    async handle({ db, params }) {
      await existingSite(db, params.id);
      const id = params.id;
      // Explicit deletes in one transaction: foreign-key enforcement is per connection and
      // not something every Hrana server turns on.
      const deletes = [
        db.delete(conversions).where(eq(conversions.siteId, id)),
        db.delete(vitals).where(eq(vitals.siteId, id)),
        db.delete(events).where(eq(events.siteId, id)),
        db.delete(sessions).where(eq(sessions.siteId, id)),
        db.delete(siteBeacons).where(eq(siteBeacons.siteId, id)),
        db.delete(alertRules).where(eq(alertRules.siteId, id)),
        db.delete(deployments).where(eq(deployments.siteId, id)),
        db.delete(goals).where(eq(goals.siteId, id)),
        db.delete(sites).where(eq(sites.id, id)),
      ].map((query) => {
        const { sql: text, params: args } = query.toSQL();
        return { sql: text, args: args as InValue[] };
      });
      await db.$client.batch([...deleteSiteRollupsStatements(id), ...deletes], "write");
      return new Response(null, { status: 204 });
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/sites/:id/token",
    summary: "Rotate the site's s2s token; the old one stops working at once (the new one is returned to keys with write:events)",
    tag: "Sites",
    scope: "write:sites",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: {
      200: { description: "Rotated; the new token when the key also holds write:events.", schema: z.object({ id: z.string(), s2s_token: z.string().optional() }) },
      404: { description: "No such site." },
    },
    async handle({ db, env, caller, params }) {
      const site = await rotateSiteToken(db, params.id);
      if (!site) throw new HttpProblem(404, `No site ${params.id}.`, { field: "id" });
      const token = await tokenForCaller(caller, env.WREN_SECRET, site);
      return json({ id: site.id, ...(token ? { s2s_token: token } : {}) });
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/sites/:id/verification",
    summary: "Whether the snippet works: has a beacon from an allowlisted origin arrived, when, from which page",
    tag: "Sites",
    scope: "read:sites",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: { 200: { description: "Verification state.", schema: verificationResource }, 404: { description: "No such site." } },
    async handle({ db, params }) {
      await existingSite(db, params.id);
      const rows = await db.select().from(siteBeacons).where(eq(siteBeacons.siteId, params.id)).orderBy(desc(siteBeacons.lastSeen));
      const latest = rows[0];
      const firstSeen = rows.length > 0 ? Math.min(...rows.map((r) => r.firstSeen)) : null;
      return json({
        site: params.id,
        verified: rows.length > 0,
        first_seen: firstSeen === null ? null : new Date(firstSeen).toISOString(),
        last_seen: latest ? new Date(latest.lastSeen).toISOString() : null,
        origin: latest?.origin ?? null,
        page: latest?.lastPage ?? null,
      });
    },
  }),
];
