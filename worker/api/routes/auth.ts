/**
 * Signing in and out: the sign-in methods, passkey ceremonies (registration from an invitation
 * or by a signed-in person, usernameless sign-in), who am I (with the CSRF token), sign-out, and
 * a person's own sessions. The ceremonies are `public` routes (no credentials; their POSTs must
 * carry the dashboard's own Origin); the rest take the session cookie.
 *
 * Fixation: a successful sign-in or registration revokes whatever session cookie came with it
 * and sets a new one.
 */
import { z } from "zod";
import { auditActor, recordAudit, recordAuditStatement } from "../../domain/audit";
import { findUsableInvitation, redeemInvitation } from "../../domain/people/invitations";
import {
  addPasskey,
  insertPasskeyStatement,
  registrationOptions,
  relyingParty,
  signInOptions,
  verifyRegistration,
  verifySignIn,
} from "../../domain/people/passkeys";
import {
  clearedSessionCookie,
  listSessions,
  revokeByCookie,
  revokeSession,
  csrfTokenFor,
  findSessionById,
  sessionSettings,
  sessionTokenFrom,
  startSession,
} from "../../domain/people/sessions";
import { findAccount } from "../../domain/people/accounts";
import { callerForAccount } from "../../domain/access";
import { now } from "../../lib/clock";
import { newId, sessionId } from "../../lib/ids";
import { HttpProblem } from "../../lib/problem";
import { authenticateSession, requireAccount } from "../auth";
import { route } from "../registry";
import type { ApiEnv } from "../env";

const grantResource = z.object({ site: z.string(), role: z.enum(["viewer", "editor", "admin"]) });

const sessionResource = z
  .object({
    account: z.object({ id: z.string(), name: z.string(), email: z.string().nullable() }),
    grants: z.array(grantResource),
    scopes: z.array(z.string()),
    csrf_token: z.string().meta({ description: "Send it as `x-wren-csrf` on every write made with the session cookie." }),
    session: z.object({ id: z.string(), expires_at: z.string() }),
  })
  .meta({ id: "PersonSession" });

const SET_COOKIE = {
  "Set-Cookie": {
    description: "The new `wren_session` cookie (HttpOnly, SameSite=Strict, Secure over TLS).",
    required: true,
    schema: { type: "string" as const },
  },
};

const credentialJson = z.looseObject({ id: z.string().max(1024), type: z.literal("public-key"), response: z.looseObject({}) });
const ceremonyResource = (description: string) =>
  z.object({ challenge_id: z.string(), options: z.looseObject({}).meta({ description }) });

type Database = Parameters<typeof startSession>[0];

const nameField = z.string().trim().min(1).max(100);

async function signedIn(db: Database, env: ApiEnv, request: Request, accountId: string, method: "passkey") {
  // Fixation: whatever cookie came along is ended, and a new token is made.
  await revokeByCookie(db, sessionTokenFrom(request));
  return startSession(db, { accountId, method, userAgent: request.headers.get("user-agent"), settings: sessionSettings(env) });
}

async function whoAmI(db: Database, accountId: string, sessionIdValue: string, csrfToken: string, expiresAt: number) {
  const account = await findAccount(db, accountId);
  const scopes = callerForAccount({ ...account, sessionId: sessionIdValue }, account.grants).key.scopes;
  return {
    account: { id: account.id, name: account.name, email: account.email },
    grants: account.grants.map((g) => ({ site: g.siteId, role: g.role })),
    scopes,
    csrf_token: csrfToken,
    session: { id: sessionIdValue, expires_at: new Date(expiresAt).toISOString() },
  };
}

