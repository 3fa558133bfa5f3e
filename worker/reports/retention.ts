/**
 * Retention: what is deleted once it has no reader. Reports read the rollups only, so a raw
 * row (events, conversions, vitals) has no reader once it is folded and its event window has
 * closed; sessions have none once the window is past (s2s conversions attach within 24 hours;
 * the sessions list shows published days). After `WREN_RAW_RETENTION_DAYS` (default 30) they
 * are deleted, and so are the units rows of published cells (which sessions a cell has seen:
 * needed only while a cell can still grow). Kept: every rollup cell, and the funnel rows
 * (rollup_goal_day_units, rollup_session_goals), since funnels are computed from each
 * converting session's first completions for any period.
 *
 * Idempotency keys of conversions (a keyed hash of the caller's id, collector/event-key.ts)
 * are dropped as soon as the 24-hour window closes: after that nothing can be matched against
 * a known id. Runs in the publisher, after it publishes, in bounded transactions.
 */
import type { Client, InStatement } from "@libsql/client/web";
import { EVENT_WINDOW_MS } from "../collector/window";

export const DEFAULT_RETENTION_DAYS = 30;
/** How often the publisher applies retention: a day's worth of rows goes in a few passes. */
export const RETENTION_EVERY_MS = 10 * 60 * 1000;
/** Rows deleted per statement: one run holds the write lock briefly, a backlog takes several runs. */
export const RETENTION_BATCH_ROWS = 5_000;

export interface RetentionEnv {
  WREN_RAW_RETENTION_DAYS?: string | null;
}

/** Days to keep raw rows, from WREN_RAW_RETENTION_DAYS: a whole number of at least 2, else the default. */
export function retentionDays(value: string | null | undefined): number {
  const days = Number(value);
  if (!value || !Number.isInteger(days) || days < 2) return DEFAULT_RETENTION_DAYS;
  return days;
}

export interface RetentionOptions {
  now: number;
  days: number;
  batchRows?: number;
}

export interface RetentionRun {
  /** Rows deleted (raw rows, sessions and units rows) and keys dropped by this run. */
  deleted: number;
  keysDropped: number;
}

/**
 * Deletes, of the `limit` oldest rows of `table` (by insertion order: rowid), those matching
 * `where`. Rows come in roughly in time order, so each pass costs the same whatever the table's
 * size — a full scan per pass would not — and a backlog shrinks by `limit` rows per pass.
 */
const oldest = (table: string, where: string, limit: number, only = "true") =>
  `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM (SELECT rowid, * FROM ${table} WHERE ${only} ORDER BY rowid LIMIT ${limit}) WHERE ${where})`;

/** One bounded pass of retention: deletes what has no reader, drops closed-window keys. */
export async function applyRetention(client: Client, options: RetentionOptions): Promise<RetentionRun> {
  const limit = options.batchRows ?? RETENTION_BATCH_ROWS;
  const cutoff = options.now - options.days * 86_400_000;
  // A local day label ends at most 14 hours after the UTC day of the same name: a day two
  // labels before the cutoff's UTC date has ended everywhere.
  const cutoffDay = new Date(cutoff - 2 * 86_400_000).toISOString().slice(0, 10);
  const folded = (source: string) => `rowid <= coalesce((SELECT last_id FROM rollup_watermarks WHERE source = '${source}'), 0)`;
  const statements: InStatement[] = [
    {
      sql: `UPDATE conversions SET event_key = NULL WHERE rowid IN (SELECT rowid FROM conversions WHERE event_key IS NOT NULL AND ts < ? LIMIT ${limit})`,
      args: [options.now - EVENT_WINDOW_MS],
    },
    ...(["events", "conversions", "vitals"] as const).map((source) => ({
      sql: oldest(source, "ts < ?", limit, folded(source)),
      args: [cutoff],
    })),
    { sql: oldest("sessions", "last_seen < ?", limit), args: [cutoff] },
    ...["rollup_site_day_units", "rollup_page_day_units", "rollup_vital_day_units"].map((table) => ({
      sql: oldest(table, "day < ?", limit),
      args: [cutoffDay],
    })),
    ...["rollup_site_hour_units", "rollup_goal_hour_units"].map((table) => ({
      sql: oldest(table, "hour < ?", limit),
      args: [cutoff - 2 * 86_400_000],
    })),
  ];
  const results = await client.batch(statements, "write");
  const keysDropped = results[0]!.rowsAffected;
  const deleted = results.slice(1).reduce((n, r) => n + r.rowsAffected, 0);
  return { deleted, keysDropped };
}
