/**
 * What every report request does before computing: look the site up, read the publication,
 * resolve the period in the site's time zone against the last published day, and negotiate
 * the format. It writes nothing and folds nothing: the publisher (publisher.ts) does that in
 * the background. The result names the report's scope (site, days, k), a read-only handle,
 * and the head every answer starts with.
 */
import { siteNotFound } from "../domain/sites";
import type { Database } from "../lib/db";
import { HttpProblem } from "../lib/problem";
import type { ReadOnlyDatabase } from "../lib/read-only";
import { ReportCache } from "./cache";
import { importedMeta, importedRunsOf, importedRunsStatement, type ImportedMeta } from "./imported/coverage";
import type { ImportedExclusion } from "./imported/rule";
import { negotiate, type Format } from "./format";
import { nextFigures, type NextFigures } from "./freshness";
import { lastCompleteDay, resolvePeriod, type Period, type PeriodQuery } from "./period";
import { NOISE_KEY_SQL, noiseKeyOf } from "./noise-position";
import { kAnonymity } from "./privacy";
import { legacyDays, PUBLICATION_SQL, publicationOf } from "./publication";
import { effectiveZone } from "./rollup";
import { daysBetween } from "./timezone";
import type { ReportScope } from "./scope";

/** The bindings a report reads. */
export interface ReportEnv {
  WREN_K_ANONYMITY?: string | null;
}

export interface ReportRequest {
  db: Database;
  env: ReportEnv;
  request: Request;
}

export interface PreparedReport {
  /** The only database handle a report gets: it cannot write. */
  db: ReadOnlyDatabase;
  scope: ReportScope;
  period: Period;
  format: Format;
  /** The JSON body's head; CSV and NDJSON lines start with the same values (reply.ts). */
  head: {
    site: string;
    period: { from: string; to: string; days: number; timezone: string; start?: string; end?: string };
    k: number;
    /** The last local day that is published: the freshest a report of this site can be. */
    published_through: string;
    /** When the running hour's and today's figures are published (freshness.ts). */
    next_figures: NextFigures;
    /** The period's imported days, left out (`reason: "report"`) unless the route says otherwise. */
    imported?: ImportedMeta;
  };
  /**
   * The `imported` field for this period: included (exclusion null) or left out and why;
   * `collectedOnly` names figures that cover collected data only. Empty when no imported day is in the period.
   */
  imported(exclusion: ImportedExclusion | null, collectedOnly?: string[]): { imported?: ImportedMeta };
  /**
   * Computes the report once per publication: `name` and `params` name the report and its
   * own parameters (the scope and the site's goals are added to the key).
   */
  cached<T>(name: string, params: unknown[], compute: () => Promise<T>): Promise<T>;
  /**
   * The same report for other whole days from..to (a comparison's earlier period, compare.ts):
   * every other field of the scope kept, its own head and its own cache entries.
   */
  shifted(from: string, to: string): PreparedReport;
}

const cache = new ReportCache();

/** How long a reader is asked to wait when nothing is published yet (the publisher's first run). */
const FIRST_PUBLICATION_RETRY_S = 10;

/**
 * Prepares a report of `siteId` for the query's period. `check` may refuse a period the
 * report cannot cover (e.g. hourly points over too many days) before anything is computed.
 */
export async function prepareReport(
  { db, env, request }: ReportRequest,
  siteId: string,
  query: PeriodQuery,
  check?: (period: Period) => void,
): Promise<PreparedReport> {
  const reader = db.$reader;
  // One round trip for all a report needs to know before it computes (or finds its cache entry).
  const [siteRows, publicationRows, goalRows, keyRows, runRows, importRows] = await reader.queryAll([
    { sql: "SELECT timezone FROM sites WHERE id = ?", args: [siteId] },
    PUBLICATION_SQL,
    // Ids and names: a renamed goal (PATCH) must not keep its old name in a cached report.
    { sql: "SELECT json_group_array(json_array(id, name)) AS goals FROM (SELECT id, name FROM goals WHERE site_id = ? ORDER BY id)", args: [siteId] },
    NOISE_KEY_SQL,
    importedRunsStatement(siteId),
    IMPORTS_FINGERPRINT(siteId),
  ]);
  const site = siteRows!.rows[0];
  if (!site) throw siteNotFound(siteId, "site");
  const publication = publicationOf(publicationRows!);
  if (!publication) {
    throw new HttpProblem(503, "No figures are published yet: the publisher's first run comes within seconds of start-up.", {
      headers: { "retry-after": String(FIRST_PUBLICATION_RETRY_S) },
    });
  }
  const zone = effectiveZone(String(site.timezone));
  const period = resolvePeriod(query, zone, publication.throughMs);
  check?.(period);
  const k = kAnonymity(env.WREN_K_ANONYMITY);
  const scope: ReportScope = {
    siteId,
    from: period.from,
    to: period.to,
    timeZone: period.timeZone,
    k,
    noise: true,
    noiseKey: noiseKeyOf(keyRows!.rows[0]),
    hours: period.hours,
    legacyDays: legacyDays(publication, zone),
  };
  const publishedThrough = lastCompleteDay(zone, publication.throughMs);
  const goals = String(goalRows!.rows[0]?.goals ?? "[]");
  const runs = importedRunsOf(runRows!);
  // Imports change no publication: what they wrote is part of every cached report's key.
  const imports = runs.length === 0 ? "" : JSON.stringify([runs, importRows!.rows[0]?.imports ?? ""]);
  const format = negotiate(request.headers.get("accept"));
  const prepared = (scope: ReportScope, period: Period): PreparedReport => ({
    db: reader,
    scope,
    period,
    format,
    head: {
      site: siteId,
      period: { from: period.from, to: period.to, days: period.days, timezone: period.timeZone, ...windowBounds(period) },
      k,
      published_through: publishedThrough,
      next_figures: nextFigures(zone, publication.throughMs),
      ...importedField(importedMeta(runs, period.from, period.to, "report")),
    },
    imported: (exclusion, collectedOnly) => importedField(importedMeta(runs, period.from, period.to, exclusion, collectedOnly)),
    cached: (name, params, compute) =>
      cache.remember(JSON.stringify([name, scope, publication.version, publishedThrough, goals, imports, params]), compute),
    shifted: (from, to) =>
      prepared({ ...scope, from, to, hours: undefined }, { from, to, days: daysBetween(from, to), timeZone: period.timeZone }),
  });
  return prepared(scope, period);
}

/** What identifies the site's imports as they are now (with the runs: the report cache's key). */
const IMPORTS_FINGERPRINT = (siteId: string) => ({
  sql: "SELECT group_concat(id || ':' || status || ':' || days_imported || ':' || rows_read || ':' || coalesce(resume_after, ''), ',') AS imports FROM imports WHERE site_id = ?",
  args: [siteId],
});

const importedField = (meta: ImportedMeta | undefined): { imported?: ImportedMeta } => (meta ? { imported: meta } : {});

/** The instants a period of closed hours covers, for the head; nothing for whole days. */
function windowBounds(period: Period): { start?: string; end?: string } {
  if (!period.hours) return {};
  const { fromMs, toMs } = period.hours.window;
  return { start: new Date(fromMs).toISOString(), end: new Date(toMs).toISOString() };
}
