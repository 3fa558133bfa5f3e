/**
 * The publication: the instant up to which rollup cells are readable, and a version for
 * readers' caches. The publisher (publisher.ts) moves it; readers (request.ts, health) only
 * read it. A cell (a local day or hour of a site) is published when it ends at or before
 * `throughMs`, and is final from then on: folds never change it (rollup/raw-rows.ts foldInstant).
 * Only rebuilding a site's rollups (a time zone set before any of its days was published)
 * raises the version.
 */
import type { InStatement, ResultSet } from "@libsql/client/web";
import { lastCompleteDay } from "./period";

export interface Publication {
  /** Every cell that ends at or before this instant (ms) is published. */
  throughMs: number;
  /** When the publisher last ran to completion (ms). */
  publishedAt: number;
  /** Rises when a site's rollups are rebuilt: a cache key for readers. */
  version: number;
  /** Days that had ended by this instant keep the earlier hour rule (legacyDays); 0: none. */
  hourRuleFrom: number;
}

/** Raises the version; a no-op before the first publication (nothing is readable then). */
export const BUMP_VERSION: InStatement = "UPDATE rollup_publication SET version = version + 1 WHERE id = 1";

export const PUBLICATION_SQL = "SELECT through_ms, published_at, version, hour_rule_from FROM rollup_publication WHERE id = 1";

/** The publication from a PUBLICATION_SQL result; null before the publisher's first run. */
export function publicationOf(rs: ResultSet): Publication | null {
  const row = rs.rows[0];
  if (!row) return null;
  return { throughMs: Number(row.through_ms), publishedAt: Number(row.published_at), version: Number(row.version), hourRuleFrom: Number(row.hour_rule_from) };
}

/**
 * The last local day of a site published under the earlier hour rule (a day's hours decided
 * when it ended, privacy/hours.ts legacyHours): every day that had ended when the service was
 * upgraded. Those days keep it, so no published figure changes; "" when there is none.
 */
export function legacyDays(publication: Publication, timeZone: string): string {
  return publication.hourRuleFrom > 0 ? lastCompleteDay(timeZone, publication.hourRuleFrom) : "";
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
