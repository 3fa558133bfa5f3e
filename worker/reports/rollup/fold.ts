/**
 * The fold loop: raw rows above each source's watermark are folded, and the watermark moves
 * past them, in one write transaction (one Hrana batch) per chunk.
 *
 * Double counting is impossible by construction: every statement selects raw rows by
 * `id > (the watermark as stored)` and `id <= hi`, and the watermark moves to `hi` in the
 * same transaction. Writers are serialised (the write lock is taken at BEGIN IMMEDIATE), so a
 * second, concurrent fold sees the moved watermark and folds nothing twice.
 */
import type { Client, InStatement } from "@libsql/client/web";
import { instantSpan } from "./raw-rows";
import { INIT_WATERMARKS, SOURCES, watermark, type Head, type Source } from "./sources";
import { foldStatements } from "./statements";
import { effectiveZone, ZONES_SQL, zoneGroups, zonesUnchanged } from "./zones";

/** Raw rows per source per transaction: bounds how long one fold holds the write lock. */
export const CHUNK_ROWS = 100_000;

interface SourceState {
  source: Source;
  folded: number;
  newest: number;
}

/** Each source's watermark and newest raw id, and the sites' time zones, read together. */
export async function readState(client: Client): Promise<{ sources: SourceState[]; zones: string[] }> {
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
