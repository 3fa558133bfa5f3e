/**
 * People: who may manage whom, the list of accounts with their grants, role changes and
 * removal. The rules (docs/operations.md "People"):
 * - An admin of all sites (or an admin API key) manages everyone and every site, "*" included.
 * - An admin of one site manages that site's grants and invitations only: never "*", never a
 *   person who is an admin of all sites, never another site.
 * - The last admin of all sites cannot be removed or demoted (409): someone must hold the keys.
 * - Removing a person disables the account, deletes its grants and revokes all its sessions in
 *   one batch, so its next request is refused.
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { now } from "../../lib/clock";
import type { Database } from "../../lib/db";
import { EVERY_SITE } from "../../lib/keys";
import { HttpProblem } from "../../lib/problem";
import { accountGrants, accounts, passkeys, type Role } from "../../lib/schema";
import type { Caller, Grant } from "../access";
import { recordAuditStatement, type AuditEntry } from "../audit";
import { revokeAllSessionsStatement } from "./sessions";

/** Refuses unless the caller may manage people of `siteId` ("*": only an admin of all sites). */
export function requireManages(caller: Caller, siteId: string, field = "site"): void {
  requireManagesAny(caller);
  const ok = siteId === EVERY_SITE ? caller.isAdmin : caller.hasScopeOn("manage:people", siteId);
  if (!ok) {
    const detail =
      siteId === EVERY_SITE
        ? "Only an admin of all sites may grant or change access to all sites."
        : `You may not manage people of site ${siteId}.`;
    throw new HttpProblem(403, detail, { field });
  }
}

/** Sites whose people the caller manages, or null for all. */
export function managedSites(caller: Caller): string[] | null {
  if (caller.isAdmin) return null;
  return (caller.account?.grants ?? []).filter((g) => g.role === "admin" && g.siteId !== EVERY_SITE).map((g) => g.siteId);
}

export function requireManagesAny(caller: Caller): void {
  const sites = managedSites(caller);
  if (sites !== null && sites.length === 0) {
    throw new HttpProblem(403, "Only admins manage people and read the audit log.", {
      field: "authorization",
      required_scope: "admin",
    });
  }
}

export interface Person {
  id: string;
  name: string;
  email: string | null;
  createdAt: number;
  grants: Grant[];
  passkeys: number;
}

/** Active accounts with the grants the caller may see (all, or those on its sites). */
export async function listPeople(db: Database, caller: Caller): Promise<Person[]> {
  const sites = managedSites(caller);
  const rows = await db
    .select({ account: accounts, siteId: accountGrants.siteId, role: accountGrants.role })
    .from(accounts)
    .innerJoin(accountGrants, eq(accountGrants.accountId, accounts.id))
    .where(and(isNull(accounts.disabledAt), sites === null ? undefined : inArray(accountGrants.siteId, sites)))
    .orderBy(accounts.createdAt, accountGrants.siteId);
  const counts = await db
    .select({ accountId: passkeys.accountId, n: sql<number>`count(*)` })
    .from(passkeys)
    .groupBy(passkeys.accountId);
  const keysOf = new Map(counts.map((c) => [c.accountId, Number(c.n)]));
  const people = new Map<string, Person>();
  for (const row of rows) {
    const person = people.get(row.account.id) ?? {
      id: row.account.id,
      name: row.account.name,
      email: row.account.email,
      createdAt: row.account.createdAt,
      grants: [],
      passkeys: keysOf.get(row.account.id) ?? 0,
    };
    person.grants.push({ siteId: row.siteId, role: row.role });
    people.set(row.account.id, person);
  }
  return [...people.values()];
}

async function grantsOf(db: Database, accountId: string): Promise<Grant[] | undefined> {
  const account = await db
    .select({ id: accounts.id })
    .from(accounts)
    .where(and(eq(accounts.id, accountId), isNull(accounts.disabledAt)));
  if (account.length === 0) return undefined;
  return db
    .select({ siteId: accountGrants.siteId, role: accountGrants.role })
    .from(accountGrants)
    .where(eq(accountGrants.accountId, accountId));
}

