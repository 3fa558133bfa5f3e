// Wren's embedded libSQL server: Hrana over HTTP v2 (the JSON protocol of sqld and Turso) on
// top of the `libsql` engine, so workers that cannot load native modules reach the database
// with @libsql/client/web, and an operator can swap in a real sqld/Turso by changing LIBSQL_URL.
//
// There is no npm library that implements the server side of Hrana (the published packages are
// clients: @libsql/client, @libsql/hrana-client), so the protocol is written here by hand,
// following docs/HTTP_V2_SPEC.md and sqld's source in tursodatabase/libsql.
//
//   http-layer.ts        routing, auth, body limits, HTTP error mapping
//   protocol.ts          strict decoding of pipeline requests
//   values.ts            Hrana values <-> engine values
//   streams.ts, baton.ts streams, batons, idle expiry
//   write-lock.ts        the single-writer FIFO queue
//   connection-pool.ts   engine connections and their pool
//   request-executor.ts  execute/batch/sequence/describe/store_sql/close_sql/close/get_autocommit
//   statement-runner.ts  binding, locking and running one statement
//   sql-lexer.ts, sql-analysis.ts  statement splitting, parameters, classification
//   errors.ts            sqld's error codes and messages

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { BearerAuth } from "./auth.js";
import { ConnectionPool } from "./connection-pool.js";
import { createRequestHandler } from "./http-layer.js";
import { RequestExecutor } from "./request-executor.js";
import { StatementRunner } from "./statement-runner.js";
import { StreamManager } from "./streams.js";
import { WriteLock } from "./write-lock.js";

export interface HranaServerOptions {
  /** Path of the database file (created if missing; switched to WAL). */
  file: string;
  /** Interface to bind; default 127.0.0.1 (loopback only). */
  host?: string;
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number;
  /** Bearer token required on every request; default: LIBSQL_AUTH_TOKEN if set, else none. */
  authToken?: string;
  /** Idle time after which a stream expires and its transaction rolls back (sqld: 10 s). */
  streamIdleMs?: number;
  /** How long a writer waits for the write lock before failing with TRANSACTION_BUSY. */
  lockTimeoutMs?: number;
}

export interface HranaServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

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

const DEFAULT_STREAM_IDLE_MS = 10_000;
const DEFAULT_LOCK_TIMEOUT_MS = 30_000;
const SHUTDOWN_GRACE_MS = 5_000;

function formatUrl(host: string, port: number): string {
  const shown = host.includes(":") ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

export async function startHranaServer(opts: HranaServerOptions): Promise<HranaServer> {
  if (opts.file === "" || opts.file === ":memory:") {
    throw new Error("startHranaServer needs a database file: pooled connections cannot share an in-memory database");
  }
  const host = opts.host ?? "127.0.0.1";
  const token = opts.authToken ?? process.env["LIBSQL_AUTH_TOKEN"];
  const pool = new ConnectionPool(opts.file, LIMITS.maxIdleConnections);
  const lock = new WriteLock();
  const streams = new StreamManager({
    idleMs: opts.streamIdleMs ?? DEFAULT_STREAM_IDLE_MS,
    maxStreams: LIMITS.maxStreams,
    pool,
    lock,
  });
  const runner = new StatementRunner({
    lockTimeoutMs: opts.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
    maxStatementResultBytes: LIMITS.maxStatementResultBytes,
  });
  const executor = new RequestExecutor(runner, LIMITS);
  const inFlight = { count: 0, idle: [] as Array<() => void> };
  const server = createServer(
    createRequestHandler({
      streams,
      executor,
      inFlight,
      options: {
        auth: token !== undefined && token !== "" ? new BearerAuth(token) : undefined,
        maxRequestBytes: LIMITS.maxRequestBytes,
        maxResponseBytes: LIMITS.maxResponseBytes,
        protocolLimits: LIMITS,
      },
    }),
  );

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(opts.port ?? 0, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (err) {
    pool.closeAll();
    throw err;
  }
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      // 1. Stop accepting. Streams between requests roll back now, which also frees the
      //    writer for requests still queued behind an abandoned transaction.
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
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
      server.closeAllConnections();
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

  return { url: formatUrl(host, port), port, close };
}
