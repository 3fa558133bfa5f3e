/**
 * Shared dashboard links: a site's admins make, list and revoke them (`write:sites` on the
 * site); the share page's script asks who it is (`GET /api/v1/share`) and, for a password
 * link, unlocks it (`POST /share/{token}/unlock`). The token is in the answer to the create
 * only. What a link may read is listed in api/share-auth.ts; the page itself is share-page.ts.
 */
import { z } from "zod";
import {
  checkSharePassword,
  createShare,
  listShares,
  revokeShare,
  sharedSiteOf,
  unlockCookie,
  type ShareRow,
} from "../../domain/shares";
import { auditActor, recordAudit } from "../../domain/audit";
import { getSite } from "../../domain/sites";
import { shareId, siteId } from "../../lib/ids";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../../lib/password";
import { HttpProblem } from "../../lib/problem";
import { publicUrl } from "../../lib/public-url";
import { rateLimiterFor } from "../key-limiter";
import { siteParams } from "../params";
import { route } from "../registry";

/** Password guesses per link: 10, then one a minute (a bucket of 10 refilled over 10 minutes). */
export const UNLOCK_LIMIT = { requests: 10, perSeconds: 600 };

const timestamp = z.string().meta({ format: "date-time", example: "2026-11-27T12:00:00.000Z" });

const shareResource = z
  .object({
    id: z.string().meta({ example: "shr_Vb1xQ9kLm2Zp4TcA" }),
    site_id: z.string(),
    token_prefix: z.string().meta({ description: "The link token's first characters, to tell links apart." }),
    password: z.boolean().meta({ description: "Whether the link asks for a password." }),
    expires_at: timestamp.nullable(),
    embed: z.boolean().meta({ description: "Whether the site's own pages may frame the link." }),
    frame_ancestors: z
      .array(z.string())
      .meta({ description: "The CSP frame-ancestors sources of an embeddable link: the site's hostnames, https and http." }),
    created_at: timestamp,
  })
  .meta({ id: "ShareLink" });

const createdShareResource = shareResource
  .extend({
    url: z.string().meta({ description: "The link. Shown once: only its hash is stored." }),
    iframe: z.string().nullable().meta({ description: "An iframe tag for the site's pages, when the link may be embedded." }),
  })
  .meta({ id: "CreatedShareLink" });

const shareCreateBody = z.strictObject({
  password: z
    .string()
    .min(PASSWORD_MIN_LENGTH)
    .max(PASSWORD_MAX_LENGTH)
    .optional()
    .meta({
      description: `Asked before the dashboard opens (${PASSWORD_MIN_LENGTH}–${PASSWORD_MAX_LENGTH} characters); stored as PBKDF2-SHA256.`,
    }),
  expires_at: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: "After this instant the link opens nothing (default: until revoked). Must be in the future." }),
  embed: z.boolean().default(false).meta({ description: "Let the site's own pages frame the link (CSP frame-ancestors)." }),
});

const shareParams = z.strictObject({
  id: siteId.meta({ param: { description: "Site id" } }),
  share: shareId.meta({ param: { description: "Share link id" } }),
});

const tokenParams = z.strictObject({
  token: z
    .string()
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, "must be a share link token")
    .meta({ param: { description: "The link's token (the last part of its URL)." } }),
});

const unlockBody = z.strictObject({ password: z.string().min(1).max(PASSWORD_MAX_LENGTH) });

const iso = (ms: number) => new Date(ms).toISOString();

function toShare(row: ShareRow): z.infer<typeof shareResource> {
  return {
    id: row.id,
    site_id: row.siteId,
    token_prefix: row.tokenPrefix,
    password: row.passwordHash !== null,
    expires_at: row.expiresAt === null ? null : iso(row.expiresAt),
    embed: row.embedOrigin !== null,
    frame_ancestors: row.embedOrigin?.split(" ") ?? [],
    created_at: iso(row.createdAt),
  };
}

