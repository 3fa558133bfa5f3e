/**
 * Who a verified OpenID identity is here, and its dashboard session. `(issuer, subject)` maps to
 * an account through oidc_identities; an unknown pair joins only
 *   - with an invitation (redeemed in the same transaction that creates the account, its grant
 *     and the identity: Part A's redeemInvitation), or
 *   - with WREN_OIDC_LINK_BY_EMAIL=true, an account whose email equals the ID token's email
 *     AND the provider says `email_verified: true` (an unverified email would let anyone who
 *     can set their email at the provider take over the account).
 * Everything else is refused before anything is written. A sign-in then starts a new session
 * (any cookie the browser presented is revoked: fixation) and is audited.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../../lib/db";
import { HttpProblem } from "../../lib/problem";
import { accounts, oidcIdentities } from "../../lib/schema";
import { recordAudit } from "../audit";
import { redeemInvitation } from "./invitations";
import { OidcRefusal, type VerifiedIdentity } from "./oidc";
import { revokeByCookie, startSession, type SessionSettings } from "./sessions";

export interface SignedIn {
  accountId: string;
  name: string;
  /** Set-Cookie value of the new session. */
  cookie: string;
  /** How the identity was known: already linked, joined by invitation, or linked by email. */
  via: "identity" | "invitation" | "email";
}

/** The account behind an identity, or how it may join; throws OidcRefusal. */
async function accountFor(
  db: Database,
  identity: VerifiedIdentity,
  options: { invitationToken: string | null; linkByEmail: boolean; at: number },
): Promise<{ id: string; name: string; via: SignedIn["via"]; siteId?: string; role?: string }> {
  const [known] = await db
    .select({ id: accounts.id, name: accounts.name, disabledAt: accounts.disabledAt })
    .from(oidcIdentities)
    .innerJoin(accounts, eq(accounts.id, oidcIdentities.accountId))
    .where(and(eq(oidcIdentities.issuer, identity.issuer), eq(oidcIdentities.subject, identity.subject)));
  if (known) {
    if (known.disabledAt !== null) throw new OidcRefusal("account_disabled");
    return { id: known.id, name: known.name, via: "identity" };
  }

  if (options.invitationToken) {
    const name = identity.name ?? identity.email ?? "New person";
    try {
      const redeemed = await redeemInvitation(db, options.invitationToken, options.at, {
        name,
        // The identity in the same batch, only where the account was made (the invitation held).
        extra: (accountId) => [
          db.run(
            sql`INSERT INTO ${oidcIdentities} (issuer, subject, account_id, created_at) SELECT ${identity.issuer}, ${identity.subject}, ${accountId}, ${options.at} WHERE EXISTS (SELECT 1 FROM ${accounts} WHERE ${accounts.id} = ${accountId})`,
          ),
        ],
      });
      return { id: redeemed.accountId, name, via: "invitation", siteId: redeemed.siteId, role: redeemed.role };
    } catch (error) {
      if (error instanceof HttpProblem && error.status === 401) throw new OidcRefusal("invitation_invalid");
      throw error;
    }
  }

  if (options.linkByEmail && identity.emailVerified && identity.email) {
    const [byEmail] = await db
      .select({ id: accounts.id, name: accounts.name })
      .from(accounts)
      .where(and(sql`lower(${accounts.email}) = ${identity.email}`, isNull(accounts.disabledAt)));
    if (byEmail) {
      await db
        .insert(oidcIdentities)
        .values({ issuer: identity.issuer, subject: identity.subject, accountId: byEmail.id, createdAt: options.at });
      return { id: byEmail.id, name: byEmail.name, via: "email" };
    }
  }
  throw new OidcRefusal("unknown_identity");
}

/**
 * Signs a verified identity in: finds or joins its account (see the header), revokes the
 * session cookie the browser presented, starts a new session and audits the sign-in.
 */
export async function signInIdentity(
  db: Database,
  identity: VerifiedIdentity,
  input: {
    invitationToken: string | null;
    linkByEmail: boolean;
    presentedSession: string | undefined;
    userAgent: string | null;
    settings: SessionSettings;
    at: number;
  },
): Promise<SignedIn> {
  const account = await accountFor(db, identity, input);
  await revokeByCookie(db, input.presentedSession, input.at);
  const session = await startSession(db, {
    accountId: account.id,
    method: "oidc",
    userAgent: input.userAgent,
    now: input.at,
    settings: input.settings,
  });
  const actor = { kind: "account" as const, id: account.id, name: account.name };
  if (account.via === "invitation") {
    await recordAudit(db, {
      actor,
      action: "account.join",
      siteId: account.siteId === "*" ? null : account.siteId,
      target: account.id,
      detail: { role: account.role, site: account.siteId, method: "oidc" },
    });
  }
  await recordAudit(db, {
    actor,
    action: "session.sign_in",
    target: account.id,
    detail: { method: "oidc", ...(account.via === "email" ? { linked: "verified email" } : {}) },
  });
  return { accountId: account.id, name: account.name, cookie: session.cookie, via: account.via };
}
