/**
 * One site's rollups: the tables that hold them, deleting them with the site, and rebuilding
 * them from the raw rows when the site's time zone changes (days are cut in the zone in force
 * when folded).
 */
import type { Client, InStatement } from "@libsql/client/web";
import { BUMP_VERSION } from "../publication";
import { catchUp, readState } from "./fold";
import { instantSpan } from "./raw-rows";
import { SOURCES, watermark } from "./sources";
import { foldStatements } from "./statements";
import { zoneGroups, zonesUnchanged } from "./zones";

/** Every rollup table with a site_id column. */
export const ROLLUP_TABLES = [
  "rollup_site_day",
  "rollup_site_day_units",
  "rollup_site_hour",
  "rollup_site_hour_units",
  "rollup_page_day",
  "rollup_page_day_units",
  "rollup_goal_day",
  "rollup_goal_day_units",
  "rollup_goal_hour",
  "rollup_goal_hour_units",
  "rollup_session_goals",
  "rollup_vital_day",
  "rollup_vital_day_units",
  "rollup_vital_histogram",
  "rollup_session_day",
  "rollup_dimension_scratch",
  "rollup_dimension_day",
  "rollup_goal_dimension_day",
  "rollup_dimension_pair_day",
  "rollup_engagement_day",
  "rollup_duration_histogram",
  "rollup_prop_day_units",
] as const;

/** Statements that delete a site's rollups: add them to the batch that deletes the site. */
export function deleteSiteRollupsStatements(siteId: string): InStatement[] {
  return ROLLUP_TABLES.map((table) => ({ sql: `DELETE FROM ${table} WHERE site_id = ?`, args: [siteId] }));
}

/**
 * Rebuilds one site's rollups from its raw rows up to the watermarks, in one transaction:
 * needed after its time zone changes, since days are cut in the zone in force when folded.
 */
export async function rebuildSiteRollups(client: Client, siteId: string): Promise<void> {
  await catchUp(client);
  const site = await client.execute({ sql: "SELECT timezone FROM sites WHERE id = ?", args: [siteId] });
  const stored = site.rows[0] ? String(site.rows[0].timezone) : null;
  const statements: InStatement[] = [...deleteSiteRollupsStatements(siteId), BUMP_VERSION];
  if (stored !== null) {
    statements.push(zonesUnchanged((await readState(client)).zones));
    for (const source of SOURCES) {
      // Every instant of the site's rows, including any folded while this runs.
      const span = await instantSpan(client, source, 0, Number.MAX_SAFE_INTEGER, siteId);
      if (!span) continue;
      for (const zone of zoneGroups([stored], span.from, span.to)) {
        statements.push(...foldStatements(source, zone, { lo: "0", hi: watermark(source), siteId }));
      }
    }
  }
  await client.batch(statements, "write");
}