/** The iframe tag an admin pastes into the site's pages. */
function iframeFor(url: string, siteName: string): string {
  const title = `Wren: ${siteName}`.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<iframe src="${url}" title="${title}" width="100%" height="900" style="border:0" loading="lazy"></iframe>`;
}

export const shareRoutes = [
  route({
    operationId: "createShareLink",
    method: "POST",
    path: "/api/v1/sites/:id/shares",
    summary: "Make a shared dashboard link: the site's reports, read-only, for anyone holding it",
    tag: "Shares",
    auth: "key",
    scope: "write:sites",
    params: siteParams,
    body: shareCreateBody,
    bodyLimit: 4096,
    site: { from: "params", name: "id" },
    responses: {
      201: { description: "Made; `url` is shown only now.", schema: createdShareResource },
      404: { description: "No such site." },
    },
    async handle({ db, params, body, caller, baseUrl, reply }) {
      const expiresAt = body.expires_at === undefined ? undefined : Date.parse(body.expires_at);
      const { row, token } = await createShare(db, params.id, {
        password: body.password,
        expiresAt,
        embed: body.embed,
        createdBy: caller.principal.id,
      });
      await recordAudit(db, {
        actor: auditActor(caller),
        action: "share.create",
        siteId: row.siteId,
        target: row.id,
        // Whether it has a password, never the password (nor the token).
        detail: { protected: row.passwordHash !== null, expires_at: body.expires_at ?? null, embed: body.embed },
      });
      const url = `${baseUrl.replace(/\/+$/, "")}/share/${token}`;
      const site = await getSite(db, params.id);
      return reply(201, { ...toShare(row), url, iframe: row.embedOrigin ? iframeFor(url, site?.name ?? params.id) : null });
    },
  }),
  route({
    operationId: "listShareLinks",
    method: "GET",
    path: "/api/v1/sites/:id/shares",
    summary: "A site's shared dashboard links that are not revoked (never their tokens)",
    tag: "Shares",
    auth: "key",
    scope: "write:sites",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: {
      200: { description: "The links.", schema: z.object({ shares: z.array(shareResource) }) },
      404: { description: "No such site." },
    },
    async handle({ db, params, reply }) {
      return reply(200, { shares: (await listShares(db, params.id)).map(toShare) });
    },
  }),
  route({
    operationId: "revokeShareLink",
    method: "DELETE",
    path: "/api/v1/sites/:id/shares/:share",
    summary: "Revoke a shared dashboard link: it opens nothing from now on",
    tag: "Shares",
    auth: "key",
    scope: "write:sites",
    params: shareParams,
    site: { from: "params", name: "id" },
    responses: { 204: { description: "Revoked." }, 404: { description: "No such live link on this site." } },
    async handle({ db, params, caller, reply }) {
      const row = await revokeShare(db, params.id, params.share);
      await recordAudit(db, { actor: auditActor(caller), action: "share.revoke", siteId: row.siteId, target: row.id });
      return reply(204);
    },
  }),
  route({
    operationId: "getShare",
    method: "GET",
    path: "/api/v1/share",
    summary: "What a shared dashboard link opens: its site's id and name",
    tag: "Shares",
    auth: "share",
    // The link's reader always holds read:reports: no scope to refuse (and no 403 to document).
    scope: "any",
    responses: {
      200: {
        description: "The link's site.",
        schema: z.object({ id: z.string(), site: z.object({ id: z.string(), name: z.string() }) }).meta({ id: "Share" }),
      },
    },
    async handle({ db, caller, reply }) {
      const siteIdOfShare = sharedSiteOf(caller);
      const site = await getSite(db, siteIdOfShare);
      return reply(200, { id: caller.principal.id, site: { id: siteIdOfShare, name: site?.name ?? siteIdOfShare } });
    },
  }),
  route({
    operationId: "createShareUnlock",
    method: "POST",
    path: "/share/:token/unlock",
    summary: "Open a password link: the right password sets a short-lived HttpOnly cookie the link's reads need",
    tag: "Shares",
    auth: "share",
    // The link's reader always holds read:reports: no scope to refuse (and no 403 to document).
    scope: "any",
    beforeUnlock: true,
    params: tokenParams,
    body: unlockBody,
    bodyLimit: 1024,
    responses: {
      204: {
        description: "Unlocked for two hours: `Set-Cookie: wren_share_<id>=…; HttpOnly; SameSite=Strict`.",
        headers: { "Set-Cookie": { description: "The unlock cookie.", required: false, schema: { type: "string" } } },
      },
    },
    async handle({ db, env, caller, body, reply }) {
      const share = await db.query.shareLinks.findFirst({ where: (t, { eq }) => eq(t.id, caller.principal.id) });
      if (!share)
        throw new HttpProblem(401, "The share link is not valid.", {
          field: "authorization",
          headers: { "www-authenticate": 'Share realm="wren"' },
        });
      // Each guess costs 600,000 PBKDF2 rounds, and a link gets ten, then one a minute.
      const decision = await rateLimiterFor(env.RATE_LIMITER, `${share.id}:unlock`).take(UNLOCK_LIMIT, {
        keyId: share.id,
        route: "POST /share/:token/unlock",
      });
      if (!decision.allowed)
        throw new HttpProblem(429, "Too many password attempts for this link; wait and try again.", {
          field: "password",
          headers: { "retry-after": String(decision.retryAfterSeconds) },
        });
      if (!(await checkSharePassword(share, body.password)))
        throw new HttpProblem(401, "That is not the password of this link.", {
          field: "password",
          headers: { "www-authenticate": 'Share realm="wren"' },
        });
      const secure = publicUrl(env).startsWith("https:");
      return reply(204, undefined, { headers: { "set-cookie": await unlockCookie(env.WREN_SECRET, share, secure) } });
    },
  }),
];
