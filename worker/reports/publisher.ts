/**
 * The publisher: the one writer of the rollups on a running service. Each run notes the
 * instant (the cut) and the raw tables' head, folds everything up to that head in bounded
 * transactions, and then publishes every cell that ended a grace period before the cut.
 * Reports read published cells only, so a reader never folds, never writes and never waits
 * for the write lock; a burst of traffic makes figures later, never reads slower.
 *
 * Why the grace: the collector stamps a row with the instant it received it and commits it
 * a moment later (group commit). A row received before `cut - grace` has been committed by
 * the cut, so it is at or below the head read then, and folded before its cell is published.
 */
import type { Client } from "@libsql/client/web";
import type { ClockBindings } from "../lib/clock";
import type { DatabaseBindings } from "../lib/env";
import { publishStatement, type Publication } from "./publication";
import { applyRetention, type RetentionEnv, type RetentionRun } from "./retention";
import { fold, readHead } from "./rollup";

/** How long after a cell ends it may still receive rows in flight. */
export const PUBLISH_GRACE_MS = 15_000;
/** Raw rows per source per transaction: how long the publisher holds the write lock at once. */
export const PUBLISH_CHUNK_ROWS = 5_000;
/** Raw rows one run folds at most; a longer backlog continues in the next run, at once. */
export const MAX_ROWS_PER_RUN = 250_000;

export interface PublisherOptions {
  /** The clock (injectable for tests). */
  now: () => number;
  graceMs?: number;
  chunkRows?: number;
  maxRowsPerRun?: number;
  /** Applies retention (retention.ts) for this many days after publishing; none when absent. */
  retentionDays?: number;
  /** Days the audit log is kept (WREN_AUDIT_RETENTION_DAYS). */
  auditRetentionDays?: number;
  /** The privacy filter's k, for retention's label scrub (default DEFAULT_K). */
  k?: number;
}

export interface PublishRun {
  /** Raw rows folded by this run. */
  folded: number;
  /** The instant published through, or null when the backlog was too long to finish. */
  throughMs: number | null;
  /** True when the run stopped at its row bound: run again at once. */
  behind: boolean;
  /** What retention did after publishing; absent when not asked for or when the run did not publish. */
  retention?: RetentionRun;
}

/** One run of the publisher: fold up to the head as it was at the cut, publish, then apply retention. */
export async function publishOnce(client: Client, options: PublisherOptions): Promise<PublishRun> {
  const cut = options.now();
  const head = await readHead(client);
  const { folded, done } = await fold(client, {
    upTo: head,
    chunkRows: options.chunkRows ?? PUBLISH_CHUNK_ROWS,
    maxRows: options.maxRowsPerRun ?? MAX_ROWS_PER_RUN,
  });
  if (!done) return { folded, throughMs: null, behind: true };
  const throughMs = cut - (options.graceMs ?? PUBLISH_GRACE_MS);
  await client.batch([publishStatement(throughMs, options.now())], "write");
  if (options.retentionDays === undefined) return { folded, throughMs, behind: false };
  const retention = await applyRetention(client, {
    now: options.now(),
    days: options.retentionDays,
    k: options.k,
    auditDays: options.auditRetentionDays,
  });
  return { folded, throughMs, behind: false, retention };
}

export interface PublisherEnv extends DatabaseBindings, RetentionEnv, ClockBindings {
  /** Seconds between runs (1–60, default 10). */
  WREN_PUBLISH_INTERVAL?: string | null;
}

/** Publication older than this (beyond the grace) is logged as falling behind. */
export const BEHIND_AFTER_MS = 60_000;

/** The interval between runs, from WREN_PUBLISH_INTERVAL (seconds), clamped to 1–60. */
export function publishIntervalMs(value: string | null | undefined): number {
  const seconds = Number(value);
  if (!value || !Number.isFinite(seconds)) return 10_000;
  return Math.round(Math.min(60, Math.max(1, seconds)) * 1000);
}

/** Lag beyond the grace and one interval after which the publisher counts as behind. */
export function behindAfterMs(env: PublisherEnv): number {
  return PUBLISH_GRACE_MS + publishIntervalMs(env.WREN_PUBLISH_INTERVAL) + BEHIND_AFTER_MS;
}

export interface PublisherStatus {
  /** `starting` before the first publication, `behind` when it lags more than it should. */
  status: "starting" | "current" | "behind";
  published_through: string | null;
  lag_seconds: number | null;
}

/** What /healthz says about the publisher. */
export function publisherStatus(publication: Publication | null, env: PublisherEnv, nowMs: number): PublisherStatus {
  if (!publication) return { status: "starting", published_through: null, lag_seconds: null };
  const lag = Math.max(0, nowMs - publication.throughMs);
  return {
    status: lag > behindAfterMs(env) ? "behind" : "current",
    published_through: new Date(publication.throughMs).toISOString(),
    lag_seconds: Math.round(lag / 1000),
  };
}
