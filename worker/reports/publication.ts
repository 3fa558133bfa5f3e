/**
 * The publication: the instant up to which rollup cells are readable, and a version that
 * rises with every change to the rollups. The publisher (publisher.ts) moves it; readers
 * (request.ts, health) only read it. A cell (a local day or hour of a site) is published
 * when it ends at or before `throughMs`; the version rises whenever a published cell changes.
 */
import type { InStatement, ResultSet } from "@libsql/client/web";

export interface Publication {
  /** Every cell that ends at or before this instant (ms) is published. */
  throughMs: number;
  /** When the publisher last ran to completion (ms). */
  publishedAt: number;
  /** Rises with every transaction that changes a published cell: a cache key for readers. */
  version: number;
}

/** Raises the version; a no-op before the first publication (nothing is readable then). */
export const BUMP_VERSION: InStatement = "UPDATE rollup_publication SET version = version + 1 WHERE id = 1";

/**
 * Raises the version only if the raw rows `source` ids (lo, hi] include one stamped before the
 * publication's instant: only such a row can change a published cell (a row stamped later
 * falls in a cell that ends later still). So ordinary ingest leaves readers' caches valid.
 * `lo` and `hi` are SQL expressions.
 */
export function bumpVersionIfPublishedChanges(source: string, lo: string, hi: string): InStatement {
  return (
    "UPDATE rollup_publication SET version = version + 1 WHERE id = 1 AND EXISTS " +
    `(SELECT 1 FROM ${source} WHERE id > ${lo} AND id <= ${hi} AND ts < rollup_publication.through_ms)`
  );
}

export const PUBLICATION_SQL = "SELECT through_ms, published_at, version FROM rollup_publication WHERE id = 1";

/** The publication from a PUBLICATION_SQL result; null before the publisher's first run. */
export function publicationOf(rs: ResultSet): Publication | null {
  const row = rs.rows[0];
  if (!row) return null;
  return { throughMs: Number(row.through_ms), publishedAt: Number(row.published_at), version: Number(row.version) };
}

/**
 * Publishes every cell ending at or before `throughMs` (never moving back), stamped `nowMs`.
 * The version stays: cells already folded do not change by becoming readable, and readers
 * key their caches by the last published day too.
 */
export function publishStatement(throughMs: number, nowMs: number): InStatement {
  return {
    sql:
      "INSERT INTO rollup_publication (id, through_ms, published_at, version) VALUES (1, ?, ?, 1) " +
      "ON CONFLICT (id) DO UPDATE SET through_ms = max(through_ms, excluded.through_ms), published_at = excluded.published_at",
    args: [throughMs, nowMs],
  };
}
