/**
 * Folding raw rows (events, conversions, vitals) into the rollup tables. Raw rows above each
 * source's watermark are folded, and the watermark moves past them, in one write transaction
 * (one Hrana batch) per chunk. Only the publisher (publisher.ts) calls this on a running
 * service; reports never do: they read published cells only.
 *
 * Double counting is impossible by construction: every statement selects raw rows by
 * `id > (the watermark as stored)` and `id <= hi`, and the watermark moves to `hi` in the
 * same transaction. Writers are serialised (the write lock is taken at BEGIN IMMEDIATE), so a
 * second, concurrent fold sees the moved watermark and folds nothing twice.
 *
 * Distinct units per cell grow through insert-or-ignore "units" tables: a fold notes the
 * highest units id first ("mark:" rows in rollup_watermarks), inserts, and adds the number of
 * rows above the mark to the cell's count.
 *
 * Local days and hours: each site's raw `ts` is shifted by its zone's offset, given to SQL as
 * a CASE over the constant-offset segments of the span of instants being folded.
 *
 * Publication is final: a row stamped in an hour already published is folded at the
 * publication's instant instead (foldInstant), so no fold changes a cell a reader could see.
 */
import type { Client, InStatement } from "@libsql/client/web";
import { dimensionFoldStatements, goalDimensionFoldStatements } from "./dimension-fold";
import { PAGEVIEW_DIMENSIONS } from "./dimensions";
import { bandSql, bucketSql } from "./histogram";
import { unitKeySql } from "./noise";
import { BUMP_VERSION } from "./publication";
import { canonicalTimeZone, localHourStartSql, offsetSegments, offsetSql } from "./timezone";

/** Raw rows per source per transaction: bounds how long one fold holds the write lock. */
export const CHUNK_ROWS = 100_000;

export const SOURCES = ["events", "conversions", "vitals"] as const;
export type Source = (typeof SOURCES)[number];

/** The highest raw row id of each source: how far a fold has to go. */
export type Head = Record<Source, number>;

/** Which raw rows a fold reads: ids in (lo, hi], optionally of one site. */
interface Range {
  lo: string;
  hi: string;
  siteId?: string;
}

const watermark = (source: Source) => `(SELECT last_id FROM rollup_watermarks WHERE source = '${source}')`;
const mark = (name: string) => `(SELECT last_id FROM rollup_watermarks WHERE source = 'mark:${name}')`;

/** The primary keys of the counted cell tables: their ON CONFLICT targets. */
const SITE_DAY = "site_id, day";
const SITE_HOUR = "site_id, hour";
const PAGE_DAY = "site_id, day, path";
const GOAL_DAY = "site_id, day, goal_id";
const GOAL_HOUR = "site_id, goal_id, hour";
const VITAL_DAY = "site_id, day, path, metric";

function setMark(name: string, unitsTable: string): InStatement {
  return (
    `INSERT INTO rollup_watermarks (source, last_id) VALUES ('mark:${name}', (SELECT coalesce(max(id), 0) FROM ${unitsTable})) ` +
    "ON CONFLICT (source) DO UPDATE SET last_id = excluded.last_id"
  );
}

/** The zone a stored site time zone means; an unknown name is read as UTC. */
export function effectiveZone(stored: string): string {
  return canonicalTimeZone(stored) ?? "UTC";
}

interface ZoneGroup {
  /** The value stored in sites.timezone. */
  stored: string;
  /** SQL for the offset of `ts` (ms) to local time. */
  offset: (ts: string) => string;
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

function rawRows(source: Source, zone: ZoneGroup, range: Range): { sql: string; args: (string | number)[] } {
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
          `${PAGEVIEW_DIMENSIONS.map((d) => `f.${d} AS ${d}`).join(", ")} ${from}`,
        args,
      };
    case "conversions":
      return {
        sql: `SELECT ${common}, f.goal_id AS goal_id, f.session_id AS session_id, coalesce(f.session_id, 'c:' || f.id) AS unit ${from}`,
        args,
      };
    case "vitals":
      return {
        sql: `SELECT ${common}, f.path AS path, f.metric AS metric, f.value AS value, coalesce(f.session_id, 'v:' || f.id) AS unit ${from}`,
        args,
      };
  }
}

/**
 * The statements that fold one source's rows of one zone into the rollups. Order matters
 * within a cell family: totals (which create the cells), mark, units, unit counts.
 */
