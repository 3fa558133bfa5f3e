/**
 * Event exports (Umami's website_event rows, GoatCounter's hits) added up into the daily counts
 * Plausible's export gives: per local day, visitors are distinct sessions, visits distinct
 * visits, a bounce a visit of one pageview, a visit's duration its last pageview less its
 * first. A visit's entry and exit page are its first and last pageview's paths, and its
 * source, campaign, country, browser, system and device are its first pageview's. Session ids
 * live only in this module's maps while a file is read; no count carries one out.
 */
import { localDate } from "../../../reports/timezone";
import type { ImportedDay, ImportedDimension } from "../model";
import { DayTable } from "./day-table";

/** The reports a visit's first pageview decides. */
export type VisitDimension = Exclude<ImportedDimension, "page" | "entry_page" | "exit_page">;

export interface PageviewRow {
  file: string;
  line: number;
  /** When, ms since the epoch (UTC). */
  instant: number;
  session: string;
  /** The visit within the session (Umami's visit_id); the session itself where there is none. */
  visit: string;
  path: string | null;
  dimensions: Partial<Record<VisitDimension, string | null>>;
}

interface Visit {
  session: string;
  views: { instant: number; line: number; path: string | null; dimensions: PageviewRow["dimensions"] }[];
}

export class PageviewDays {
  private readonly table = new DayTable();
  /** day → visit key → its pageviews. */
  private readonly visits = new Map<string, Map<string, Visit>>();

  constructor(private readonly timeZone: string) {}

  /** The local day of an instant in the site's zone. */
  dayOf(instant: number): string {
    return localDate(this.timeZone, instant);
  }

  add(row: PageviewRow): void {
    const day = this.dayOf(row.instant);
    this.table.row(day, row.file, row.line);
    let visits = this.visits.get(day);
    if (!visits) this.visits.set(day, (visits = new Map()));
    const key = `${row.session}\u0000${row.visit}`;
    let visit = visits.get(key);
    if (!visit) visits.set(key, (visit = { session: row.session, views: [] }));
    visit.views.push({ instant: row.instant, line: row.line, path: row.path, dimensions: row.dimensions });
  }

  result(): ImportedDay[] {
    for (const [day, visits] of this.visits) {
      const sessions = new Set<string>();
      // Distinct sessions per cell: a session counts once however many of its visits share a value.
      const cellSessions = new Map<string, Set<string>>();
      const cell = (dimension: ImportedDimension, value: string | null | undefined, session: string, pageviews: number) => {
        if (!value) return;
        const key = `${dimension}\u0000${value}`;
        let seen = cellSessions.get(key);
        if (!seen) cellSessions.set(key, (seen = new Set()));
        const visitors = seen.has(session) ? 0 : 1;
        seen.add(session);
        this.table.addCell(day, dimension, value, visitors, pageviews);
      };
      let pageviews = 0;
      let bounces = 0;
      let duration = 0;
      for (const visit of visits.values()) {
        const views = visit.views.sort((a, b) => a.instant - b.instant || a.line - b.line);
        const first = views[0]!;
        const last = views[views.length - 1]!;
        sessions.add(visit.session);
        pageviews += views.length;
        if (views.length === 1) bounces++;
        duration += Math.floor((last.instant - first.instant) / 1000);
        for (const view of views) cell("page", view.path, visit.session, 1);
        cell("entry_page", first.path, visit.session, views.length);
        cell("exit_page", last.path, visit.session, views.length);
        for (const [dimension, value] of Object.entries(first.dimensions) as [VisitDimension, string | null][]) {
          cell(dimension, value, visit.session, views.length);
        }
      }
      this.table.addTotals(day, { visitors: sessions.size, pageviews, visits: visits.size, bounces, visitDuration: duration });
    }
    return this.table.result();
  }
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An instant from "2025-01-31 13:45:07" (UTC, as Umami writes it), ISO 8601 or RFC 3339
 * ("2025-01-31T13:45:07.123Z", "…+02:00"); null when it is none, or no real time.
 */
export function instantOf(text: string): number | null {
  const m = TIMESTAMP.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  // Date.UTC rolls over (month 13 is next January): a time that does not come back as written is none.
  if (new Date(wall).toISOString().slice(0, 19) !== `${y}-${mo}-${d}T${h}:${mi}:${s}`) return null;
  const ms = fraction ? Number(fraction.slice(0, 3).padEnd(3, "0")) : 0;
  let offset = 0;
  if (zone && zone.toUpperCase() !== "Z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return wall + ms - offset;
}
