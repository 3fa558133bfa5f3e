/**
 * Retention: what is deleted once it has no reader, so that after `WREN_RAW_RETENTION_DAYS`
 * (default 30) nothing about one session is left — only the rollup cells, which are counts.
 *
 * - Raw `events`, `conversions` and `vitals` stamped before the cutoff (now − the period), and
 *   only once folded (id ≤ their source's watermark): reports read the rollups, never raw rows.
 * - `smoke_conversions` (the caller's id of each smoke-test conversion, in plain text) stamped
 *   before the cutoff, with the raw conversions they describe: explicitly, since the cascade
 *   from conversions needs foreign keys, which not every Hrana server enforces.
 * - `sessions` last seen before the cutoff: the sessions list shows only days that began after
 *   it (sessions-list.ts), and s2s conversions attach to sessions seen in the last 24 hours.
 * - The units rows (which sessions a cell has seen) and the funnel rows (each converting
 *   session's first completion of each goal) of days well before the cutoff: a published cell
 *   never changes (foldInstant), so its units are needed only by the readers of per-session
 *   rows — the sessions list and funnels — and both cover the retention period only. Funnels
 *   whose period starts earlier are refused (`requireFunnelPeriod`) rather than answered from
 *   what is left, so no published funnel figure ever changes.
 * - Idempotency keys of conversions (a keyed hash of the caller's id, collector/event-key.ts,
 *   or a goal-and-session key), as soon as the 24-hour event window has closed on them: a
 *   replay with the same timestamp is refused by the window from then on anyway, and nothing
 *   can be matched against a known id any more.
 * - Receipts of the deployment hook (domain/deployment-hook.ts) 48 hours on: a delivery that
 *   old is refused by its age, so no receipt is needed to refuse its replay.
 * - Session salts past their two periods (collector/salts.ts), and any older than the two
 *   newest: the collector deletes them when it next needs a salt, and this catches the case
 *   where no beacon comes, within one run of the salt's 48 hours.
 *
 * - The page of each origin's first beacon (site_beacons.path, the wizard's "Verified on /pricing"),
 *   once it is older than the period: a path nobody else saw must not outlive the raw rows.
 * - The hour units of a day of the open hour rule go only after its remainder (the units of its
 *   small hours) is written into its row, so the day's decision stays as it was.
 * - Labels of rollup cells never shown (label-scrub.ts), for local days before `daysBefore`:
 *   replaced by opaque tokens that keep every decision of the day as it was.
 *
 * - Each unit's custom props of a day (rollup_prop_day_units) with the other units rows: the
 *   per-session rows filtered reports read (`prop:NAME`), kept as long as those.
 * - Session-days (rollup_session_day) only once their site-day's engagement row and histogram
 *   exist (rollup_engagement_day, rollup_duration_histogram; written here if missing), so the
 *   site's engagement figures outlive them.
 *
 * Kept: every rollup cell (counts, key sums, vitals histograms), for as long as the site exists.
 *
 * The publisher runs this after every publication (publisher.ts). One read finds what has work,
 * then each table gets one statement of at most `batchRows` rows, in a transaction of its own,
 * so retention never holds the write lock for long; a backlog shrinks by that much per run.
 */
import type { Client, InStatement, InValue } from "@libsql/client/web";
import { SALT_PERIOD_MS } from "../collector/salts";
import { EVENT_WINDOW_MS } from "../collector/window";
import { HttpProblem } from "../lib/problem";
import { durationBucketSql } from "./histogram";
import { scrubLabels } from "./label-scrub";
import { DEFAULT_K, GOAL_HOURS_SQL, hourRemainderSql, OPEN_RULE, SITE_HOURS_SQL, type HourCellsSql } from "./privacy";
import { addDays } from "./timezone";

export const DEFAULT_RETENTION_DAYS = 30;
export const MIN_RETENTION_DAYS = 2;
/** A hundred years: the longest period `wren start` accepts. */
export const MAX_RETENTION_DAYS = 36_500;
/** Rows one statement deletes at most: how long retention holds the write lock at once. */
export const RETENTION_BATCH_ROWS = 5_000;

