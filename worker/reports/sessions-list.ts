/**
 * The sessions list (GET /api/v1/sessions) shows nothing the reports hide. A session is listed
 * on the local day it began, only when that day is published and its site-day atom is visible,
 * and only when the session is one of the units that atom counts. Of each session it gives:
 *
 * - its day;
 * - the local hour it began, only when it is a unit of that site-hour cell and the hourly
 *   timeseries shows the cell (timeseries.ts shownSiteHours), else null;
 * - its entry path, only when it is a unit of that page-day atom and the pages report shows
 *   the atom (privacy/page-atoms.ts PAGE_ATOMS_SQL), else null.
 *
 * The rules are the reports' own, called here, not re-implemented. Nothing finer than the hour,
 * no last-seen time, and no pageview count: one session's count is a figure about a group of
 * one, and a bucket of it still is; the reports show pageviews only summed over k sessions.
 *
 * No id either: the stored id is a keyed hash that links to nothing the API serves, so it would
 * only give a reader a per-person key to join exports on. Within a day, rows come in the order
 * of that hash, which carries no time, and the cursor is (day, rows already listed that day):
 * a listed day never changes (below), so the position is stable and says nothing a listing
 * does not. Arrival order or a row number would say how many hidden sessions lie between.
 *
 * A listed day never changes: its cells are final once published, a session's first_seen and
 * the cells' units are never rewritten, and a day is listed only while none of its sessions can
 * have been deleted by retention (which deletes sessions by last_seen, so watching rows vanish
 * would time each session's last activity).
 */
import { siteNotFound } from "../domain/sites";
import type { Database } from "../lib/db";
import type { ReadOnlyDatabase } from "../lib/read-only";
import { lastCompleteDay } from "./period";
import { SITE_DAY_ATOMS_SQL, siteDayAtomVisible } from "./atoms";
import { PAGE_ATOMS_SQL } from "./privacy";
import { legacyDays, PUBLICATION_SQL, publicationOf } from "./publication";
import type { ReportScope } from "./scope";
import { effectiveZone } from "./rollup";
import { shownSiteHours } from "./timeseries";
import { retentionHorizon } from "./retention";
import { addDays, localDate, localHourStartSql, offsetSegments, offsetSql, startOfLocalDay } from "./timezone";

export interface ListedSession {
  /** The local day the session began (the site's zone). */
  day: string;
  /** The UTC instant at which the local hour it began starts, when that hour is shown; else null. */
  hour: string | null;
  /** Its first page, when that page is shown on its day; else null. */
  entry_path: string | null;
}

/** Where a page starts: after `offset` rows of `day`. */
export interface SessionCursor {
  day: string;
  offset: number;
}

export interface SessionsPage {
  sessions: ListedSession[];
  next: SessionCursor | null;
  /** The last published local day; null before the publisher's first run. */
  publishedThrough: string | null;
}

export interface ListOptions {
  limit: number;
  after?: SessionCursor | undefined;
  k: number;
  /** Days raw sessions are kept (WREN_RAW_RETENTION_DAYS). */
  retentionDays: number;
  now?: number;
}

export const encodeSessionCursor = (cursor: SessionCursor): string => `${cursor.day}.${cursor.offset}`;

/** The cursor in a next_cursor string, or null when it is not one. */
export function decodeSessionCursor(value: string): SessionCursor | null {
  const match = /^(\d{4}-\d{2}-\d{2})\.(\d{1,9})$/.exec(value);
  const ms = match ? Date.parse(`${match[1]}T00:00:00Z`) : NaN;
  if (!match || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== match[1]) return null;
  return { day: match[1]!, offset: Number(match[2]) };
}

/** The page-day atoms of one day that the pages report shows. Parameters: ?1 k, ?2 site, ?3 and ?4 the day. */
const SHOWN_PAGES_SQL = `WITH ${PAGE_ATOMS_SQL} SELECT path FROM page_atoms WHERE visible = 1`;

/**
 * The sessions that began on one day (?4 ≤ first_seen < ?5) and are units of its site-day,
 * in hash order, with the start of their first_seen's local hour when they are units of that
 * site-hour cell (else null) and their entry path when they are units of that page-day (else
 * null). `offset` is SQL for the zone's offset at s.first_seen (timezone.ts offsetSql): the
 * hour is cut as the rollup cuts it. Each lookup is an index seek on a units table's key.
 */
