/**
 * The sessions list (GET /api/v1/sessions) shows nothing the reports hide. A session is listed
 * only when it began on a published day whose site-day atom is visible; it carries its local
 * day, its first local hour only where that hour is shown by the hourly timeseries, and its
 * entry path only where that page-day is shown by the pages report — the same filter, called
 * here rather than re-implemented. No times to the millisecond, no last-seen, no pageview count
 * (one session's count is a group of one). Rows are ordered by arrival (rowid), newest first,
 * and the cursor is that rowid: it says nothing a listing does not.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { pagesReport } from "./pages";
import { lastCompleteDay } from "./period";
import { kAnonymity } from "./privacy";
import { PUBLICATION_SQL, publicationOf } from "./publication";
import { effectiveZone } from "./rollup";
import type { ReportScope } from "./scope";
import { timeseriesReport } from "./timeseries";
import { addDays, localDate, startOfLocalDay } from "./timezone";

export interface ListedSession {
  id: string;
  /** The local day the session began (the site's zone). */
  day: string;
  /** The UTC instant of the local hour it began, when that hour is shown; else null. */
  hour: string | null;
  /** Its first page, when that page is shown on its day; else null. */
  entry_path: string | null;
}

export interface SessionsPage {
  sessions: ListedSession[];
  next: number | null;
  publishedThrough: string | null;
}

/** What the filter shows of one day: its visible hours and pages (null: the day is hidden). */
interface DayView {
  hours: Set<number>;
  paths: Set<string>;
}

const SCAN_FACTOR = 4;
const MAX_SCANS = 8;

export async function listPublishedSessions(
  db: ReadOnlyDatabase,
  siteId: string,
  options: { limit: number; before?: number | undefined; kSetting?: string | null | undefined },
): Promise<SessionsPage> {
  const [site, published] = await db.queryAll([{ sql: "SELECT timezone FROM sites WHERE id = ?", args: [siteId] }, PUBLICATION_SQL]);
  const publication = publicationOf(published!);
  const zone = effectiveZone(String(site!.rows[0]?.timezone ?? "UTC"));
  if (!publication) return { sessions: [], next: null, publishedThrough: null };
  const lastDay = lastCompleteDay(zone, publication.throughMs);
  const end = startOfLocalDay(zone, addDays(lastDay, 1));
  const k = kAnonymity(options.kSetting);
  const days = new Map<string, DayView | null>();
  const view = async (day: string): Promise<DayView | null> => {
    if (days.has(day)) return days.get(day)!;
    const scope: ReportScope = { siteId, from: day, to: day, timeZone: zone, k };
    const daily = await timeseriesReport(db, scope, "hour");
    const shown = daily.points.filter((p) => p.visitors.value !== null && p.visitors.value > 0).map((p) => Date.parse(p.start));
    const dayHidden = daily.totals.visitors.value === null || daily.totals.visitors.value === 0;
    const pages = await pagesReport(db, scope);
    const result = dayHidden ? null : { hours: new Set(shown), paths: new Set(pages.rows.filter((r) => r.visitors.value !== null).map((r) => r.path)) };
    days.set(day, result);
    return result;
  };

  const listed: (ListedSession & { rowid: number })[] = [];
  let before = options.before ?? Number.MAX_SAFE_INTEGER;
  for (let scan = 0; scan < MAX_SCANS && listed.length <= options.limit; scan++) {
    const rs = await db.query({
      sql: "SELECT rowid, id, first_seen, entry_path FROM sessions WHERE site_id = ? AND rowid < ? AND first_seen < ? ORDER BY rowid DESC LIMIT ?",
      args: [siteId, before, end, (options.limit + 1) * SCAN_FACTOR],
    });
    for (const r of rs.rows) {
      const firstSeen = Number(r.first_seen);
      const day = localDate(zone, firstSeen);
      const shown = await view(day);
      if (!shown) continue;
      const hourStart = [...shown.hours].find((h) => h <= firstSeen && firstSeen < h + 3_600_000);
      const entry = r.entry_path === null ? null : String(r.entry_path);
      listed.push({
        rowid: Number(r.rowid),
        id: String(r.id),
        day,
        hour: hourStart === undefined ? null : new Date(hourStart).toISOString(),
        entry_path: entry !== null && shown.paths.has(entry) ? entry : null,
      });
      if (listed.length > options.limit) break;
    }
    if (rs.rows.length === 0) break;
    before = Number(rs.rows.at(-1)!.rowid);
  }
  const page = listed.slice(0, options.limit);
  return {
    sessions: page.map(({ rowid: _rowid, ...session }) => session),
    next: listed.length > options.limit ? page.at(-1)!.rowid : null,
    publishedThrough: lastDay,
  };
}