const DAY_MS = 86_400_000;
/** How long a deployment hook receipt is kept: twice the 24 h a delivery is accepted for. */
export const HOOK_RECEIPT_MS = 2 * DAY_MS;

export interface RetentionEnv {
  /** Days raw rows and per-session rows are kept (2–36500, default 30). */
  WREN_RAW_RETENTION_DAYS?: string | null;
  /** The k of the privacy filter: which labels were shown, so which are kept (label-scrub.ts). */
  WREN_K_ANONYMITY?: string | null;
  /** Days audit log entries are kept (1–36500, default 400). */
  WREN_AUDIT_RETENTION_DAYS?: string | null;
}

export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

/** Days to keep the audit log, from WREN_AUDIT_RETENTION_DAYS: the default when unset or not a number. */
export function auditRetentionDays(value: string | null | undefined): number {
  const days = value === null || value === undefined || value.trim() === "" ? NaN : Number(value);
  if (!Number.isFinite(days)) return DEFAULT_AUDIT_RETENTION_DAYS;
  return Math.min(MAX_RETENTION_DAYS, Math.max(1, Math.floor(days)));
}

/**
 * Days to keep, from WREN_RAW_RETENTION_DAYS: the default when unset or not a number, else a
 * whole number of days within 2–36500 (`wren start` refuses anything else before it starts).
 */
export function retentionDays(value: string | null | undefined): number {
  const days = value === null || value === undefined || value.trim() === "" ? NaN : Number(value);
  if (!Number.isFinite(days)) return DEFAULT_RETENTION_DAYS;
  return Math.min(MAX_RETENTION_DAYS, Math.max(MIN_RETENTION_DAYS, Math.floor(days)));
}

/** What retention deletes at an instant, given the period. */
export interface RetentionHorizon {
  /** Folded raw rows stamped before this instant go, and sessions last seen before it. */
  rawBefore: number;
  /**
   * Units rows of local days before this date go. Two days before the cutoff's UTC date: a
   * local day ends at most 14 hours after the UTC day of the same name, so every such day had
   * ended before the cutoff in every zone.
   */
  daysBefore: string;
  /** Units rows of hours starting before this instant go. */
  hoursBefore: number;
  /**
   * Funnel rows (rollup_session_goals) whose first completion is before this instant go: four
   * days before `daysBefore` begins, since one session's completions span at most three days
   * (24 h of beacons, s2s conversions stamped up to 24 h before and attached up to 24 h after).
   */
  firstsBefore: number;
  /**
   * The first local day a funnel may cover: the day after `daysBefore`, so that a day allowed
   * now still has its rows if retention runs (and the UTC date turns) before the funnel is read.
   */
  funnelsFrom: string;
  /** Idempotency keys of conversions stamped before this instant are dropped (the window closed). */
  keysBefore: number;
  /** Session salts made at or before this instant are past their two periods. */
  saltsThrough: number;
  /** Deployment hook receipts made before this instant go. */
  receiptsBefore: number;
}

export function retentionHorizon(now: number, days: number): RetentionHorizon {
  const rawBefore = now - days * DAY_MS;
  const daysBefore = new Date(rawBefore - 2 * DAY_MS).toISOString().slice(0, 10);
  return {
    rawBefore,
    daysBefore,
    hoursBefore: rawBefore - 2 * DAY_MS,
    firstsBefore: Date.parse(`${daysBefore}T00:00:00Z`) - 4 * DAY_MS,
    funnelsFrom: addDays(daysBefore, 1),
    keysBefore: now - EVENT_WINDOW_MS,
    saltsThrough: now - 2 * SALT_PERIOD_MS,
    receiptsBefore: now - HOOK_RECEIPT_MS,
  };
}

/**
 * Refuses (422 naming `field`) a funnel period that starts before the days whose per-session
 * rows are kept: answered from what is left, an old funnel's figures would change.
 */
export function requireFunnelPeriod(from: string, now: number, days: number, field: string): void {
  const earliest = retentionHorizon(now, days).funnelsFrom;
  if (from < earliest) {
    throw new HttpProblem(
      422,
      `${field}: funnels are computed from per-session rows, which are kept for WREN_RAW_RETENTION_DAYS (${days} days); the earliest day a funnel can start is ${earliest}.`,
      { field },
    );
  }
}