export const authRoutes = [
  route({
    operationId: "getAuthMethods",
    method: "GET",
    path: "/api/v1/auth/methods",
    summary: "How people can sign in here (passkeys; the operator's OpenID provider when configured)",
    tag: "People",
    auth: "public",
    scope: "any",
    responses: {
      200: {
        description: "The sign-in methods.",
        schema: z.object({ passkey: z.boolean(), oidc: z.object({ name: z.string() }).nullable() }),
      },
    },
    async handle({ reply }) {
      return reply(200, { passkey: true, oidc: null });
    },
  }),
  route({
    operationId: "createPasskeyRegistrationOptions",
    method: "POST",
    path: "/api/v1/auth/passkey/register/options",
    summary: "Options to create a passkey: for a new person with an invitation, or for the signed-in person",
    tag: "People",
    auth: "public",
    scope: "any",
    body: z.strictObject({
      invitation: z
        .string()
        .max(100)
        .optional()
        .meta({ description: "The invitation token (the link's fragment); without it, the session cookie says who." }),
      name: nameField.optional().meta({ description: "The new person's name (with an invitation)." }),
    }),
    responses: {
      200: {
        description: "Pass `options` to navigator.credentials.create (@simplewebauthn/browser startRegistration).",
        schema: ceremonyResource("PublicKeyCredentialCreationOptionsJSON"),
      },
      401: { description: "The invitation is unknown, expired, revoked or used; or no invitation and not signed in." },
      503: { description: "The database is not answering; nothing was written. Retry after Retry-After." },
      403: { description: "A write from another origin, or without the session's CSRF token." },
    },
    async handle({ db, env, request, body, reply }) {
      const rp = relyingParty(env);
      if (body.invitation !== undefined) {
        const invitation = await findUsableInvitation(db, body.invitation);
        const ceremony = await registrationOptions(db, rp, {
          accountId: newId("acct"),
          userName: body.name ?? invitation.email ?? "Wren user",
          invitationId: invitation.id,
          forExisting: false,
        });
        return reply(200, {
          challenge_id: ceremony.challengeId,
          options: ceremony.options as unknown as Record<string, unknown>,
        });
      }
      const caller = await authenticateSession(request, env, db, { csrf: true });
      const account = requireAccount(caller);
      const ceremony = await registrationOptions(db, rp, {
        accountId: account.id,
        userName: caller.principal.name,
        forExisting: true,
      });
      return reply(200, { challenge_id: ceremony.challengeId, options: ceremony.options as unknown as Record<string, unknown> });
    },
  }),
  route({
    operationId: "createPasskey",
    method: "POST",
    path: "/api/v1/auth/passkey/register",
    summary:
      "Store a new passkey: with an invitation it makes the account (and signs it in); else it is added to the signed-in person",
    tag: "People",
    auth: "public",
    scope: "any",
    bodyLimit: 64 * 1024,
    body: z.strictObject({
      challenge_id: z.string().max(60),
      invitation: z.string().max(100).optional(),
      name: nameField.optional().meta({ description: "The person's name (with an invitation), else the passkey's name." }),
      response: credentialJson.meta({ description: "RegistrationResponseJSON from @simplewebauthn/browser startRegistration." }),
    }),
    responses: {
      201: {
        description: "Registered. With an invitation: signed in (the cookie is set).",
        schema: z.union([sessionResource, z.object({ passkey: z.object({ id: z.string(), name: z.string() }) })]),
        headers: { "Set-Cookie": { ...SET_COOKIE["Set-Cookie"], required: false } },
      },
      401: { description: "The challenge, the invitation or the passkey did not verify; nothing was written." },
      503: { description: "The database is not answering; nothing was written. Retry after Retry-After." },
      403: { description: "A write from another origin, or without the session's CSRF token." },
    },
    async handle({ db, env, request, body, reply }) {
      const rp = relyingParty(env);
      const at = now();
      if (body.invitation !== undefined) {
        const invitation = await findUsableInvitation(db, body.invitation, at);
        const passkey = await verifyRegistration(db, rp, body.challenge_id, body.response as never, at);
        if (!passkey.invitationId)
          throw new HttpProblem(401, "The challenge was not made for an invitation.", { field: "challenge_id" });
        const redeemed = await redeemInvitation(db, body.invitation, at, {
          accountId: passkey.accountId,
          name: body.name,
          extra: (accountId) => [
            insertPasskeyStatement(db, passkey, "Passkey", at),
            recordAuditStatement(db, {
              actor: { kind: "account", id: accountId, name: body.name ?? "New person" },
              action: "account.join",
              siteId: invitation.siteId === "*" ? null : invitation.siteId,
              target: accountId,
              detail: { site: invitation.siteId, role: invitation.role, invitation: invitation.id },
            }),
          ],
        });
        if (redeemed.invitationId !== passkey.invitationId)
          throw new HttpProblem(401, "The challenge belongs to another invitation.", { field: "challenge_id" });
        const started = await signedIn(db, env, request, redeemed.accountId, "passkey");
        await recordAudit(db, {
          actor: { kind: "account", id: redeemed.accountId, name: body.name ?? "New person" },
          action: "session.sign_in",
          target: started.sessionId,
          detail: { method: "passkey" },
        });
        const settings = sessionSettings(env);
        return reply(201, await whoAmI(db, redeemed.accountId, started.sessionId, started.csrfToken, at + settings.maxMs), {
          headers: { "set-cookie": started.cookie },
        });
      }
      const caller = await authenticateSession(request, env, db, { csrf: true });
      const account = requireAccount(caller);
      const passkey = await verifyRegistration(db, rp, body.challenge_id, body.response as never, at);
      if (passkey.accountId !== account.id || passkey.invitationId)
        throw new HttpProblem(401, "The challenge was made for someone else.", { field: "challenge_id" });
      const name = body.name ?? "Passkey";
      const audit = {
        actor: auditActor(caller),
        action: "passkey.add",
        target: passkey.credentialId.slice(0, 16),
        detail: { name },
      };
      await addPasskey(db, passkey, name, audit, at);
      return reply(201, { passkey: { id: passkey.credentialId, name } });
    },
  }),
  route({
    operationId: "createPasskeySignInOptions",
    method: "POST",
    path: "/api/v1/auth/passkey/sign-in/options",
    summary: "Options to sign in with a passkey (usernameless: the authenticator offers its passkeys)",
    tag: "People",
    auth: "public",
    scope: "any",
    responses: {
      200: {
        description: "Pass `options` to navigator.credentials.get (@simplewebauthn/browser startAuthentication).",
        schema: ceremonyResource("PublicKeyCredentialRequestOptionsJSON"),
      },
      403: { description: "A request from another origin." },
      503: { description: "The database is not answering; nothing was written. Retry after Retry-After." },
    },
    async handle({ db, env, reply }) {
      const ceremony = await signInOptions(db, relyingParty(env));
      return reply(200, { challenge_id: ceremony.challengeId, options: ceremony.options as unknown as Record<string, unknown> });
    },
  }),
  route({
    operationId: "createSessionWithPasskey",
    method: "POST",
    path: "/api/v1/auth/passkey/sign-in",
    summary: "Sign in with a passkey's assertion; sets the session cookie",
    tag: "People",
    auth: "public",
    scope: "any",
    bodyLimit: 64 * 1024,
    body: z.strictObject({
      challenge_id: z.string().max(60),
      response: credentialJson.meta({
        description: "AuthenticationResponseJSON from @simplewebauthn/browser startAuthentication.",
      }),
    }),
    responses: {
      200: { description: "Signed in.", schema: sessionResource, headers: SET_COOKIE },
      401: { description: "The challenge is unknown, used or expired, or the passkey did not verify; nothing was written." },
      503: { description: "The database is not answering; nothing was written. Retry after Retry-After." },
      403: { description: "A request from another origin." },
    },
    async handle({ db, env, request, body, reply }) {
      const at = now();
      const { accountId } = await verifySignIn(db, relyingParty(env), body.challenge_id, body.response as never, at);
      const account = await findAccount(db, accountId);
      if (account.grants.length === 0) throw new HttpProblem(401, "This person has no access any more.", { field: "response" });
      const started = await signedIn(db, env, request, accountId, "passkey");
      await recordAudit(db, {
        actor: { kind: "account", id: accountId, name: account.name },
        action: "session.sign_in",
        target: started.sessionId,
        detail: { method: "passkey" },
      });
      return reply(200, await whoAmI(db, accountId, started.sessionId, started.csrfToken, at + sessionSettings(env).maxMs), {
        headers: { "set-cookie": started.cookie },
      });
    },
  }),
  route({
    operationId: "getSession",
    method: "GET",
    path: "/api/v1/session",
    summary: "Who is signed in: the account, its roles and scopes, and a fresh CSRF token",
    tag: "People",
    auth: "session",
    scope: "any",
    responses: {
      200: { description: "The signed-in person.", schema: sessionResource },
    },
    async handle({ db, request, caller, reply }) {
      const account = requireAccount(caller);
      const csrf = await csrfTokenFor(sessionTokenFrom(request)!);
      const session = await findSessionById(db, account.sessionId);
      return reply(200, await whoAmI(db, account.id, account.sessionId, csrf, session.expiresAt));
    },
  }),
  route({
    operationId: "deleteSession",
    method: "DELETE",
    path: "/api/v1/session",
    summary: "Sign out: ends this session and clears the cookie",
    tag: "People",
    auth: "session",
    scope: "any",
    responses: {
      204: { description: "Signed out.", headers: SET_COOKIE },
      403: { description: "Without the session's CSRF token, or from another origin; nothing was written." },
    },
    async handle({ db, env, caller, reply }) {
      const account = requireAccount(caller);
      await revokeSession(db, account.id, account.sessionId);
      await recordAudit(db, { actor: auditActor(caller), action: "session.sign_out", target: account.sessionId });
      return reply(204, undefined, { headers: { "set-cookie": clearedSessionCookie(sessionSettings(env).secure) } });
    },
  }),
  route({
    operationId: "listAccountSessions",
    method: "GET",
    path: "/api/v1/account/sessions",
    summary: "Your signed-in sessions: a coarse browser label and times (no IP, no full User-Agent)",
    tag: "People",
    auth: "session",
    scope: "any",
    responses: {
      200: {
        description: "Live sessions, newest first.",
        schema: z.object({
          sessions: z.array(
            z
              .object({
                id: z.string(),
                label: z.string(),
                method: z.string(),
                created_at: z.string(),
                last_seen_at: z.string(),
                expires_at: z.string(),
                current: z.boolean(),
              })
              .meta({ id: "AccountSession" }),
          ),
        }),
      },
    },
    async handle({ db, env, caller, reply }) {
      const account = requireAccount(caller);
      const rows = await listSessions(db, account.id, sessionSettings(env));
      return reply(200, {
        sessions: rows.map((s) => ({
          id: s.id,
          label: s.userAgentLabel,
          method: s.method,
          created_at: new Date(s.createdAt).toISOString(),
          last_seen_at: new Date(s.lastSeenAt).toISOString(),
          expires_at: new Date(s.expiresAt).toISOString(),
          current: s.id === account.sessionId,
        })),
      });
    },
  }),
  route({
    operationId: "revokeAccountSession",
    method: "DELETE",
    path: "/api/v1/account/sessions/:id",
    summary: "End one of your sessions (another browser); it is refused at once",
    tag: "People",
    auth: "session",
    scope: "any",
    params: z.strictObject({ id: sessionId }),
    responses: {
      204: { description: "Ended." },
      403: { description: "Without the session's CSRF token, or from another origin; nothing was written." },
      404: { description: "No live session of yours with that id." },
    },
    async handle({ db, caller, params, reply }) {
      const account = requireAccount(caller);
      await revokeSession(db, account.id, params.id);
      await recordAudit(db, { actor: auditActor(caller), action: "session.revoke", target: params.id });
      return reply(204);
    },
  }),
];
