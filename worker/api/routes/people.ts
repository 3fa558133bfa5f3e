/**
 * People, invitations and the audit log (admins). Each route is `scope: "any"` at the door and
 * decides in domain/people/people.ts whether the caller manages the site it names: an admin of
 * all sites (or an admin key) everything, an admin of one site that site only, nobody else.
 */
import { z } from "zod";
import { auditActor, listAudit, recordAudit } from "../../domain/audit";
import {
  createInvitation,
  findInvitation,
  invitationLink,
  listInvitations,
  revokeInvitation,
} from "../../domain/people/invitations";
import {
  changeRole,
  listPeople,
  managedSites,
  removePerson,
  requireManages,
  requireManagesAny,
} from "../../domain/people/people";
import { ROLES } from "../../domain/people/roles";
import { accountId, invitationId, siteId } from "../../lib/ids";
import { EVERY_SITE } from "../../lib/keys";
import { HttpProblem } from "../../lib/problem";
import { requireSite } from "../../domain/sites";
import { queueInvitationMail } from "../../domain/invitation-mail";
import { route } from "../registry";

type Database = Parameters<typeof listPeople>[0];

const siteOrAll = z.union([z.literal(EVERY_SITE), siteId]).meta({ description: 'A site id, or "*" for every site.' });
const role = z.enum(ROLES);
const iso = (ms: number) => new Date(ms).toISOString();

const personResource = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    created_at: z.string(),
    passkeys: z.number().int(),
    grants: z.array(z.object({ site: z.string(), role })),
  })
  .meta({ id: "PersonResource" });

const invitationResource = z
  .object({
    id: z.string(),
    site: z.string(),
    role,
    email: z.string().nullable(),
    invited_by: z.string(),
    created_at: z.string(),
    expires_at: z.string(),
  })
  .meta({ id: "InvitationResource" });

const auditResource = z
  .object({
    id: z.string(),
    at: z.string(),
    actor: z.object({ kind: z.string(), id: z.string(), name: z.string() }),
    action: z.string(),
    site: z.string().nullable(),
    target: z.string().nullable(),
    detail: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: "AuditEntry" });

/** A named site must exist (404, field `site`); "*" always does. */
async function requireSiteOrAll(db: Database, site: string): Promise<void> {
  if (site !== EVERY_SITE) await requireSite(db, site, "site");
}