function foldStatements(source: Source, zone: ZoneGroup, range: Range): InStatement[] {
  const raw = rawRows(source, zone, range);
  const withRaw = (sql: string): InStatement => ({ sql: `WITH raw AS (${raw.sql}) ${sql}`, args: raw.args });
  const units = (name: string, table: string, keyColumns: string, filter = ""): InStatement[] => [
    setMark(name, table),
    withRaw(
      `INSERT OR IGNORE INTO ${table} (${keyColumns}, unit) SELECT ${keyColumns}, unit FROM raw ${filter} GROUP BY ${keyColumns}, unit`,
    ),
  ];
  // Adds the units a family gained since its mark to its cells' count, and their keys to the
  // cells' key sums (noise.ts). The cells already
  // exist (made by the totals statement from the same raw rows), so only the DO UPDATE branch
  // runs and `placeholder` values (for NOT NULL columns outside the key) are never stored.
  const countNew = (
    name: string,
    unitsTable: string,
    target: string,
    key: string,
    counter: string,
    conflict: string,
    placeholder?: [string, string],
  ): InStatement =>
    `INSERT INTO ${target} (${key}${placeholder ? `, ${placeholder[0]}` : ""}, ${counter}, key_sum) ` +
    `SELECT ${key}${placeholder ? `, ${placeholder[1]}` : ""}, count(*), sum(${unitKeySql("unit")}) FROM ${unitsTable} WHERE id > ${mark(name)} GROUP BY ${key} ` +
    `ON CONFLICT (${conflict}) DO UPDATE SET ${counter} = ${target}.${counter} + excluded.${counter}, key_sum = ${target}.key_sum + excluded.key_sum`;

  switch (source) {
    case "events":
      return [
        withRaw(
          "INSERT INTO rollup_site_day (site_id, day, visitors, pageviews) SELECT site_id, day, 0, sum(kind = 'pageview') FROM raw WHERE true GROUP BY site_id, day " +
            `ON CONFLICT (${SITE_DAY}) DO UPDATE SET pageviews = rollup_site_day.pageviews + excluded.pageviews`,
        ),
        ...units("site_day", "rollup_site_day_units", "site_id, day"),
        countNew("site_day", "rollup_site_day_units", "rollup_site_day", "site_id, day", "visitors", SITE_DAY),

        withRaw(
          "INSERT INTO rollup_site_hour (site_id, hour, day, visitors, pageviews) SELECT site_id, hour, day, 0, sum(kind = 'pageview') FROM raw WHERE true GROUP BY site_id, hour, day " +
            `ON CONFLICT (${SITE_HOUR}) DO UPDATE SET pageviews = rollup_site_hour.pageviews + excluded.pageviews`,
        ),
        ...units("site_hour", "rollup_site_hour_units", "site_id, hour"),
        countNew("site_hour", "rollup_site_hour_units", "rollup_site_hour", "site_id, hour", "visitors", SITE_HOUR, [
          "day",
          "''",
        ]),

        withRaw(
          "INSERT INTO rollup_page_day (site_id, day, path, visitors, pageviews) SELECT site_id, day, path, 0, count(*) FROM raw WHERE kind = 'pageview' GROUP BY site_id, day, path " +
            `ON CONFLICT (${PAGE_DAY}) DO UPDATE SET pageviews = rollup_page_day.pageviews + excluded.pageviews`,
        ),
        ...units("page_day", "rollup_page_day_units", "site_id, day, path", "WHERE kind = 'pageview'"),
        countNew("page_day", "rollup_page_day_units", "rollup_page_day", "site_id, day, path", "visitors", PAGE_DAY),
        ...dimensionFoldStatements(withRaw),
      ];
    case "conversions":
      return [
        withRaw(
          "INSERT INTO rollup_goal_day (site_id, goal_id, day, units, conversions) SELECT site_id, goal_id, day, 0, count(*) FROM raw WHERE true GROUP BY site_id, goal_id, day " +
            `ON CONFLICT (${GOAL_DAY}) DO UPDATE SET conversions = rollup_goal_day.conversions + excluded.conversions`,
        ),
        // Units with their conversions that day: moved with them between dimension cells (dimension-fold.ts).
        setMark("goal_day", "rollup_goal_day_units"),
        withRaw(
          "INSERT INTO rollup_goal_day_units (site_id, goal_id, day, unit, conversions) SELECT site_id, goal_id, day, unit, count(*) FROM raw WHERE true " +
            "GROUP BY site_id, goal_id, day, unit ON CONFLICT (site_id, goal_id, day, unit) DO UPDATE SET conversions = rollup_goal_day_units.conversions + excluded.conversions",
        ),
        countNew("goal_day", "rollup_goal_day_units", "rollup_goal_day", "site_id, goal_id, day", "units", GOAL_DAY),
        ...goalDimensionFoldStatements(withRaw, mark("goal_day")),

        withRaw(
          "INSERT INTO rollup_goal_hour (site_id, goal_id, hour, day, units, conversions) SELECT site_id, goal_id, hour, day, 0, count(*) FROM raw WHERE true GROUP BY site_id, goal_id, hour, day " +
            `ON CONFLICT (${GOAL_HOUR}) DO UPDATE SET conversions = rollup_goal_hour.conversions + excluded.conversions`,
        ),
        ...units("goal_hour", "rollup_goal_hour_units", "site_id, goal_id, hour"),
        countNew("goal_hour", "rollup_goal_hour_units", "rollup_goal_hour", "site_id, goal_id, hour", "units", GOAL_HOUR, [
          "day",
          "''",
        ]),

        withRaw(
          "INSERT INTO rollup_session_goals (site_id, session_id, goal_id, first_ts) SELECT site_id, session_id, goal_id, min(ts) FROM raw WHERE session_id IS NOT NULL " +
            "GROUP BY site_id, session_id, goal_id ON CONFLICT (site_id, session_id, goal_id) DO UPDATE SET first_ts = min(rollup_session_goals.first_ts, excluded.first_ts)",
        ),
      ];
    case "vitals":
      return [
        withRaw(
          "INSERT INTO rollup_vital_day (site_id, day, path, metric, units, samples, good, needs_improvement, poor) " +
            `SELECT site_id, day, path, metric, 0, count(*), sum(${bandSql("good", "metric", "value")}), sum(${bandSql("ni", "metric", "value")}), sum(${bandSql("poor", "metric", "value")}) ` +
            `FROM raw WHERE true GROUP BY site_id, day, path, metric ON CONFLICT (${VITAL_DAY}) DO UPDATE SET samples = rollup_vital_day.samples + excluded.samples, ` +
            "good = rollup_vital_day.good + excluded.good, needs_improvement = rollup_vital_day.needs_improvement + excluded.needs_improvement, " +
            "poor = rollup_vital_day.poor + excluded.poor",
        ),
        ...units("vital_day", "rollup_vital_day_units", "site_id, day, path, metric"),
        countNew("vital_day", "rollup_vital_day_units", "rollup_vital_day", "site_id, day, path, metric", "units", VITAL_DAY),
        withRaw(
          "INSERT INTO rollup_vital_histogram (site_id, day, path, metric, bucket, samples) " +
            `SELECT site_id, day, path, metric, bucket, count(*) FROM (SELECT site_id, day, path, metric, ${bucketSql("metric", "value")} AS bucket FROM raw) AS b ` +
            "WHERE true GROUP BY site_id, path, metric, day, bucket ON CONFLICT (site_id, path, metric, day, bucket) DO UPDATE SET samples = rollup_vital_histogram.samples + excluded.samples",
        ),
      ];
  }
}