export interface RetentionOptions {
  /** The instant retention judges by (injectable for tests). */
  now: number;
  days: number;
  /** The k of the privacy filter: which labels were shown (label-scrub.ts). Default DEFAULT_K. */
  k?: number;
  batchRows?: number;
  /** Days the audit log is kept (default DEFAULT_AUDIT_RETENTION_DAYS). */
  auditDays?: number;
}

export interface RetentionRun {
  /** Idempotency keys set to NULL by this run. */
  keysDropped: number;
  /** Rows deleted by this run, per table (tables with none are absent). */
  deleted: Record<string, number>;
  /** True when some statement hit `batchRows`: more is waiting for the next run. */
  more: boolean;
  /** Never-shown labels replaced by tokens (label-scrub.ts); absent when none. */
  labelsScrubbed?: number;
}

/** One bounded step: `probe` (a SELECT) says whether `statement` has anything to do. */
interface Task {
  table: string;
  probe: string;
  statement: string;
  args: InValue[];
  /** The statement's own arguments, when they are not the probe's. */
  statementArgs?: InValue[];
}

/**
 * Writes the remainder of each ended day of the open hour rule whose hour units are about to go
 * (privacy/hours.ts hourRemainderSql) into its row, so the day's decision never changes when
 * they do. Unbounded: one row per site-day (and goal-day) as it passes the horizon.
 */
function settleRemainder(
  table: "rollup_site_day" | "rollup_goal_day",
  cells: HourCellsSql,
  hoursBefore: number,
  k: number,
): Task {
  const unsettled =
    `hour_rule = ${OPEN_RULE} AND hour_remainder IS NULL AND EXISTS (SELECT 1 FROM ${cells.hours} h WHERE h.site_id = ${table}.site_id AND h.day = ${table}.day` +
    `${cells.keys.map((c) => ` AND h.${c} = ${table}.${c}`).join("")} AND h.hour < ?)`;
  return {
    table: `${table}.hour_remainder`,
    probe: `SELECT 1 FROM ${table} WHERE ${unsettled} LIMIT 1`,
    statement: `UPDATE ${table} SET hour_remainder = ${hourRemainderSql(cells, table)} WHERE ${unsettled.replace("h.hour < ?", "h.hour < ?2")}`,
    args: [hoursBefore],
    statementArgs: [k, hoursBefore],
  };
}

/**
 * Makes sure every site-day whose session-days are about to go has its engagement row and
 * duration histogram (reports/engagement.ts), which the fold keeps in step
 * (engagement-fold.ts): for the days before `daysBefore` among the first `limit` session-days
 * before it (OLD_SESSION_DAYS, as the deletion reads them) that have no row, it writes both from all their
 * session-days, in one transaction. Run before the deletions' probe, so that the same run
 * deletes them; only session-days of days with a row are deleted, so no day's figures are lost.
 */
async function archiveEngagement(client: Client, daysBefore: string, limit: number): Promise<void> {
  const pending =
    `SELECT DISTINCT site_id, day FROM (${OLD_SESSION_DAYS} LIMIT ${limit}) AS d ` +
    "WHERE NOT EXISTS (SELECT 1 FROM rollup_engagement_day e WHERE e.site_id = d.site_id AND e.day = d.day)";
  const found = await client.execute({ sql: `SELECT EXISTS (${pending}) AS found`, args: [daysBefore] });
  if (Number(found.rows[0]?.found) !== 1) return;
  const chosen = `(site_id, day) IN (${pending})`;
  const seconds = "((last_ts - first_ts) / 1000.0)";
  await client.batch(
    [
      {
        sql:
          "INSERT INTO rollup_duration_histogram (site_id, day, bucket, units) " +
          `SELECT site_id, day, ${durationBucketSql(seconds)} AS bucket, count(*) FROM rollup_session_day WHERE ${chosen} AND first_ts IS NOT NULL ` +
          "GROUP BY site_id, day, bucket ON CONFLICT (site_id, day, bucket) DO NOTHING",
        args: [daysBefore],
      },
      {
        sql:
          "INSERT INTO rollup_engagement_day (site_id, day, visits, visits_key_sum, pageviews, bounces, bounce_key_sum) " +
          "SELECT site_id, day, count(*), sum(unit_key), sum(pageviews), sum(pageviews = 1), sum(CASE WHEN pageviews = 1 THEN unit_key ELSE 0 END) " +
          `FROM rollup_session_day WHERE ${chosen} GROUP BY site_id, day ON CONFLICT (site_id, day) DO NOTHING`,
        args: [daysBefore],
      },
    ],
    "write",
  );
}

