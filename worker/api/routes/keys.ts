/** API keys: issue, list, revoke, and per-day call counters (admin). */
import { and, desc, eq, gte, inArray } from "drizzle-orm";
import { z } from "zod";
import { issueKey, listKeys, revokeKey } from "../../domain/apikeys";
import { keyCreateBody } from "../../domain/schemas";
import { EVERY_SITE } from "../../lib/keys";
import { HttpProblem } from "../../lib/problem";
import { apiKeys, keyUsage, sites } from "../../lib/schema";
import { keyParams } from "../params";
import { route, json } from "../registry";
import { keyResource, newKeyResource, toKey, usageResource } from "../resources";
import { utcDay } from "../usage";

export const keyRoutes = [
  route({
    method: "POST",
    path: "/api/v1/keys",
    summary: "Issue an API key (the secret is shown once)",
    tag: "Keys",
    scope: "admin",
    body: keyCreateBody,
    responses: { 201: { description: "The new key, with its secret.", schema: newKeyResource } },
    async handle({ db, body }) {
      // "*" stands alone (the schema says so); otherwise every listed site must exist.
      const listed = body.sites?.includes(EVERY_SITE) ? [] : (body.sites ?? []);
      if (listed.length > 0) {
        const found = await db.select({ id: sites.id }).from(sites).where(inArray(sites.id, listed));
        const known = new Set(found.map((s) => s.id));
        const missing = listed.findIndex((id) => !known.has(id));
        if (missing >= 0) throw new HttpProblem(422, `sites.${missing}: no site ${listed[missing]}`, { field: `sites.${missing}` });
      }
      const { row, key } = await issueKey(db, {
        name: body.name,
        scopes: body.scopes,
        sites: body.sites ?? null,
        rateLimit: body.rate_limit ? { requests: body.rate_limit.requests, perSeconds: body.rate_limit.per_seconds } : null,
      });
      return json({ ...toKey(row), key }, 201);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/keys",
    summary: "List active keys (prefix, scopes, sites, limits, created and last used)",
    tag: "Keys",
    scope: "admin",
    responses: { 200: { description: "Active keys.", schema: z.object({ keys: z.array(keyResource) }) } },
    async handle({ db }) {
      return json({ keys: (await listKeys(db)).map(toKey) });
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/keys/:id",
    summary: "Revoke a key; it stops working at once",
    tag: "Keys",
    scope: "admin",
    params: keyParams,
    responses: { 204: { description: "Revoked." }, 404: { description: "No active key with that id." } },
    async handle({ db, params }) {
      if (!(await revokeKey(db, params.id))) throw new HttpProblem(404, `No active key ${params.id}.`, { field: "id" });
      return new Response(null, { status: 204 });
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/keys/:id/usage",
    summary: "A key's calls per UTC day and route",
    tag: "Keys",
    scope: "admin",
    params: keyParams,
    query: z.strictObject({
      days: z.coerce.number().int().min(1).max(366).default(30).meta({ param: { description: "How many days back (1–366, default 30)." } }),
    }),
    responses: { 200: { description: "Call counters, newest day first.", schema: usageResource }, 404: { description: "No such key." } },
    async handle({ db, params, query }) {
      const exists = await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.id, params.id));
      if (exists.length === 0) throw new HttpProblem(404, `No key ${params.id}.`, { field: "id" });
      const since = utcDay(Date.now() - (query.days - 1) * 86_400_000);
      const rows = await db
        .select({ day: keyUsage.day, route: keyUsage.route, calls: keyUsage.calls })
        .from(keyUsage)
        .where(and(eq(keyUsage.keyId, params.id), gte(keyUsage.day, since)))
        .orderBy(desc(keyUsage.day), keyUsage.route);
      return json({ key_id: params.id, usage: rows });
    },
  }),
];
