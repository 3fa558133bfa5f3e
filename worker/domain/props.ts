/**
 * A site's custom property names (site_props): the allowlist the collector keeps props under
 * (collector/props.ts), at most MAX_SITE_PROPS a site so a site's groupings stay bounded, and the
 * drops of the last days per reason (prop_drops), which tell an operator a name is missing.
 * Removing a name stops new props under it; props stored already stay.
 */
import type { Database } from "../lib/db";
import { HttpProblem } from "../lib/problem";
import { PROP_DROP_REASONS, type PropDropReason } from "../lib/schema";

export { PROP_DROP_REASONS };
import { RESERVED_PROPS } from "../lib/beacon-limits";
import { requireSite } from "./sites";
import { now } from "../lib/clock";

/** Names a site may allow. */
export const MAX_SITE_PROPS = 50;
/** Days of drops the list shows (today, UTC, included). */
export const PROP_DROP_DAYS = 7;

export interface SiteProps {
  names: string[];
  /** Props dropped per reason over the last PROP_DROP_DAYS UTC days. */
  drops: Record<PropDropReason, number>;
  drops_since: string;
}

function dropsSince(at: number): string {
  return new Date(at - (PROP_DROP_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
}

/** The site's names (alphabetical) and its recent drops; 404 when there is no such site. */
export async function siteProps(db: Database, siteId: string): Promise<SiteProps> {
  await requireSite(db, siteId);
  const since = dropsSince(now());
  const [names, drops] = await db.$client.batch(
    [
      { sql: "SELECT name FROM site_props WHERE site_id = ? ORDER BY name", args: [siteId] },
      {
        sql: "SELECT reason, sum(count) AS n FROM prop_drops WHERE site_id = ? AND day >= ? GROUP BY reason",
        args: [siteId, since],
      },
    ],
    "read",
  );
  const counts = Object.fromEntries(PROP_DROP_REASONS.map((r) => [r, 0])) as Record<PropDropReason, number>;
  for (const row of drops!.rows)
    if ((PROP_DROP_REASONS as readonly string[]).includes(String(row.reason)))
      counts[String(row.reason) as PropDropReason] = Number(row.n);
  return { names: names!.rows.map((r) => String(r.name)), drops: counts, drops_since: since };
}

/** Allows `name` on the site: created, or already there (idempotent). 422 past MAX_SITE_PROPS or for a reserved name. */
export async function addSiteProp(db: Database, siteId: string, name: string): Promise<{ created: boolean }> {
  await requireSite(db, siteId);
  if (RESERVED_PROPS.includes(name)) {
    throw new HttpProblem(422, `name: ${name} is reserved (the tracker's opt-ins send it) and always kept.`, { field: "name" });
  }
  // One statement: the bound holds however many requests race.
  const rs = await db.$client.execute({
    sql:
      "INSERT INTO site_props (site_id, name, created_at) SELECT ?1, ?2, ?3 " +
      "WHERE (SELECT count(*) FROM site_props WHERE site_id = ?1) < ?4 ON CONFLICT (site_id, name) DO NOTHING RETURNING name",
    args: [siteId, name, now(), MAX_SITE_PROPS],
  });
  if (rs.rows.length > 0) return { created: true };
  const exists = await db.$client.execute({
    sql: "SELECT 1 FROM site_props WHERE site_id = ? AND name = ?",
    args: [siteId, name],
  });
  if (exists.rows.length > 0) return { created: false };
  throw new HttpProblem(422, `name: a site allows at most ${MAX_SITE_PROPS} property names; remove one first.`, {
    field: "name",
  });
}

/** Stops keeping `name` (stored props stay); 404 when the site does not allow it. */
export async function removeSiteProp(db: Database, siteId: string, name: string): Promise<void> {
  await requireSite(db, siteId);
  const rs = await db.$client.execute({ sql: "DELETE FROM site_props WHERE site_id = ? AND name = ?", args: [siteId, name] });
  if (rs.rowsAffected === 0) throw new HttpProblem(404, `Site ${siteId} does not allow the property ${name}.`, { field: "name" });
}