interface SourceState {
  source: Source;
  folded: number;
  newest: number;
}

/** The sites' time zones, sorted, as one string (SQL; compared inside the write transaction). */
const ZONES_SQL =
  "SELECT coalesce(group_concat(timezone, char(10)), '') AS zones FROM (SELECT DISTINCT timezone FROM sites ORDER BY timezone)";

/**
 * Makes the transaction fail (a NOT NULL violation) unless the sites' time zones are still
 * those the statements were built for: a zone changed in between must not let rows be skipped.
 */
function zonesUnchanged(zones: string[]): InStatement {
  return {
    sql: `INSERT INTO rollup_watermarks (source, last_id) VALUES ('mark:zones', CASE WHEN (${ZONES_SQL}) = ? THEN 0 ELSE NULL END) ON CONFLICT (source) DO UPDATE SET last_id = excluded.last_id`,
    args: [zones.join("\n")],
  };
}

async function readState(client: Client): Promise<{ sources: SourceState[]; zones: string[] }> {
  const [marks, newest, zones] = await client.batch(
    [
      "SELECT source, last_id FROM rollup_watermarks WHERE source IN ('events', 'conversions', 'vitals')",
      "SELECT (SELECT coalesce(max(id), 0) FROM events) AS events, (SELECT coalesce(max(id), 0) FROM conversions) AS conversions, (SELECT coalesce(max(id), 0) FROM vitals) AS vitals",
      ZONES_SQL,
    ],
    "read",
  );
  const folded = new Map(marks!.rows.map((r) => [String(r.source), Number(r.last_id)]));
  const top = newest!.rows[0]!;
  return {
    sources: SOURCES.map((source) => ({ source, folded: folded.get(source) ?? 0, newest: Number(top[source] ?? 0) })),
    zones: String(zones!.rows[0]?.zones ?? "")
      .split("\n")
      .filter((z) => z !== ""),
  };
}