export const peopleRoutes = [
  route({
    operationId: "listPeople",
    method: "GET",
    path: "/api/v1/people",
    summary: "People with their roles (an admin of one site sees that site's people)",
    tag: "People",
    auth: "key",
    scope: "any",
    responses: {
      200: { description: "People.", schema: z.object({ people: z.array(personResource) }) },
      403: { description: "Not an admin." },
    },
    async handle({ db, caller, reply }) {
      requireManagesAny(caller);
      const people = await listPeople(db, caller);
      return reply(200, {
        people: people.map((p) => ({
          id: p.id,
          name: p.name,
          email: p.email,
          created_at: iso(p.createdAt),
          passkeys: p.passkeys,
          grants: p.grants.map((g) => ({ site: g.siteId, role: g.role })),
        })),
      });
    },
  }),
  route({
    operationId: "createInvitation",
    method: "POST",
    path: "/api/v1/people",
    summary: "Invite a person: a one-time link (shown once) that binds a site and a role",
    tag: "People",
    auth: "key",
    scope: "any",
    body: z.strictObject({
      site: siteOrAll,
      role,
      email: z.email().max(254).optional(),
      expires_in_days: z
        .number()
        .int()
        .min(1)
        .max(30)
        .default(7)
        .meta({ description: "Days until the link expires (1–30, default 7)." }),
    }),
    responses: {
      201: {
        description: "The invitation, with its link (shown once; only a hash of the token is kept).",
        schema: invitationResource.extend({ link: z.string() }),
      },
      403: { description: "The caller does not manage that site, or grants every site without being an admin of all sites." },
      404: { description: "No such site." },
    },
    async handle({ db, env, caller, body, baseUrl, reply }) {
      requireManages(caller, body.site);
      await requireSiteOrAll(db, body.site);
      const made = await createInvitation(db, {
        siteId: body.site,
        role: body.role,
        email: body.email ?? null,
        invitedBy: caller.principal.id,
        days: body.expires_in_days,
      });
      await recordAudit(db, {
        actor: auditActor(caller),
        action: "account.invite",
        siteId: body.site === EVERY_SITE ? null : body.site,
        target: made.id,
        detail: { site: body.site, role: body.role },
      });
      const row = (await findInvitation(db, made.id))!;
      const link = invitationLink(baseUrl, made.token);
      // By email too when mail is configured (part D: domain/invitation-mail.ts); else the link alone.
      if (body.email !== undefined) {
        const siteName = body.site === EVERY_SITE ? null : (await requireSite(db, body.site, "site")).name;
        await queueInvitationMail(db, env, {
          email: body.email,
          link,
          role: body.role,
          siteName,
          expiresAt: made.expiresAt,
          invitedBy: caller.principal.name,
        });
      }
      return reply(201, { ...toInvitation(row), link });
    },
  }),
  route({
    operationId: "updatePerson",
    method: "PATCH",
    path: "/api/v1/people/:id",
    summary: "Set a person's role on a site (adds the site when they had none there)",
    tag: "People",
    auth: "key",
    scope: "any",
    params: z.strictObject({ id: accountId }),
    body: z.strictObject({ site: siteOrAll, role }),
    responses: {
      200: { description: "The person after the change.", schema: personResource },
      403: { description: "The caller does not manage that site or that person." },
      404: { description: "No such person (among the caller's sites) or site." },
      409: { description: "The last admin of all sites cannot be demoted." },
    },
    async handle({ db, caller, params, body, reply }) {
      await requireSiteOrAll(db, body.site);
      await changeRole(db, caller, params.id, body.site, body.role, {
        actor: auditActor(caller),
        action: "account.role_change",
        siteId: body.site === EVERY_SITE ? null : body.site,
        target: params.id,
        detail: { site: body.site, role: body.role },
      });
      const person = (await listPeople(db, caller)).find((p) => p.id === params.id);
      if (!person) throw new HttpProblem(404, `No person ${params.id}.`, { field: "id" });
      return reply(200, {
        id: person.id,
        name: person.name,
        email: person.email,
        created_at: iso(person.createdAt),
        passkeys: person.passkeys,
        grants: person.grants.map((g) => ({ site: g.siteId, role: g.role })),
      });
    },
  }),
  route({
    operationId: "deletePerson",
    method: "DELETE",
    path: "/api/v1/people/:id",
    summary: "Remove a person from a site (`?site=`), or altogether; their sessions end at once",
    tag: "People",
    auth: "key",
    scope: "any",
    params: z.strictObject({ id: accountId }),
    query: z.strictObject({
      site: siteOrAll.optional().meta({
        param: {
          description: "Remove only this site's role; without it (admins of all sites only) the person goes altogether.",
        },
      }),
    }),
    responses: {
      204: { description: "Removed." },
      403: { description: "The caller does not manage that site or that person." },
      404: { description: "No such person (among the caller's sites)." },
      409: { description: "The last admin of all sites cannot be removed." },
    },
    async handle({ db, caller, params, query, reply }) {
      const site = query.site === EVERY_SITE ? EVERY_SITE : query.site;
      await removePerson(db, caller, params.id, site, {
        actor: auditActor(caller),
        action: "account.remove",
        siteId: site && site !== EVERY_SITE ? site : null,
        target: params.id,
        detail: { site: site ?? "all" },
      });
      return reply(204);
    },
  }),
  route({
    operationId: "listInvitations",
    method: "GET",
    path: "/api/v1/invitations",
    summary: "Pending invitations (unused, unexpired, unrevoked); never their links",
    tag: "People",
    auth: "key",
    scope: "any",
    responses: {
      200: { description: "Pending invitations.", schema: z.object({ invitations: z.array(invitationResource) }) },
      403: { description: "Not an admin." },
    },
    async handle({ db, caller, reply }) {
      requireManagesAny(caller);
      const sites = managedSites(caller);
      return reply(200, { invitations: (await listInvitations(db, sites)).map(toInvitation) });
    },
  }),
  route({
    operationId: "revokeInvitation",
    method: "DELETE",
    path: "/api/v1/invitations/:id",
    summary: "Revoke a pending invitation; its link stops working",
    tag: "People",
    auth: "key",
    scope: "any",
    params: z.strictObject({ id: invitationId }),
    responses: {
      204: { description: "Revoked." },
      403: { description: "Not an admin of its site." },
      404: { description: "No pending invitation with that id." },
    },
    async handle({ db, caller, params, reply }) {
      requireManagesAny(caller);
      const invitation = await findInvitation(db, params.id);
      const sites = managedSites(caller);
      if (!invitation || (sites !== null && !sites.includes(invitation.siteId)))
        throw new HttpProblem(404, `No pending invitation ${params.id}.`, { field: "id" });
      await revokeInvitation(db, params.id);
      await recordAudit(db, {
        actor: auditActor(caller),
        action: "account.invite_revoke",
        siteId: invitation.siteId === EVERY_SITE ? null : invitation.siteId,
        target: params.id,
      });
      return reply(204);
    },
  }),
  route({
    operationId: "listAudit",
    method: "GET",
    path: "/api/v1/audit",
    summary: "The audit log, newest first (an admin of one site reads that site's entries)",
    tag: "People",
    auth: "key",
    scope: "any",
    query: z.strictObject({
      site: siteId.optional().meta({ param: { description: "Only this site's entries." } }),
      before: z.iso
        .datetime()
        .optional()
        .meta({ param: { description: "Entries before this instant (the previous page's last `at`)." } }),
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(500)
        .default(100)
        .meta({ param: { description: "Entries per page (1–500, default 100)." } }),
    }),
    responses: {
      200: {
        description: "A page of entries; `next_before` pages on.",
        schema: z.object({ entries: z.array(auditResource), next_before: z.string().nullable() }),
      },
      403: { description: "Not an admin (of that site)." },
    },
    async handle({ db, caller, query, reply }) {
      requireManagesAny(caller);
      const sites = managedSites(caller);
      if (query.site && sites !== null && !sites.includes(query.site))
        throw new HttpProblem(403, `You may not read site ${query.site}'s audit log.`, { field: "site" });
      const rows = await listAudit(db, {
        sites,
        site: query.site,
        before: query.before ? Date.parse(query.before) : undefined,
        limit: query.limit,
      });
      return reply(200, {
        entries: rows.map((r) => ({
          id: r.id,
          at: iso(r.at),
          actor: { kind: r.actorKind, id: r.actorId, name: r.actorName },
          action: r.action,
          site: r.siteId,
          target: r.target,
          detail: r.detail ?? null,
        })),
        next_before: rows.length === query.limit ? iso(rows[rows.length - 1]!.at) : null,
      });
    },
  }),
];

function toInvitation(row: NonNullable<Awaited<ReturnType<typeof findInvitation>>>) {
  return {
    id: row.id,
    site: row.siteId,
    role: row.role,
    email: row.email,
    invited_by: row.invitedBy,
    created_at: iso(row.createdAt),
    expires_at: iso(row.expiresAt),
  };
}
