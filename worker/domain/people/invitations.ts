/**
 * Invitations: a one-time link `PUBLIC_URL/dashboard/invite#TOKEN` that binds a site (or "*")
 * and a role. The token is shown once and stored as SHA-256 only; it expires (default 7 days),
 * is single use, and can be revoked. Redeeming it creates the account with the invitation's
 * grant in ONE batch (a transaction): the invitation is marked used by the new account id
 * only if it is still usable, and the account, its grant and whatever the caller adds (a
 * passkey, an OIDC identity) are inserted only where that mark holds — so two concurrent
 * redemptions make one account, and a refused one writes nothing.
 */
import { and, desc, eq, gt, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { now } from "../../lib/clock";
import { randomToken, sha256Hex } from "../../lib/crypto";
import type { Database } from "../../lib/db";
import { newId } from "../../lib/ids";
import { HttpProblem } from "../../lib/problem";
import { peopleUrl } from "../../lib/public-url";
import { accountGrants, accounts, invitations, type Role } from "../../lib/schema";

export const DEFAULT_INVITATION_DAYS = 7;
export const INVITATION_TOKEN = /^[A-Za-z0-9_-]{40,60}$/;

export type InvitationRow = typeof invitations.$inferSelect;

export interface NewInvitation {
  id: string;
  /** The secret, shown once: goes in the link's fragment. */
  token: string;
  expiresAt: number;
}

/** The invitation's link, at the URL people sign in at (lib/public-url.ts peopleUrl: passkeys need a host name). */
export function invitationLink(publicUrl: string, token: string): string {
  return `${peopleUrl(publicUrl)}/dashboard/invite#${token}`;
}

export async function createInvitation(
  db: Database,
  input: { siteId: string; role: Role; email?: string | null; invitedBy: string; days?: number; now?: number },
): Promise<NewInvitation> {
  const at = input.now ?? now();
  const token = randomToken(32);
  const id = newId("inv");
  const expiresAt = at + (input.days ?? DEFAULT_INVITATION_DAYS) * 86_400_000;
  await db.insert(invitations).values({
    id,
    tokenHash: await sha256Hex(token),
    siteId: input.siteId,
    role: input.role,
    email: input.email ?? null,
    invitedBy: input.invitedBy,
    createdAt: at,
    expiresAt,
  });
  return { id, token, expiresAt };
}

const usable = (at: number): SQL =>
  and(isNull(invitations.usedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, at))!;

/** The invitation a token names while it can still be used; refused (401, field `invitation`) otherwise. */
export async function findUsableInvitation(db: Database, token: string, at = now()): Promise<InvitationRow> {
  const rows = INVITATION_TOKEN.test(token)
    ? await db
        .select()
        .from(invitations)
        .where(and(eq(invitations.tokenHash, await sha256Hex(token)), usable(at)))
    : [];
  if (!rows[0]) throw refused();
  return rows[0];
}

function refused(): HttpProblem {
  return new HttpProblem(401, "The invitation is unknown, expired, revoked or already used; ask for a new one.", {
    field: "invitation",
  });
}

export interface Redeemed {
  invitationId: string;
  siteId: string;
  role: Role;
  email: string | null;
  accountId: string;
}

/**
 * Redeems an invitation and creates its account (name, the invitation's email, its grant) in
 * one transaction. `extra(accountId)` adds statements to the same batch (a passkey row, an
 * OIDC identity); write them so they insert only when the account exists
 * (`INSERT … SELECT … WHERE EXISTS (account)`) or accept they run regardless. Refused (401,
 * nothing written) when the token is unknown, expired, revoked or used.
 */
export async function redeemInvitation(
  db: Database,
  token: string,
  at: number = now(),
  join: { name?: string; accountId?: string; extra?: (accountId: string) => BatchItem<"sqlite">[] } = {},
): Promise<Redeemed> {
  const invitation = await findUsableInvitation(db, token, at);
  const accountId = join.accountId ?? newId("acct");
  const name = (join.name ?? "").trim() || invitation.email || "New person";
  const claimed = sql`(SELECT 1 FROM ${invitations} WHERE ${invitations.id} = ${invitation.id} AND ${invitations.usedBy} = ${accountId})`;
  await db.batch([
    db
      .update(invitations)
      .set({ usedAt: at, usedBy: accountId })
      .where(and(eq(invitations.id, invitation.id), usable(at))),
    db.run(
      sql`INSERT INTO ${accounts} (id, name, email, created_at) SELECT ${accountId}, ${name}, ${invitation.email}, ${at} WHERE EXISTS ${claimed}`,
    ),
    db.run(
      sql`INSERT INTO ${accountGrants} (account_id, site_id, role) SELECT ${accountId}, ${invitation.siteId}, ${invitation.role} WHERE EXISTS ${claimed}`,
    ),
    ...(join.extra?.(accountId) ?? []),
  ]);
  const made = await db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
  if (made.length === 0) throw refused();
  return { invitationId: invitation.id, siteId: invitation.siteId, role: invitation.role, email: invitation.email, accountId };
}

/** Pending invitations (unused, unrevoked, unexpired), newest first; `sites` null for all. */
export async function listInvitations(db: Database, sites: string[] | null, at = now()): Promise<InvitationRow[]> {
  return db
    .select()
    .from(invitations)
    .where(and(usable(at), sites === null ? undefined : inArray(invitations.siteId, sites)))
    .orderBy(desc(invitations.createdAt));
}

export async function findInvitation(db: Database, id: string): Promise<InvitationRow | undefined> {
  return (await db.select().from(invitations).where(eq(invitations.id, id)))[0];
}

export async function revokeInvitation(db: Database, id: string, at = now()): Promise<void> {
  const rows = await db
    .update(invitations)
    .set({ revokedAt: at })
    .where(and(eq(invitations.id, id), isNull(invitations.usedAt), isNull(invitations.revokedAt)))
    .returning({ id: invitations.id });
  if (rows.length === 0) throw new HttpProblem(404, `No pending invitation ${id}.`, { field: "id" });
}