const isAllSitesAdmin = (grants: Grant[]) => grants.some((g) => g.siteId === EVERY_SITE && g.role === "admin");

async function otherAllSitesAdmins(db: Database, accountId: string): Promise<number> {
  const rows = await db
    .select({ id: accounts.id })
    .from(accountGrants)
    .innerJoin(accounts, eq(accounts.id, accountGrants.accountId))
    .where(
      and(
        eq(accountGrants.siteId, EVERY_SITE),
        eq(accountGrants.role, "admin"),
        isNull(accounts.disabledAt),
        sql`${accounts.id} <> ${accountId}`,
      ),
    );
  return rows.length;
}

/** The person, refused as 404 when the caller sees no grant of theirs (a site admin sees only its sites' people). */
async function requirePerson(db: Database, caller: Caller, accountId: string): Promise<Grant[]> {
  const grants = await grantsOf(db, accountId);
  const sites = managedSites(caller);
  if (!grants || grants.length === 0 || (sites !== null && !grants.some((g) => sites.includes(g.siteId)))) {
    throw new HttpProblem(404, `No person ${accountId}.`, { field: "id" });
  }
  if (!caller.isAdmin && isAllSitesAdmin(grants)) {
    throw new HttpProblem(403, "Only an admin of all sites may change an admin of all sites.", { field: "id" });
  }
  return grants;
}

async function requireNotLastAdmin(db: Database, accountId: string, grants: Grant[]): Promise<void> {
  if (isAllSitesAdmin(grants) && (await otherAllSitesAdmins(db, accountId)) === 0) {
    throw new HttpProblem(409, "This is the last admin of all sites: make another one first.", { field: "id" });
  }
}

/** Sets the person's role on a site (adds the grant when missing). */
export async function changeRole(
  db: Database,
  caller: Caller,
  accountId: string,
  siteId: string,
  role: Role,
  audit: AuditEntry,
): Promise<void> {
  requireManages(caller, siteId);
  const grants = await requirePerson(db, caller, accountId);
  if (siteId === EVERY_SITE && role !== "admin") await requireNotLastAdmin(db, accountId, grants);
  await db.batch([
    db
      .insert(accountGrants)
      .values({ accountId, siteId, role })
      .onConflictDoUpdate({ target: [accountGrants.accountId, accountGrants.siteId], set: { role } }),
    recordAuditStatement(db, audit),
  ]);
}

/**
 * Removes a person: from one site (its grant; the account goes when no grant is left), or
 * — without a site, admins of all sites only — altogether. Sessions end in the same batch.
 */
export async function removePerson(
  db: Database,
  caller: Caller,
  accountId: string,
  siteId: string | undefined,
  audit: AuditEntry,
): Promise<void> {
  requireManages(caller, siteId ?? EVERY_SITE);
  const grants = await requirePerson(db, caller, accountId);
  const remaining = siteId === undefined ? [] : grants.filter((g) => g.siteId !== siteId);
  if (siteId !== undefined && remaining.length === grants.length)
    throw new HttpProblem(404, `${accountId} has no role on ${siteId}.`, { field: "site" });
  if (!isAllSitesAdmin(remaining)) await requireNotLastAdmin(db, accountId, grants);
  const at = now();
  const gone = remaining.length === 0;
  await db.batch([
    siteId === undefined
      ? db.delete(accountGrants).where(eq(accountGrants.accountId, accountId))
      : db.delete(accountGrants).where(and(eq(accountGrants.accountId, accountId), eq(accountGrants.siteId, siteId))),
    gone
      ? db.update(accounts).set({ disabledAt: at }).where(eq(accounts.id, accountId))
      : db.select({ id: accounts.id }).from(accounts).limit(0),
    gone ? revokeAllSessionsStatement(db, accountId, at) : db.select({ id: accounts.id }).from(accounts).limit(0),
    recordAuditStatement(db, audit, at),
  ]);
}
