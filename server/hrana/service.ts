/**
 * Assembles the server's parts around one database file: pool, write lock, streams, executor
 * and the HTTP request handler, plus graceful shutdown. Listening is left to the caller (the
 * supervisor hands it accepted sockets; the in-process mode calls listen()).
 */

import { type Server, createServer } from "node:http";
import { BearerAuth } from "./auth.js";
import { ConnectionPool } from "./connection-pool.js";
import { createRequestHandler } from "./http-layer.js";
import { RequestExecutor } from "./request-executor.js";
import { RequestGuard } from "./request-guard.js";
import { SqlPolicy } from "./sql-policy.js";
import { StatementRunner } from "./statement-runner.js";
import { StreamManager } from "./streams.js";
import { WriteLock } from "./write-lock.js";

/** Limits (documented in docs/libsql-server.md). */
export const LIMITS = {
  maxRequestBytes: 10 * 1024 * 1024,
  maxResponseBytes: 32 * 1024 * 1024,
  maxStatementResultBytes: 10 * 1024 * 1024,
  maxRequestsPerPipeline: 10_000,
  maxStepsPerBatch: 10_000,
  maxSequenceStatements: 10_000,
  maxArgsPerStatement: 32_766,
  maxConditionDepth: 100,
  maxStoredSqls: 50,
  maxStoredSqlBytes: 5_000,
  maxStreams: 1_000,
  maxIdleConnections: 16,
} as const;

const SHUTDOWN_GRACE_MS = 5_000;
/**
 * After writes, the WAL is checkpointed and truncated at the first tick (every
 * CHECKPOINT_TICK_MS) with no write since the previous one, or at the first tick with the lock
 * free once CHECKPOINT_AT_LEAST_MS have passed under steady writes. With `secure_delete`, what
 * was deleted (an expired session salt, a dropped idempotency key) is then gone from the WAL
 * file as well as from wren.db, instead of lingering in old frames until writes reuse them.
 */
const CHECKPOINT_TICK_MS = 1_000;
const CHECKPOINT_AT_LEAST_MS = 30_000;

export interface ServiceOptions {
  file: string;
  authToken: string | undefined;
  /** Host names clients may use besides the address they connect to (DNS-rebinding guard). */
  allowedHosts: string[];
  streamIdleMs: number;
  lockTimeoutMs: number;
}

export interface HranaService {
  /** The HTTP server; not listening yet. */
  http: Server;
  /** Write transactions so far (grants of the write lock). */
  writeTransactions(): number;
  close(): Promise<void>;
}

export function createHranaService(options: ServiceOptions): HranaService {
  const pool = new ConnectionPool(options.file, LIMITS.maxIdleConnections);
  const lock = new WriteLock();
  const streams = new StreamManager({ idleMs: options.streamIdleMs, maxStreams: LIMITS.maxStreams, pool, lock });
  const runner = new StatementRunner({
    lockTimeoutMs: options.lockTimeoutMs,
    maxStatementResultBytes: LIMITS.maxStatementResultBytes,
  });
  const executor = new RequestExecutor(runner, LIMITS, new SqlPolicy(pool.inventory()));
  const inFlight = { count: 0, idle: [] as Array<() => void> };
  const http = createServer(
    createRequestHandler({
      streams,
      executor,
      inFlight,
      options: {
        auth: options.authToken !== undefined && options.authToken !== "" ? new BearerAuth(options.authToken) : undefined,
        guard: new RequestGuard(options.allowedHosts),
        maxRequestBytes: LIMITS.maxRequestBytes,
        maxResponseBytes: LIMITS.maxResponseBytes,
        protocolLimits: LIMITS,
      },
    }),
  );

  // Writes seen at the last tick and at the last completed checkpoint (the lock's grant count).
  let seenWrites = lock.granted;
  let checkpointedWrites = lock.granted;
  let checkpointedAt = Date.now();
  const idleCheckpoint = setInterval(() => {
    const writes = lock.granted;
    const quiet = writes === seenWrites;
    seenWrites = writes;
    if (writes === checkpointedWrites || lock.held || lock.queueLength > 0) return;
    if (!quiet && Date.now() - checkpointedAt < CHECKPOINT_AT_LEAST_MS) return;
    try {
      if (pool.checkpoint()) {
        checkpointedWrites = writes;
        checkpointedAt = Date.now();
      }
    } catch {
      // A failing checkpoint (disk full) changes nothing; the next tick tries again.
    }
  }, CHECKPOINT_TICK_MS);
  idleCheckpoint.unref();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    clearInterval(idleCheckpoint);
    closing ??= (async () => {
      // 1. Stop accepting. Streams between requests roll back now, which also frees the
      //    writer for requests still queued behind an abandoned transaction.
      const stopped = http.listening ? new Promise<void>((resolve) => http.close(() => resolve())) : Promise.resolve();
      http.closeIdleConnections();
      streams.closeIdle();
      // 2. Let pipelines already running finish (bounded), then fail whatever still waits for
      //    the write lock and close the remaining streams.
      if (inFlight.count > 0) {
        await Promise.race([
          new Promise<void>((resolve) => inFlight.idle.push(resolve)),
          new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref()),
        ]);
      }
      lock.close();
      await new Promise((resolve) => setImmediate(resolve));
      streams.closeAll();
      http.closeAllConnections();
      await stopped;
      // 3. Move the WAL into the database file, then close the engine.
      try {
        pool.checkpoint();
      } finally {
        pool.closeAll();
      }
    })();
    return closing;
  };

  return { http, close, writeTransactions: () => lock.granted };
}
