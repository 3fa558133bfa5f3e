/**
 * Which days of a site are imported, for the `imported` field every report answer carries when
 * its period touches one (docs/reports.md, "Imported days"). Read once per request, beside the
 * site and the publication (request.ts), as runs of consecutive days per source: a few rows
 * however many days were imported, from which any period's count follows without a query.
 *
 * A day that has collected data as well as imported data is read as collected only (the import's
 * overlap rule should make it impossible; reports do not rely on it), and said so.
 */
import type { InStatement, ResultSet } from "@libsql/client/web";
import { IMPORT_SOURCES, type ImportSource } from "../../domain/imports/model";
import type { ImportedExclusion } from "./rule";

/** SQL: whether the imported day `d.day` of `d.site_id` has collected data (then it is read as collected only). */
export const COLLECTED_DAY_SQL =
  "EXISTS (SELECT 1 FROM rollup_site_day r WHERE r.site_id = d.site_id AND r.day = d.day AND r.visitors > 0)";

/** Consecutive imported days of one source, collected-over or not. */
export interface ImportedRun {
  source: string;
  /** Days that also have collected data: read as collected. */
  collected: boolean;
  first: string;
  last: string;
  /** The run's figures' weight: changes when a day's counts do (for the report cache's key). */
  weight: number;
}

/** The statement reading a site's runs (one row per run; ordered by first day). */
export function importedRunsStatement(siteId: string): InStatement {
  return {
    sql:
      "SELECT source, collected, min(day) AS first, max(day) AS last, total(weight) AS weight FROM (" +
      "SELECT day, source, collected, weight, CAST(julianday(day) AS INTEGER) - row_number() OVER (PARTITION BY source, collected ORDER BY day) AS run FROM (" +
      `SELECT d.day AS day, coalesce(i.source, '') AS source, ${COLLECTED_DAY_SQL} AS collected, ` +
      "d.visitors + 3 * d.pageviews + 7 * d.visits + 11 * d.bounces + 13 * d.visit_duration AS weight " +
      "FROM imported_days d LEFT JOIN imports i ON i.site_id = d.site_id AND i.id = d.import_id WHERE d.site_id = ?)) " +
      "GROUP BY source, collected, run ORDER BY first",
    args: [siteId],
  };
}

export function importedRunsOf(rs: ResultSet): ImportedRun[] {
  return rs.rows.map((r) => ({
    source: String(r.source),
    collected: Number(r.collected) === 1,
    first: String(r.first),
    last: String(r.last),
    weight: Number(r.weight),
  }));
}

/** What a report says about the imported days of its period. */
export interface ImportedMeta {
  /** Imported days in the period (those read as collected are not counted). */
  days: number;
  /** The first and last of them. */
  from: string;
  to: string;
  /** The tools they came from. */
  sources: ImportSource[];
  /** Whether the report's figures include them. */
  included: boolean;
  /** When they are left out: why. */
  reason?: ImportedExclusion;
  /** Imported days of the period that have collected data too: read as collected only. */
  overlap_days?: number;
  /** Figures of the answer that cover collected data only (the aggregate's visit duration). */
  collected_only?: string[];
}

const isSource = (name: string): name is ImportSource => (IMPORT_SOURCES as readonly string[]).includes(name);

const DAY_MS = 86_400_000;
const dayNumber = (date: string) => Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
const dateOf = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

/**
 * The `imported` field of a report over from..to: undefined when no imported day is in the
 * period; else the days, sources, and whether the figures include them (`exclusion`: why not).
 */
export function importedMeta(
  runs: readonly ImportedRun[],
  from: string,
  to: string,
  exclusion: ImportedExclusion | null,
  collectedOnly?: string[],
): ImportedMeta | undefined {
  const lo = dayNumber(from);
  const hi = dayNumber(to);
  let days = 0;
  let overlap = 0;
  let first = Infinity;
  let last = -Infinity;
  const sources = new Set<ImportSource>();
  for (const run of runs) {
    const a = Math.max(lo, dayNumber(run.first));
    const b = Math.min(hi, dayNumber(run.last));
    if (a > b) continue;
    if (run.collected) {
      overlap += b - a + 1;
      continue;
    }
    days += b - a + 1;
    first = Math.min(first, a);
    last = Math.max(last, b);
    if (isSource(run.source)) sources.add(run.source);
  }
  if (days === 0 && overlap === 0) return undefined;
  return {
    days,
    from: days > 0 ? dateOf(first) : from,
    to: days > 0 ? dateOf(last) : to,
    sources: [...sources].sort(),
    included: exclusion === null && days > 0,
    ...(exclusion !== null ? { reason: exclusion } : {}),
    ...(overlap > 0 ? { overlap_days: overlap } : {}),
    ...(exclusion === null && days > 0 && collectedOnly ? { collected_only: collectedOnly } : {}),
  };
}

/** Whether any imported day (read as imported) lies in from..to. */
export function hasImportedDays(runs: readonly ImportedRun[], from: string, to: string): boolean {
  return runs.some((run) => !run.collected && run.first <= to && run.last >= from);
}
