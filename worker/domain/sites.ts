/** Sites: creation (idempotent per domain for the creating key) and listing. */
import { eq, inArray, sql } from "drizzle-orm";
import { newId } from "../lib/crypto";
import type { Database } from "../lib/db";
import { sites } from "../lib/schema";

export type SiteRow = typeof sites.$inferSelect;

export interface CreateSiteResult {
  site: SiteRow;
  created: boolean;
}

export async function findSiteByDomain(db: Database, domain: string): Promise<SiteRow | undefined> {
  return db.query.sites.findFirst({ where: eq(sites.domain, domain) });
}

export async function getSite(db: Database, id: string): Promise<SiteRow | undefined> {
  return db.query.sites.findFirst({ where: eq(sites.id, id) });
}

export async function listSites(db: Database, allowed: string[] | null): Promise<SiteRow[]> {
  if (allowed && allowed.length === 0) return [];
  return db
    .select()
    .from(sites)
    .where(allowed ? inArray(sites.id, allowed) : undefined)
    .orderBy(sites.createdAt, sites.id);
}

/**
 * Inserts a site for an already-normalised hostname. A concurrent insert of the same domain
 * loses on the unique index and returns the winner with `created: false`.
 */
export async function insertSite(
  db: Database,
  input: { name: string; domain: string; timezone?: string | undefined; createdByKey: string | null },
): Promise<CreateSiteResult> {
  const row = {
    id: newId("site"),
    name: input.name,
    domain: input.domain,
    allowlist: [input.domain],
    timezone: input.timezone ?? "UTC",
    tokenVersion: 1,
    createdByKey: input.createdByKey,
    createdAt: Date.now(),
  };
  const inserted = await db.insert(sites).values(row).onConflictDoNothing().returning();
  if (inserted[0]) return { site: inserted[0], created: true };
  const existing = await findSiteByDomain(db, input.domain);
  if (!existing) throw new Error("site insert conflicted but no site holds the domain");
  return { site: existing, created: false };
}

export async function rotateSiteToken(db: Database, id: string): Promise<SiteRow | undefined> {
  const [row] = await db
    .update(sites)
    .set({ tokenVersion: sql`${sites.tokenVersion} + 1` })
    .where(eq(sites.id, id))
    .returning();
  return row;
}
