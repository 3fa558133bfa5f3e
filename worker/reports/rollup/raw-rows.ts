/**
 * Which raw rows a fold reads, and the local day, hour and instant each is folded at.
 * Publication is final: a row stamped in an hour already published is folded at the
 * publication's instant instead (foldInstant), so no fold changes a cell a reader could see.
 */
import type { Client } from "@libsql/client/web";
import { PAGEVIEW_DIMENSIONS } from "../dimensions";
import { localHourStartSql } from "../timezone";
import type { Source } from "./sources";
import type { ZoneGroup } from "./zones";

/** Which raw rows a fold reads: ids in (lo, hi], optionally of one site. */
export interface Range {
  lo: string;
  hi: string;
  siteId?: string;
}

/**
 * SQL: the publication's instant, read inside the folding transaction (only the publisher moves
 * it, after folding), so the rows folded and the cells already published are judged together.
 */
const PUBLISHED_THROUGH = "(SELECT coalesce(max(through_ms), 0) FROM rollup_publication)";

/**
 * SQL: the instant a raw row is folded at. A row whose local hour has already been published
 * (a conversion replayed with an old `timestamp`, a commit later than the grace) is folded at
 * the publication's instant instead: into the first hour and day not yet published. So a cell,
 * once readable, never changes (publication is final), and the late row still counts once.
 */
function foldInstant(zone: ZoneGroup): string {
  const hourEnd = `(${localHourStartSql("r.ts", zone.offset("r.ts"))} + 3600000)`;
  return `(CASE WHEN ${hourEnd} <= ${PUBLISHED_THROUGH} THEN ${PUBLISHED_THROUGH} ELSE r.ts END)`;
}

export function rawRows(source: Source, zone: ZoneGroup, range: Range): { sql: string; args: (string | number)[] } {
  const args: (string | number)[] = [zone.stored];
  const site = range.siteId ? (args.push(range.siteId), " AND r.site_id = ?") : "";
  const local = `(f.t + ${zone.offset("f.t")})`;
  const common = `f.site_id AS site_id, date(${local} / 1000, 'unixepoch') AS day, ${localHourStartSql("f.t", zone.offset("f.t"))} AS hour, f.t AS ts`;
  const from =
    `FROM (SELECT r.*, ${foldInstant(zone)} AS t FROM ${source} r JOIN sites s ON s.id = r.site_id ` +
    `WHERE r.id > ${range.lo} AND r.id <= ${range.hi} AND s.timezone = ?${site}) AS f`;
  switch (source) {
    case "events":
      return {
        sql:
          `SELECT ${common}, f.id AS id, f.kind AS kind, f.path AS path, coalesce(f.session_id, 'e:' || f.id) AS unit, ` +
          `${PAGEVIEW_DIMENSIONS.map((d) => `f.${d} AS ${d}`).join(", ")}, f.props AS props ${from}`,
        args,
      };
    case "conversions":
      return {
        sql: `SELECT ${common}, f.goal_id AS goal_id, f.session_id AS session_id, coalesce(f.revenue, 0) AS revenue, coalesce(f.session_id, 'c:' || f.id) AS unit, f.source AS source, f.props AS props ${from}`,
        args,
      };
    case "vitals":
      return {
        sql: `SELECT ${common}, f.path AS path, f.metric AS metric, f.value AS value, coalesce(f.session_id, 'v:' || f.id) AS unit ${from}`,
        args,
      };
  }
}

/** How far past the publication's instant (as read before a fold) the offset segments reach. */
const FOLD_INSTANT_MARGIN_MS = 2 * 24 * 60 * 60 * 1000;

/**
 * The span of instants the rows ids (lo, hi] are folded at: their own, or the publication's
 * instant for late rows (foldInstant), which may have moved on a little by the time they fold.
 */
export async function instantSpan(
  client: Client,
  source: Source,
  lo: number,
  hi: number,
  siteId?: string,
): Promise<{ from: number; to: number } | null> {
  const rs = await client.execute({
    sql: `SELECT min(ts) AS lo, max(ts) AS hi, ${PUBLISHED_THROUGH} AS through FROM ${source} WHERE id > ? AND id <= ?${siteId ? " AND site_id = ?" : ""}`,
    args: siteId ? [lo, hi, siteId] : [lo, hi],
  });
  const row = rs.rows[0];
  if (!row || row.lo === null) return null;
  return { from: Number(row.lo), to: Math.max(Number(row.hi), Number(row.through) + FOLD_INSTANT_MARGIN_MS) };
}
