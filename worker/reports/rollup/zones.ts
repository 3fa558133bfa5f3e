/**
 * Local days and hours for the fold: each site's raw `ts` is shifted by its zone's offset,
 * given to SQL as a CASE over the constant-offset segments of the span of instants being
 * folded. The statements are built for the zones read before the write transaction, so the
 * transaction checks that they still hold (zonesUnchanged).
 */
import type { InStatement } from "@libsql/client/web";
import { canonicalTimeZone, offsetSegments, offsetSql } from "../timezone";

/** The zone a stored site time zone means; an unknown name is read as UTC. */
export function effectiveZone(stored: string): string {
  return canonicalTimeZone(stored) ?? "UTC";
}

export interface ZoneGroup {
  /** The value stored in sites.timezone. */
  stored: string;
  /** SQL for the offset of `ts` (ms) to local time. */
  offset: (ts: string) => string;
}

/** The sites' time zones, sorted, as one string (SQL; compared inside the write transaction). */
export const ZONES_SQL =
  "SELECT coalesce(group_concat(timezone, char(10)), '') AS zones FROM (SELECT DISTINCT timezone FROM sites ORDER BY timezone)";

/**
 * Makes the transaction fail (a NOT NULL violation) unless the sites' time zones are still
 * those the statements were built for: a zone changed in between must not let rows be skipped.
 */
export function zonesUnchanged(zones: string[]): InStatement {
  return {
    sql: `INSERT INTO rollup_watermarks (source, last_id) VALUES ('mark:zones', CASE WHEN (${ZONES_SQL}) = ? THEN 0 ELSE NULL END) ON CONFLICT (source) DO UPDATE SET last_id = excluded.last_id`,
    args: [zones.join("\n")],
  };
}

/** The zone groups for rows whose instants lie in [from, to]. */
export function zoneGroups(stored: string[], from: number, to: number): ZoneGroup[] {
  return stored.map((name) => {
    const zone = effectiveZone(name);
    const segments = zone === "UTC" ? [{ until: null, offset: 0 }] : offsetSegments(zone, from, to);
    return { stored: name, offset: (ts: string) => offsetSql(segments, ts) };
  });
}