/** The zone groups for rows whose instants lie in [from, to]. */
function zoneGroups(stored: string[], from: number, to: number): ZoneGroup[] {
  return stored.map((name) => {
    const zone = effectiveZone(name);
    const segments = zone === "UTC" ? [{ until: null, offset: 0 }] : offsetSegments(zone, from, to);
    return { stored: name, offset: (ts: string) => offsetSql(segments, ts) };
  });
}

/** How far past the publication's instant (as read before a fold) the offset segments reach. */
const FOLD_INSTANT_MARGIN_MS = 2 * 24 * 60 * 60 * 1000;

/**
 * The span of instants the rows ids (lo, hi] are folded at: their own, or the publication's
 * instant for late rows (foldInstant), which may have moved on a little by the time they fold.
 */
async function instantSpan(
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

const INIT_WATERMARKS: InStatement =
  "INSERT OR IGNORE INTO rollup_watermarks (source, last_id) VALUES ('events', 0), ('conversions', 0), ('vitals', 0)";

/** The highest id of each raw table now. */
export async function readHead(client: Client): Promise<Head> {
  return Object.fromEntries((await readState(client)).sources.map((s) => [s.source, s.newest])) as Head;
}

export interface FoldOptions {
  /** Raw rows per source per transaction (default CHUNK_ROWS). */
  chunkRows?: number;
  /** Fold no row above these ids (default: whatever is there, chasing new rows too). */
  upTo?: Head;
  /** Stop after about this many rows, so one call stays bounded (default: no bound). */
  maxRows?: number;
}

export interface FoldResult {
  /** Raw rows folded by this call. */
  folded: number;
  /** True when nothing is left below `upTo` (or, without it, nothing at all). */
  done: boolean;
}

/**
 * Folds raw rows above the watermarks into the rollups, in transactions of at most
 * `chunkRows` rows per source. Safe to call concurrently (see the file comment).
 */
export async function fold(client: Client, options: FoldOptions = {}): Promise<FoldResult> {
  const chunkRows = options.chunkRows ?? CHUNK_ROWS;
  let folded = 0;
  let conflicts = 0;
  for (;;) {
    const { sources, zones } = await readState(client);
    const target = (s: SourceState) => Math.min(s.newest, options.upTo?.[s.source] ?? Number.MAX_SAFE_INTEGER);
    const pending = sources.filter((s) => target(s) > s.folded);
    if (pending.length === 0) return { folded, done: true };
    if (options.maxRows !== undefined && folded >= options.maxRows) return { folded, done: false };
    const statements: InStatement[] = [INIT_WATERMARKS, zonesUnchanged(zones)];
    let rows = 0;
    for (const s of pending) {
      const hi = Math.min(target(s), s.folded + chunkRows);
      const span = zones.some((z) => effectiveZone(z) !== "UTC")
        ? await instantSpan(client, s.source, s.folded, hi)
        : { from: 0, to: 0 };
      if (span) {
        for (const zone of zoneGroups(zones, span.from, span.to)) {
          statements.push(...foldStatements(s.source, zone, { lo: watermark(s.source), hi: String(hi) }));
        }
      }
      statements.push({
        sql: "UPDATE rollup_watermarks SET last_id = ? WHERE source = ? AND last_id < ?",
        args: [hi, s.source, hi],
      });
      rows += hi - s.folded;
    }
    try {
      await client.batch(statements, "write");
      folded += rows;
    } catch (error) {
      // A time zone changed between reading the state and writing: read it again, a few times.
      if (++conflicts > 3 || !/NOT NULL/i.test(String((error as Error)?.message ?? error))) throw error;
    }
  }
}

/** Folds every raw row there is, chasing new ones until none is left; returns how many it folded. */
export async function catchUp(client: Client, chunkRows = CHUNK_ROWS): Promise<number> {
  return (await fold(client, { chunkRows })).folded;
}

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
