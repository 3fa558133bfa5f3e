/**
 * When a site's time zone may change. Days and hours are cut in the site's zone, and a cut,
 * once published, is final: refolding published days in another zone would let a reader
 * subtract the two cuts (11 − 10 sessions between 23:00 and 24:00 UTC) and single out the
 * few people of an hour or less. So the zone may change only while none of the site's cells
 * with data has been published — in practice, when the site is registered or in the hour
 * after its first beacon; afterwards the change is refused (409) and the days stay as cut.
 *
 * The condition is part of the UPDATE itself, together with the publication's instant as read
 * just before, so a publisher run in between cannot slip a first publication past it.
 */
import type { Client, InStatement } from "@libsql/client/web";
import { PUBLICATION_SQL, publicationOf } from "./publication";
import { lastCompleteDay } from "./period";
import { effectiveZone } from "./rollup";

/** SQL: true when a cell of the site (?2) with data is published at the instant ?1 (ms). */
const PUBLISHED_DATA_SQL =
  "(EXISTS (SELECT 1 FROM rollup_site_hour WHERE site_id = ?2 AND hour + 3600000 <= ?1) " +
  "OR EXISTS (SELECT 1 FROM rollup_goal_hour WHERE site_id = ?2 AND hour + 3600000 <= ?1) " +
  "OR EXISTS (SELECT 1 FROM rollup_vital_day WHERE site_id = ?2 AND day <= ?3))";

export type ZoneChange = "changed" | "refused" | "missing";

/**
 * Sets the site's zone unless one of its cells with data is published. Retries when the
 * publisher moved the publication between the read and the write.
 */
export async function changeSiteZone(client: Client, siteId: string, zone: string): Promise<ZoneChange> {
  for (let attempt = 0; ; attempt++) {
    const [site, published] = await client.batch(
      [{ sql: "SELECT timezone FROM sites WHERE id = ?", args: [siteId] }, PUBLICATION_SQL],
      "read",
    );
    const stored = site!.rows[0]?.timezone;
    if (stored === undefined) return "missing";
    const throughMs = publicationOf(published!)?.throughMs ?? 0;
    const lastDay = lastCompleteDay(effectiveZone(String(stored)), throughMs);
    const update: InStatement = {
      sql:
        `UPDATE sites SET timezone = ?4 WHERE id = ?2 AND NOT ${PUBLISHED_DATA_SQL} ` +
        "AND coalesce((SELECT through_ms FROM rollup_publication WHERE id = 1), 0) = ?1",
      args: [throughMs, siteId, lastDay, zone],
    };
    const [result, after] = await client.batch([update, PUBLICATION_SQL], "write");
    if (result!.rowsAffected === 1) return "changed";
    if ((publicationOf(after!)?.throughMs ?? 0) === throughMs || attempt >= 3) return "refused";
  }
}