function daySessionsSql(offset: string): string {
  const hour = localHourStartSql("s.first_seen", offset);
  return `
  SELECT
    CASE WHEN EXISTS (SELECT 1 FROM rollup_site_hour_units h WHERE h.site_id = u.site_id AND h.hour = ${hour} AND h.unit = u.unit)
      THEN ${hour} END AS hour,
    CASE WHEN EXISTS (SELECT 1 FROM rollup_page_day_units p WHERE p.site_id = u.site_id AND p.day = u.day AND p.path = s.entry_path AND p.unit = u.unit)
      THEN s.entry_path END AS entry_path
  FROM rollup_site_day_units u JOIN sessions s ON s.id = u.unit
  WHERE u.site_id = ?1 AND u.day = ?2 AND s.site_id = ?1 AND s.first_seen >= ?4 AND s.first_seen < ?5
  ORDER BY u.unit LIMIT ?6 OFFSET ?3`;
}

/** A page of the list for the API: reads only, through a read-only handle as reports do. */
export function sessionsPage(db: Database, siteId: string, options: ListOptions): Promise<SessionsPage> {
  return listPublishedSessions(db.$reader, siteId, options);
}

/** A page of a site's listed sessions, newest day first. */
export async function listPublishedSessions(db: ReadOnlyDatabase, siteId: string, options: ListOptions): Promise<SessionsPage> {
  const [site, published] = await db.queryAll([{ sql: "SELECT timezone FROM sites WHERE id = ?", args: [siteId] }, PUBLICATION_SQL]);
  if (!site!.rows[0]) throw siteNotFound(siteId, "site");
  const publication = publicationOf(published!);
  if (!publication) return { sessions: [], next: null, publishedThrough: null };
  const zone = effectiveZone(String(site!.rows[0].timezone));
  const lastDay = lastCompleteDay(zone, publication.throughMs);

  // The oldest day none of whose sessions retention can have deleted: it starts after the cutoff.
  const cutoff = retentionHorizon(options.now ?? Date.now(), options.retentionDays).rawBefore;
  let firstDay = localDate(zone, cutoff);
  if (startOfLocalDay(zone, firstDay) < cutoff) firstDay = addDays(firstDay, 1);

  const start = options.after && options.after.day <= lastDay ? options.after : { day: lastDay, offset: 0 };
  const legacy = legacyDays(publication, zone);
  const dayRows = await db.query({ sql: `${SITE_DAY_ATOMS_SQL} ORDER BY s.day DESC`, args: [options.k, siteId, firstDay, start.day, legacy] });
  const days = dayRows.rows.filter((r) => siteDayAtomVisible(r, options.k)).map((r) => String(r.day));

  const listed: ListedSession[] = [];
  let next: SessionCursor | null = null;
  for (const day of days) {
    const offset = day === start.day ? start.offset : 0;
    const wanted = options.limit - listed.length;
    const [from, to] = [startOfLocalDay(zone, day), startOfLocalDay(zone, addDays(day, 1))];
    const rs = await db.query({
      sql: daySessionsSql(offsetSql(offsetSegments(zone, from, to), "s.first_seen")),
      args: [siteId, day, offset, from, to, wanted + 1],
    });
    if (rs.rows.length === 0) continue;
    if (wanted === 0) {
      // The page is full and more rows follow: the next page starts at this day.
      next = { day, offset };
      break;
    }
    const { hours, paths } = await shownOn(db, { siteId, from: day, to: day, timeZone: zone, k: options.k, legacyDays: legacy });
    for (const r of rs.rows.slice(0, wanted)) {
      const hour = r.hour === null ? null : Number(r.hour);
      const entry = r.entry_path === null ? null : String(r.entry_path);
      listed.push({
        day,
        hour: hour !== null && hours.has(hour) ? new Date(hour).toISOString() : null,
        entry_path: entry !== null && paths.has(entry) ? entry : null,
      });
    }
    if (rs.rows.length > wanted) {
      next = { day, offset: offset + wanted };
      break;
    }
  }
  return { sessions: listed, next, publishedThrough: lastDay };
}

/** What the reports show of one day: the hours the timeseries shows and the pages the pages report shows. */
async function shownOn(db: ReadOnlyDatabase, scope: ReportScope): Promise<{ hours: Set<number>; paths: Set<string> }> {
  const [hours, pages] = await Promise.all([
    shownSiteHours(db, scope),
    db.query({ sql: SHOWN_PAGES_SQL, args: [scope.k, scope.siteId, scope.from, scope.to] }),
  ]);
  return { hours: hours.get(scope.from) ?? new Set(), paths: new Set(pages.rows.map((r) => String(r.path))) };
}
