/**
 * The raw sources a fold reads and the marks it keeps in rollup_watermarks: per source, the
 * highest raw row id folded (its watermark); per units table, the highest units id before a
 * fold's inserts ("mark:" rows), so the fold can count the units it added.
 */
import type { InStatement } from "@libsql/client/web";

export const SOURCES = ["events", "conversions", "vitals"] as const;
export type Source = (typeof SOURCES)[number];

/** The highest raw row id of each source: how far a fold has to go. */
export type Head = Record<Source, number>;

export const watermark = (source: Source) => `(SELECT last_id FROM rollup_watermarks WHERE source = '${source}')`;
export const mark = (name: string) => `(SELECT last_id FROM rollup_watermarks WHERE source = 'mark:${name}')`;

export function setMark(name: string, unitsTable: string): InStatement {
  return (
    `INSERT INTO rollup_watermarks (source, last_id) VALUES ('mark:${name}', (SELECT coalesce(max(id), 0) FROM ${unitsTable})) ` +
    "ON CONFLICT (source) DO UPDATE SET last_id = excluded.last_id"
  );
}

/** Creates the sources' watermarks at 0 where they do not exist yet. */
export const INIT_WATERMARKS: InStatement =
  "INSERT OR IGNORE INTO rollup_watermarks (source, last_id) VALUES ('events', 0), ('conversions', 0), ('vitals', 0)";
