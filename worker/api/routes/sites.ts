/** Sites and the registry: register (idempotent per domain), list, read, rename, delete, rotate the s2s token, verify the snippet. */
import { z } from "zod";
import { auditActor, recordAudit } from "../../domain/audit";
import { registerSite } from "../../domain/registration";
import { s2sTokenFor } from "../../domain/s2s-token";
import { siteCreateBody, sitePatchBody } from "../../domain/schemas";
import { deleteSite, listSites, requireSite, rotateSiteToken, siteVerification, updateSite } from "../../domain/sites";
import { siteParams } from "../params";
import { route } from "../registry";
import { siteResource, toSite, toVerification, verificationResource } from "../resources";

export const siteRoutes = [
  route({
    operationId: "createSite",
    method: "POST",
    path: "/api/v1/sites",
    summary: "Register a site; returns its snippet and s2s token",
    tag: "Sites",
    auth: "key",
    scope: "write:sites",
    body: siteCreateBody,
    responses: {
      201: { description: "Registered.", schema: siteResource },
      200: {
        description: "This key already registered the domain: the same site (safe to re-run from CI).",
        schema: siteResource,
      },
      409: {
        description:
          "The domain belongs to another site: one outside this key's allowlist, or one a limited key registered first. An admin is told which site and key; anyone else learns no id or token.",
      },
    },
    async handle({ db, env, caller, body, baseUrl, reply }) {
      const { site, created } = await registerSite(db, caller, body);
      if (created) {
        await recordAudit(db, { actor: auditActor(caller), action: "site.create", siteId: site.id, target: site.id, detail: { domain: site.domain } });
      }
      return reply(created ? 201 : 200, toSite(site, baseUrl, await s2sTokenFor(caller, env.WREN_SECRET, site)));
    },
  }),
  route({
    operationId: "listSites",
    method: "GET",
    path: "/api/v1/sites",
    summary: "The site registry (only sites on the key's allowlist)",
    tag: "Sites",
    auth: "key",
    scope: "read:sites",
    responses: { 200: { description: "Sites.", schema: z.object({ sites: z.array(siteResource) }) } },
    async handle({ db, caller, baseUrl, reply }) {
      return reply(200, { sites: (await listSites(db, caller.allowedSites())).map((s) => toSite(s, baseUrl)) });
    },
  }),
  route({
    operationId: "getSite",
    method: "GET",
    path: "/api/v1/sites/:id",
    summary: "One site",
    tag: "Sites",
    auth: "key",
    scope: "read:sites",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: { 200: { description: "The site.", schema: siteResource }, 404: { description: "No such site." } },
    async handle({ db, params, baseUrl, reply }) {
      return reply(200, toSite(await requireSite(db, params.id), baseUrl));
    },
  }),
  route({
    operationId: "updateSite",
    method: "PATCH",
    path: "/api/v1/sites/:id",
    summary: "Rename a site, or set its time zone until its first day with data is published (the domain is fixed: register a new site for another domain)",
    tag: "Sites",
    auth: "key",
    scope: "write:sites",
    params: siteParams,
    body: sitePatchBody,
    site: { from: "params", name: "id" },
    responses: {
      200: { description: "The updated site.", schema: siteResource },
      404: { description: "No such site." },
      409: { description: "The time zone can no longer change: days of the site are already published (a published figure is final)." },
    },
    async handle({ db, caller, params, body, baseUrl, reply }) {
      const site = await updateSite(db, params.id, body);
      await recordAudit(db, { actor: auditActor(caller), action: "site.update", siteId: site.id, target: site.id, detail: { fields: Object.keys(body) } });
      return reply(200, toSite(site, baseUrl));
    },
  }),
  route({
    operationId: "deleteSite",
    method: "DELETE",
    path: "/api/v1/sites/:id",
    summary: "Delete a site and everything recorded for it",
    tag: "Sites",
    auth: "key",
    scope: "write:sites",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: { 204: { description: "Deleted." }, 404: { description: "No such site." } },
    async handle({ db, caller, params, reply }) {
      await deleteSite(db, params.id);
      await recordAudit(db, { actor: auditActor(caller), action: "site.delete", siteId: params.id, target: params.id });
      return reply(204);
    },
  }),
  route({
    operationId: "rotateSiteToken",
    method: "POST",
    path: "/api/v1/sites/:id/token",
    summary: "Rotate the site's s2s token; the old one stops working at once (the new one is returned to keys with write:events)",
    tag: "Sites",
    auth: "key",
    scope: "write:sites",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: {
      200: {
        description: "Rotated; the new token when the key also holds write:events.",
        schema: z.object({ id: z.string(), s2s_token: z.string().optional() }),
      },
      404: { description: "No such site." },
    },
    async handle({ db, env, caller, params, reply }) {
      const site = await rotateSiteToken(db, params.id);
      const token = await s2sTokenFor(caller, env.WREN_SECRET, site);
      return reply(200, { id: site.id, ...(token ? { s2s_token: token } : {}) });
    },
  }),
  route({
    operationId: "getSiteVerification",
    method: "GET",
    path: "/api/v1/sites/:id/verification",
    summary: "Whether the snippet works: has a beacon from an allowlisted origin arrived, and when the first did",
    tag: "Sites",
    auth: "key",
    scope: "read:sites",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: {
      200: { description: "Verification state.", schema: verificationResource },
      404: { description: "No such site." },
    },
    async handle({ db, params, reply }) {
      return reply(200, toVerification(params.id, await siteVerification(db, params.id)));
    },
  }),
];
