/** API keys: issue, list, revoke, and per-day call counters (admin); and any key's view of itself. */
import { z } from "zod";
import { auditActor, recordAudit } from "../../domain/audit";
import { issueKey, listKeys, revokeKey } from "../../domain/apikeys";
import { keyCreateBody } from "../../domain/schemas";
import { keyUsageSince, requireKey } from "../../domain/usage";
import { HttpProblem } from "../../lib/problem";
import { keyParams } from "../params";
import { rateLimiterFor } from "../key-limiter";
import { route } from "../registry";
import { keyResource, newKeyResource, toKey, usageResource } from "../resources";

export const keyRoutes = [
  route({
    operationId: "createKey",
    method: "POST",
    path: "/api/v1/keys",
    summary: "Issue an API key (the secret is shown once)",
    tag: "Keys",
    auth: "key",
    scope: "admin",
    body: keyCreateBody,
    responses: { 201: { description: "The new key, with its secret.", schema: newKeyResource } },
    async handle({ db, caller, body, reply }) {
      const { row, key } = await issueKey(db, {
        name: body.name,
        scopes: body.scopes,
        sites: body.sites ?? null,
        rateLimit: body.rate_limit ? { requests: body.rate_limit.requests, perSeconds: body.rate_limit.per_seconds } : null,
      });
      await recordAudit(db, {
        actor: auditActor(caller),
        action: "key.create",
        target: row.id,
        detail: { name: row.name, scopes: row.scopes },
      });
      return reply(201, { ...toKey(row), key });
    },
  }),
  route({
    operationId: "listKeys",
    method: "GET",
    path: "/api/v1/keys",
    summary: "List active keys (prefix, scopes, sites, limits, created and last used)",
    tag: "Keys",
    auth: "key",
    scope: "admin",
    responses: { 200: { description: "Active keys.", schema: z.object({ keys: z.array(keyResource) }) } },
    async handle({ db, reply }) {
      return reply(200, { keys: (await listKeys(db)).map(toKey) });
    },
  }),
  route({
    operationId: "getCurrentKey",
    method: "GET",
    path: "/api/v1/keys/current",
    summary: "The calling key: its scopes and sites (a client shows only what they allow)",
    tag: "Keys",
    auth: "key",
    scope: "any",
    responses: { 200: { description: "The key the request was made with.", schema: keyResource } },
    async handle({ caller, reply }) {
      return reply(200, toKey(caller.key));
    },
  }),
  route({
    operationId: "revokeKey",
    method: "DELETE",
    path: "/api/v1/keys/:id",
    summary: "Revoke a key; it stops working at once",
    tag: "Keys",
    auth: "key",
    scope: "admin",
    params: keyParams,
    responses: { 204: { description: "Revoked." }, 404: { description: "No active key with that id." } },
    async handle({ db, caller, params, reply }) {
      await revokeKey(db, params.id);
      await recordAudit(db, { actor: auditActor(caller), action: "key.revoke", target: params.id });
      return reply(204);
    },
  }),
  route({
    operationId: "getKeyUsage",
    method: "GET",
    path: "/api/v1/keys/:id/usage",
    summary: "A key's calls per UTC day and route",
    tag: "Keys",
    auth: "key",
    scope: "admin",
    params: keyParams,
    query: z.strictObject({
      days: z.coerce
        .number()
        .int()
        .min(1)
        .max(366)
        .default(30)
        .meta({ param: { description: "How many days back (1–366, default 30)." } }),
    }),
    responses: {
      200: { description: "Call counters, newest day first.", schema: usageResource },
      404: { description: "No such key." },
    },
    async handle({ db, env, params, query, reply }) {
      await requireKey(db, params.id);
      // The key's limiter holds its latest calls for up to 10 s (api/ratelimit.ts); have it
      // write them first, so the counts read below are exact.
      if (!(await rateLimiterFor(env.RATE_LIMITER, params.id).flush())) {
        throw new HttpProblem(503, "The key's latest calls could not be written; retry shortly.", {
          headers: { "retry-after": "5" },
        });
      }
      return reply(200, { key_id: params.id, usage: await keyUsageSince(db, params.id, query.days) });
    },
  }),
];