const folded = (source: string) => `(SELECT coalesce(max(last_id), 0) FROM rollup_watermarks WHERE source = '${source}')`;

/**
 * rollup_session_day's rows before a day (the one argument). The table has no rowid (migration
 * 0021: its rows are kept in key order), so its old rows are read by the key's range, each
 * site's first days: a range per site, never a scan of the rows still kept.
 */
const OLD_SESSION_DAYS = "SELECT site_id, day, unit FROM rollup_session_day WHERE site_id IN (SELECT id FROM sites) AND day < ?";

/**
 * The oldest `limit` rows of `table` (by rowid: insertion order, so roughly time order) that
 * match `where`. Each pass reads at most `limit` rows whatever the table's size — a scan for
 * every old row would read the whole table each time — and a backlog goes `limit` rows a pass.
 * A row stored out of order (an s2s conversion stamped up to 24 h earlier) goes when the rows
 * stored before it have gone.
 */
function oldest(table: string, where: string, limit: number, among = ""): { probe: string; rowids: string } {
  const head = `SELECT rowid AS r, * FROM ${table}${among ? ` WHERE ${among}` : ""} ORDER BY rowid LIMIT ${limit}`;
  return {
    probe: `SELECT 1 FROM (${head}) WHERE ${where} LIMIT 1`,
    rowids: `SELECT r FROM (${head}) WHERE ${where}`,
  };
}

