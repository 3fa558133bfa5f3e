/**
 * Folding raw rows (events, conversions, vitals) into the rollup tables. Raw rows above each
 * source's watermark are folded, and the watermark moves past them, in one write transaction
 * (one Hrana batch) per chunk. Only the publisher (publisher.ts) calls this on a running
 * service; reports never do: they read published cells only. The invariants, each with the
 * module that keeps it:
 *
 * - Double counting is impossible by construction (fold.ts): every statement selects raw rows
 *   by `id > (the watermark as stored)` and `id <= hi`, and the watermark moves to `hi` in the
 *   same transaction. Writers are serialised (the write lock is taken at BEGIN IMMEDIATE), so a
 *   second, concurrent fold sees the moved watermark and folds nothing twice.
 * - Distinct units per cell grow through insert-or-ignore "units" tables (statements.ts): a
 *   fold notes the highest units id first ("mark:" rows in rollup_watermarks, sources.ts),
 *   inserts, and adds the number of rows above the mark to the cell's count.
 * - Local days and hours (zones.ts): each site's raw `ts` is shifted by its zone's offset, given
 *   to SQL as a CASE over the constant-offset segments of the span of instants being folded.
 * - Publication is final (raw-rows.ts): a row stamped in an hour already published is folded
 *   at the publication's instant instead (foldInstant), so no fold changes a cell a reader
 *   could see.
 *
 * A site's rollups are deleted with it and rebuilt when its time zone changes (site.ts).
 */
export { catchUp, CHUNK_ROWS, fold, readHead, type FoldOptions, type FoldResult } from "./fold";
export { deleteSiteRollupsStatements, rebuildSiteRollups, ROLLUP_TABLES } from "./site";
export { SOURCES, type Head, type Source } from "./sources";
export { effectiveZone } from "./zones";
