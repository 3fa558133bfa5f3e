/**
 * API key records: issue (secret shown once, hash stored; every listed site must exist),
 * list, revoke, look up by secret, and grow a limited key's allowlist.
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { preparedQuery, type Database } from "../lib/db";
import { EVERY_SITE, generateKey, hashKey, type Scope } from "../lib/keys";
import { HttpProblem } from "../lib/problem";
import { apiKeys, sites } from "../lib/schema";
import { now } from "../lib/clock";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export interface IssueKeyInput {
  name: string;
  scopes: Scope[];
  /** Site ids, or ["*"] for every site. null: only the sites the key will create (an admin
   * key reaches every site whatever this says). */
  sites: string[] | null;
  rateLimit?: { requests: number; perSeconds: number } | null;
}

/** Refuses an allowlist naming a site that does not exist (422 naming its position). */
async function requireListedSites(db: Database, listed: string[] | null): Promise<void> {
  // "*" stands alone (the body schema says so); otherwise every listed site must exist.
  const ids = listed?.includes(EVERY_SITE) ? [] : (listed ?? []);
  if (ids.length === 0) return;
  const found = await db.select({ id: sites.id }).from(sites).where(inArray(sites.id, ids));
  const known = new Set(found.map((s) => s.id));
  const missing = ids.findIndex((id) => !known.has(id));
  if (missing >= 0) throw new HttpProblem(422, `sites.${missing}: no site ${ids[missing]}`, { field: `sites.${missing}` });
}

export async function issueKey(db: Database, input: IssueKeyInput): Promise<{ row: ApiKeyRow; key: string }> {
  await requireListedSites(db, input.sites);
  const material = await generateKey();
  const [row] = await db
    .insert(apiKeys)
    .values({
      id: material.id,
      name: input.name,
      prefix: material.prefix,
      secretHash: material.secretHash,
      scopes: input.scopes,
      // A limited key starts with an empty allowlist; sites it creates join it.
      sites: input.scopes.includes("admin") ? input.sites : (input.sites ?? []),
      rateRequests: input.rateLimit?.requests ?? null,
      ratePerSeconds: input.rateLimit?.perSeconds ?? null,
      createdAt: now(),
    })
    .returning();
  return { row: row!, key: material.key };
}

export async function listKeys(db: Database): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(isNull(apiKeys.revokedAt)).orderBy(apiKeys.createdAt, sql`rowid`); // insert order within one millisecond
}

/** Revokes an active key; it stops working at once (404 when no active key has the id). */
export async function revokeKey(db: Database, id: string): Promise<void> {
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: now() })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  if (rows.length === 0) throw new HttpProblem(404, `No active key ${id}.`, { field: "id" });
}

/** Every API request runs this lookup, so it is prepared once. */
const activeKeyByHash = preparedQuery((db) =>
  db.query.apiKeys.findFirst({ where: and(eq(apiKeys.secretHash, sql.placeholder("hash")), isNull(apiKeys.revokedAt)) }).prepare(),
);

export async function findActiveKey(db: Database, presented: string): Promise<ApiKeyRow | undefined> {
  return activeKeyByHash(db).execute({ hash: await hashKey(presented) });
}

/** The key that registered something, as far as an ownership decision needs it. */
export interface Registrant {
  id: string;
  name: string;
  admin: boolean;
  revoked: boolean;
}

export async function findRegistrant(db: Database, keyId: string): Promise<Registrant | undefined> {
  const row = await db.query.apiKeys.findFirst({ where: eq(apiKeys.id, keyId) });
  return row && { id: row.id, name: row.name, admin: row.scopes.includes("admin"), revoked: row.revokedAt !== null };
}

/** Adds a site to a limited key's allowlist (a site a key creates is the key's). */
export async function addSiteToKey(db: Database, keyId: string, siteId: string): Promise<void> {
  await db
    .update(apiKeys)
    .set({ sites: sql`json_insert(coalesce(${apiKeys.sites}, '[]'), '$[#]', ${siteId})` })
    .where(eq(apiKeys.id, keyId));
}

export async function countKeys(db: Database): Promise<number> {
  const rows = await db.select({ id: apiKeys.id }).from(apiKeys).limit(1);
  return rows.length;
}