function tasks(horizon: RetentionHorizon, limit: number, k: number, auditBefore: number): Task[] {
  const list: Task[] = [
    {
      table: "conversions.event_key",
      // The partial index conversions_keyed_ts holds exactly the keys still to drop, by ts.
      probe: "SELECT 1 FROM conversions WHERE event_key IS NOT NULL AND ts < ? LIMIT 1",
      statement: `UPDATE conversions SET event_key = NULL WHERE id IN (SELECT id FROM conversions WHERE event_key IS NOT NULL AND ts < ? ORDER BY ts LIMIT ${limit})`,
      args: [horizon.keysBefore],
    },
  ];
  const remove = (table: string, where: string, arg: InValue, among = "") => {
    const { probe, rowids } = oldest(table, where, limit, among);
    list.push({ table, probe, statement: `DELETE FROM ${table} WHERE rowid IN (${rowids})`, args: [arg] });
  };
  const expiredSalt = "created_at <= ? OR id NOT IN (SELECT id FROM session_salts ORDER BY created_at DESC LIMIT 2)";
  list.push({
    table: "session_salts",
    probe: `SELECT 1 FROM session_salts WHERE ${expiredSalt} LIMIT 1`,
    statement: `DELETE FROM session_salts WHERE ${expiredSalt}`,
    args: [horizon.saltsThrough],
  });
  remove("smoke_conversions", "ts < ?", horizon.rawBefore);
  // The audit log is about people, not visitors: kept on its own period (WREN_AUDIT_RETENTION_DAYS).
  remove("audit_log", "at < ?", auditBefore);
  remove("deployment_hook_receipts", "created_at < ?", horizon.receiptsBefore);
  for (const source of ["events", "conversions", "vitals"])
    remove(source, "ts < ?", horizon.rawBefore, `id <= ${folded(source)}`);
  remove("sessions", "last_seen < ?", horizon.rawBefore);
  // rollup_dimension_scratch: a fold's copy of the session-days it touched (their labels), read
  // only inside that fold; what the last fold left stays until the next one empties it.
  const perSessionDay = [
    "rollup_site_day_units",
    "rollup_page_day_units",
    "rollup_goal_day_units",
    "rollup_vital_day_units",
    "rollup_dimension_scratch",
  ];
  for (const table of perSessionDay) remove(table, "day < ?", horizon.daysBefore);
  // Only session-days whose day has its engagement row (archiveEngagement) go.
  const oldSessionDays = `${OLD_SESSION_DAYS} AND (site_id, day) IN (SELECT site_id, day FROM rollup_engagement_day)`;
  list.push({
    table: "rollup_session_day",
    probe: `${oldSessionDays} LIMIT 1`,
    statement: `DELETE FROM rollup_session_day WHERE (site_id, day, unit) IN (${oldSessionDays} LIMIT ${limit})`,
    args: [horizon.daysBefore],
  });
  // Each unit's custom props (no rowid, like rollup_session_day): read by the key's range, each site's first days.
  const oldProps =
    "SELECT site_id, day, unit, name, value FROM rollup_prop_day_units WHERE site_id IN (SELECT id FROM sites) AND day < ?";
  list.push({
    table: "rollup_prop_day_units",
    probe: `${oldProps} LIMIT 1`,
    statement: `DELETE FROM rollup_prop_day_units WHERE (site_id, day, unit, name, value) IN (${oldProps} LIMIT ${limit})`,
    args: [horizon.daysBefore],
  });
  // Before any hour units of a day go, the day's remainder is settled from them.
  list.push(settleRemainder("rollup_site_day", SITE_HOURS_SQL, horizon.hoursBefore, k));
  list.push(settleRemainder("rollup_goal_day", GOAL_HOURS_SQL, horizon.hoursBefore, k));
  for (const table of ["rollup_site_hour_units", "rollup_goal_hour_units"]) remove(table, "hour < ?", horizon.hoursBefore);
  remove("rollup_session_goals", "first_ts < ?", horizon.firstsBefore);
  list.push({
    table: "site_beacons.path",
    probe: "SELECT 1 FROM site_beacons WHERE path IS NOT NULL AND first_seen < ? LIMIT 1",
    statement: `UPDATE site_beacons SET path = NULL WHERE rowid IN (SELECT rowid FROM site_beacons WHERE path IS NOT NULL AND first_seen < ? LIMIT ${limit})`,
    args: [horizon.rawBefore],
  });
  return list;
}

/**
 * One bounded pass of retention at `options.now`: one read to find which tables have work, then
 * one statement (its own transaction, at most `batchRows` rows) per table that has.
 */
export async function applyRetention(client: Client, options: RetentionOptions): Promise<RetentionRun> {
  const limit = options.batchRows ?? RETENTION_BATCH_ROWS;
  const k = options.k ?? DEFAULT_K;
  const horizon = retentionHorizon(options.now, options.days);
  await archiveEngagement(client, horizon.daysBefore, limit);
  const all = tasks(horizon, limit, k, options.now - (options.auditDays ?? DEFAULT_AUDIT_RETENTION_DAYS) * DAY_MS);
  const probe: InStatement = {
    sql: `SELECT ${all.map((t, i) => `EXISTS (${t.probe}) AS t${i}`).join(", ")}`,
    args: all.flatMap((t) => t.args),
  };
  const found = (await client.execute(probe)).rows[0]!;
  const run: RetentionRun = { keysDropped: 0, deleted: {}, more: false };
  for (const [i, task] of all.entries()) {
    if (Number(found[`t${i}`]) !== 1) continue;
    const { rowsAffected } = await client.execute({ sql: task.statement, args: task.statementArgs ?? task.args });
    if (rowsAffected >= limit) run.more = true;
    if (task.table === "conversions.event_key") run.keysDropped += rowsAffected;
    else if (task.table === "site_beacons.path" || task.table.endsWith(".hour_remainder")) continue;
    else if (rowsAffected > 0) run.deleted[task.table] = rowsAffected;
  }
  const labels = await scrubLabels(client, { k, before: retentionHorizon(options.now, options.days).daysBefore });
  if (labels.more) run.more = true;
  if (labels.scrubbed > 0) run.labelsScrubbed = labels.scrubbed;
  return run;
}
