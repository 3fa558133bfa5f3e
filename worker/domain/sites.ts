/**
 * Sites: the one lookup every route goes through (`requireSite`), creation (idempotent per
 * domain), listing, renaming and re-zoning, token rotation, the snippet's verification state,
 * and deletion with everything recorded for the site.
 */
import type { InStatement, InValue } from "@libsql/client/web";
import { eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../lib/db";
import { newId } from "../lib/ids";
import { HttpProblem } from "../lib/problem";
import {
  conversions,
  deploymentHookReceipts,
  deployments,
  events,
  goals,
  propDrops,
  revenueDrops,
  sessions,
  shareLinks,
  siteBeacons,
  siteProps,
  sites,
  smokeConversions,
  vitals,
} from "../lib/schema";
import { deleteSiteRollupsStatements, rebuildSiteRollups } from "../reports/rollup";
import { deleteSiteImportsStatements } from "./imports/days";
import { changeSiteZone } from "../reports/zone-change";
import { ruleDeletes } from "./alert-rules";
import { siteDigestDeletes } from "./digests/store";
import { now } from "../lib/clock";

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

/** The site, or a 404 naming the request field that carried its id. */
export async function requireSite(db: Database, id: string, field = "id"): Promise<SiteRow> {
  const site = await getSite(db, id);
  if (!site) throw siteNotFound(id, field);
  return site;
}

/** The 404 for a site id nothing has, naming the request field that carried it. */
export function siteNotFound(id: string, field: string): HttpProblem {
  return new HttpProblem(404, `No site ${id}.`, { field });
}

export async function listSites(db: Database, allowed: string[] | null): Promise<SiteRow[]> {
  if (allowed && allowed.length === 0) return [];
  return db
    .select()
    .from(sites)
    .where(allowed ? inArray(sites.id, allowed) : undefined)
    .orderBy(sites.createdAt, sql`rowid`); // insert order within one millisecond
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
    createdAt: now(),
  };
  const inserted = await db.insert(sites).values(row).onConflictDoNothing().returning();
  if (inserted[0]) return { site: inserted[0], created: true };
  const existing = await findSiteByDomain(db, input.domain);
  if (!existing) throw new Error("site insert conflicted but no site holds the domain");
  return { site: existing, created: false };
}

export interface SitePatch {
  name?: string | undefined;
  timezone?: string | undefined;
}

/**
 * Renames a site or changes its time zone. A zone may change only while none of the site's
 * cells with data is published (reports/zone-change.ts); the site's rollups, none of them
 * readable yet, are then refolded in the new zone.
 */
export async function updateSite(db: Database, id: string, patch: SitePatch): Promise<SiteRow> {
  const before = await requireSite(db, id);
  if (patch.timezone !== undefined && patch.timezone !== before.timezone) {
    const change = await changeSiteZone(db.$client, id, patch.timezone);
    if (change === "missing") throw siteNotFound(id, "id");
    if (change === "refused") {
      throw new HttpProblem(
        409,
        `The time zone of ${id} can no longer change: its days are already published cut in ${before.timezone}, and a published figure is final (re-cutting them would let a reader subtract the two cuts). Register a new site to report in another zone.`,
        { field: "timezone" },
      );
    }
    await rebuildSiteRollups(db.$client, id);
  }
  if (patch.name === undefined || patch.name === before.name) return requireSite(db, id);
  const [site] = await db.update(sites).set({ name: patch.name }).where(eq(sites.id, id)).returning();
  if (!site) throw siteNotFound(id, "id");
  return site;
}

/** Bumps the site's token version: every s2s token issued before stops matching at once. */
export async function rotateSiteToken(db: Database, id: string): Promise<SiteRow> {
  const [row] = await db
    .update(sites)
    .set({ tokenVersion: sql`${sites.tokenVersion} + 1` })
    .where(eq(sites.id, id))
    .returning();
  if (!row) throw siteNotFound(id, "id");
  return row;
}

/**
 * Deletes a site and everything recorded for it, rollups included, in one transaction.
 * Explicit deletes rather than ON DELETE CASCADE: foreign-key enforcement is per connection
 * and not something every Hrana server turns on.
 */
export async function deleteSite(db: Database, id: string): Promise<void> {
  await requireSite(db, id);
  const deletes: InStatement[] = [
    db.delete(smokeConversions).where(eq(smokeConversions.siteId, id)),
    db.delete(conversions).where(eq(conversions.siteId, id)),
    db.delete(vitals).where(eq(vitals.siteId, id)),
    db.delete(events).where(eq(events.siteId, id)),
    db.delete(sessions).where(eq(sessions.siteId, id)),
    db.delete(siteBeacons).where(eq(siteBeacons.siteId, id)),
    db.delete(revenueDrops).where(eq(revenueDrops.siteId, id)),
    db.delete(deployments).where(eq(deployments.siteId, id)),
    db.delete(deploymentHookReceipts).where(eq(deploymentHookReceipts.siteId, id)),
    db.delete(goals).where(eq(goals.siteId, id)),
    db.delete(siteProps).where(eq(siteProps.siteId, id)),
    db.delete(propDrops).where(eq(propDrops.siteId, id)),
    db.delete(shareLinks).where(eq(shareLinks.siteId, id)),
    db.delete(sites).where(eq(sites.id, id)),
  ].map((query) => {
    const { sql: text, params } = query.toSQL();
    return { sql: text, args: params as InValue[] };
  });
  await db.$client.batch(
    [
      ...deleteSiteRollupsStatements(id),
      ...deleteSiteImportsStatements(id),
      ...ruleDeletes("site_id = ?", [id]),
      siteDigestDeletes(id),
      ...deletes,
    ],
    "write",
  );
}

export interface SiteVerification {
  verified: boolean;
  /** When the first beacon from an allowlisted origin arrived, and from which origin. */
  firstSeen: number | null;
  origin: string | null;
  /** The page that first beacon came from. */
  path: string | null;
}

/**
 * Whether the snippet works: the first beacon from the site's allowlisted origins. Nothing
 * about later beacons: polled, their times and pages would follow visitors one by one.
 */
export async function siteVerification(db: Database, id: string): Promise<SiteVerification> {
  await requireSite(db, id);
  const [first] = await db.select().from(siteBeacons).where(eq(siteBeacons.siteId, id)).orderBy(siteBeacons.firstSeen).limit(1);
  return {
    verified: first !== undefined,
    firstSeen: first?.firstSeen ?? null,
    origin: first?.origin ?? null,
    path: first?.path ?? null,
  };
}
