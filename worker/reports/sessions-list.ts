/**
 * The sessions list (GET /api/v1/sessions) shows only figures the reports show. It used to list
 * one row per session (day, hour, entry page): counting rows gave exact counts of cells the
 * reports perturb, and subtracting one's own sybil sessions gave a hidden entry page's count
 * (issue 36 item 4). Now it lists one row per published day of the site, newest first:
 *
 * - `sessions`: the site-day's visitors exactly as the daily timeseries shows them (perturbed,
 *   suppressed when hidden);
 * - `hours`: the site-hours of that day the hourly timeseries shows with data, with its figures;
 * - `entry_pages`: the entry-page breakdown's shown cells of that day, with its figures, by path.
 *   A hidden cell is not listed at all: no label of a hidden cell.
 *
 * Every figure comes from the reports' own functions (timeseriesReport, breakdownReport) for
 * the same scope, never from a re-implementation, so the list is a view of figures already
 * published and adds no equation to what the reports give. No per-session row, and no cross
 * table of hour × entry page (a two-way table whose margins are published).
 *
 * Days are those with a site-day cell, published (whole days that have ended in the site's
 * zone; today never), and no older than the raw retention window, as before. The cursor is the
 * day the next page starts at.
 */
import { siteNotFound } from "../domain/sites";
import type { Database } from "../lib/db";
import type { ReadOnlyDatabase } from "../lib/read-only";
import { breakdownReport } from "./breakdown";
import type { Figure } from "./figures";
import { NOISE_KEY_SQL, noiseKeyOf } from "./noise-position";
import { lastCompleteDay } from "./period";
import { legacyDays, PUBLICATION_SQL, publicationOf } from "./publication";
import { retentionHorizon } from "./retention";
import { effectiveZone } from "./rollup";
import type { ReportScope } from "./scope";
import { timeseriesReport } from "./timeseries";
import { runningDayEnd } from "./freshness";
import { addDays, localDate, startOfLocalDay } from "./timezone";
import { now } from "../lib/clock";

export interface ListedDay {
  /** A published local day (the site's zone). */
  day: string;
  /** The day's sessions as the daily timeseries shows them. */
  sessions: Figure;
  /** The hours the hourly timeseries shows with data that day: the instant each starts, and its sessions. */
  hours: { hour: string; sessions: Figure }[];
  /** The entry pages the entry-page breakdown shows that day, with their sessions. */
  entry_pages: { path: string; sessions: Figure }[];
}

export interface SessionsPage {
  days: ListedDay[];
  /** The day the next page starts at; null on the last page. */
  next: string | null;
  /** The last published local day; null before the publisher's first run. */
  publishedThrough: string | null;
  /** The site's time zone, and when its running day ends (ms; null before the first run). */
  timeZone: string;
  dayEnd: number | null;
}

export interface ListOptions {
  /** Days per page. */
  limit: number;
  /** The day to start at (a next cursor), newest first. */
  after?: string | undefined;
  k: number;
  /** Days raw sessions are kept (WREN_RAW_RETENTION_DAYS). */
  retentionDays: number;
  now?: number;
  /** Perturb the figures as the reports do (the API always does; the property test attacks exact figures). */
  noise?: boolean;
}

/** A cursor is a day; anything else is not one. */
export function decodeSessionCursor(value: string): string | null {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : NaN;
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value ? null : value;
}

/** The days with a site-day cell in [?2, ?3], newest first; at most ?4. */
const DAYS_SQL = "SELECT day FROM rollup_site_day WHERE site_id = ?1 AND day >= ?2 AND day <= ?3 ORDER BY day DESC LIMIT ?4";

/** A page of the list for the API: reads only, through a read-only handle as reports do. */
export function sessionsPage(db: Database, siteId: string, options: ListOptions): Promise<SessionsPage> {
  return listPublishedSessions(db.$reader, siteId, options);
}

/** A page of a site's listed days, newest first. */
export async function listPublishedSessions(db: ReadOnlyDatabase, siteId: string, options: ListOptions): Promise<SessionsPage> {
  const [site, published, key] = await db.queryAll([
    { sql: "SELECT timezone FROM sites WHERE id = ?", args: [siteId] },
    PUBLICATION_SQL,
    NOISE_KEY_SQL,
  ]);
  if (!site!.rows[0]) throw siteNotFound(siteId, "site");
  const zone = effectiveZone(String(site!.rows[0].timezone));
  const publication = publicationOf(published!);
  if (!publication) return { days: [], next: null, publishedThrough: null, timeZone: zone, dayEnd: null };
  const lastDay = lastCompleteDay(zone, publication.throughMs);
  const fresh = { timeZone: zone, dayEnd: runningDayEnd(zone, publication.throughMs) };

  // The oldest day none of whose sessions retention can have deleted: it starts after the cutoff.
  const cutoff = retentionHorizon(options.now ?? now(), options.retentionDays).rawBefore;
  let firstDay = localDate(zone, cutoff);
  if (startOfLocalDay(zone, firstDay) < cutoff) firstDay = addDays(firstDay, 1);

  const start = options.after && options.after <= lastDay ? options.after : lastDay;
  const rows = await db.query({ sql: DAYS_SQL, args: [siteId, firstDay, start, options.limit + 1] });
  const days = rows.rows.map((r) => String(r.day));
  const page = days.slice(0, options.limit);
  const next = days.length > options.limit ? days[options.limit]! : null;
  if (page.length === 0) return { days: [], next: null, publishedThrough: lastDay, ...fresh };

  const scope: ReportScope = {
    siteId,
    from: page[page.length - 1]!,
    to: page[0]!,
    timeZone: zone,
    k: options.k,
    noise: options.noise ?? true,
    noiseKey: noiseKeyOf(key!.rows[0]),
    legacyDays: legacyDays(publication, zone),
  };
  const [daily, hourly] = await Promise.all([timeseriesReport(db, scope, "day"), timeseriesReport(db, scope, "hour")]);
  const listed: ListedDay[] = [];
  for (const day of page) {
    const point = daily.points.find((p) => p.local === day)!;
    const hours = hourly.points
      .filter((p) => p.local.slice(0, 10) === day && p.visitors.value !== null && p.visitors.value > 0)
      .map((p) => ({ hour: p.start, sessions: p.visitors }));
    // A breakdown over several days sums them: one day at a time, as the report reads that day.
    const entries = await breakdownReport(db, { ...scope, from: day, to: day }, "entry_page");
    const entry_pages = entries.rows
      .filter((r): r is typeof r & { value: string } => r.value !== null && r.visitors.value !== null)
      .map((r) => ({ path: r.value, sessions: r.visitors }))
      .sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
    listed.push({ day, sessions: point.visitors, hours, entry_pages });
  }
  return { days: listed, next, publishedThrough: lastDay, ...fresh };
}
