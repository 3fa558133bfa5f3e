/**
 * Wren's embedded libSQL server: Hrana over HTTP v2 (the JSON protocol of sqld and Turso) on
 * top of the `libsql` engine, so workers that cannot load native modules reach the database
 * with @libsql/client/web, and an operator can swap in a real sqld/Turso by changing LIBSQL_URL.
 *
 * There is no npm library that implements the server side of Hrana (the published packages are
 * clients: @libsql/client, @libsql/hrana-client), so the protocol is written here by hand,
 * following docs/HTTP_V2_SPEC.md and sqld's source in tursodatabase/libsql.
 *
 *   supervisor.ts        keeps the engine in a child process (child-entry.ts), restarts it
 *   service.ts           assembles the parts below; graceful shutdown
 *   http-layer.ts        routing, auth, body limits, HTTP error mapping
 *   protocol.ts          strict decoding of pipeline requests
 *   values.ts            Hrana values <-> engine values, rows rendered in a reused buffer
 *   streams.ts, baton.ts streams, batons, idle expiry
 *   write-lock.ts        the single-writer FIFO queue
 *   connection-pool.ts   engine connections and their pool
 *   request-executor.ts  execute/batch/sequence/describe/store_sql/close_sql/close/get_autocommit
 *   statement-runner.ts  binding, locking and running one statement
 *   sql-lexer.ts, sql-analysis.ts  statement splitting, parameters, classification
 *   errors.ts            sqld's error codes and messages
 */

import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { type ServiceOptions, createHranaService } from "./service.js";
import { startSupervised } from "./supervisor.js";

export { LIMITS } from "./service.js";

export interface HranaServerOptions {
  /** Path of the database file (created if missing; switched to WAL). */
  file: string;
  /** Interface to bind; default 127.0.0.1 (loopback only). */
  host?: string;
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number;
  /** Bearer token required on every request; default: LIBSQL_AUTH_TOKEN if set, else none.
   * `wren start` and `wren db` always pass one (docs/libsql-server.md). */
  authToken?: string;
  /** Host names clients may use besides the address they connect to; any other `Host` is
   * refused (DNS rebinding). Default none. */
  allowedHosts?: string[];
  /** Idle time after which a stream expires and its transaction rolls back (sqld: 10 s). */
  streamIdleMs?: number;
  /** How long a writer waits for the write lock before failing with TRANSACTION_BUSY. */
  lockTimeoutMs?: number;
  /** Run the engine in a supervised child process (default true), so that a request that makes
   * the native binding abort cannot take the server down; false runs it in this process. */
  isolate?: boolean;
}

export interface HranaServer {
  url: string;
  port: number;
  close(): Promise<void>;
  /** Write transactions so far; only in-process (`isolate: false`), where tests count them. */
  writeTransactions?: () => number;
}

const DEFAULT_STREAM_IDLE_MS = 10_000;
const DEFAULT_LOCK_TIMEOUT_MS = 30_000;

function formatUrl(host: string, port: number): string {
  const shown = host.includes(":") ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

export async function startHranaServer(opts: HranaServerOptions): Promise<HranaServer> {
  if (opts.file === "" || opts.file === ":memory:") {
    throw new Error("startHranaServer needs a database file: pooled connections cannot share an in-memory database");
  }
  const host = opts.host ?? "127.0.0.1";
  const options: ServiceOptions = {
    file: resolve(opts.file),
    authToken: opts.authToken ?? process.env["LIBSQL_AUTH_TOKEN"],
    allowedHosts: opts.allowedHosts ?? [],
    streamIdleMs: opts.streamIdleMs ?? DEFAULT_STREAM_IDLE_MS,
    lockTimeoutMs: opts.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
  };

  if (opts.isolate ?? true) {
    const supervised = await startSupervised(host, opts.port ?? 0, options);
    return { url: formatUrl(host, supervised.port), port: supervised.port, close: supervised.close };
  }

  const service = createHranaService(options);
  try {
    await new Promise<void>((resolveListen, reject) => {
      service.http.once("error", reject);
      service.http.listen(opts.port ?? 0, host, () => {
        service.http.off("error", reject);
        resolveListen();
      });
    });
  } catch (err) {
    await service.close();
    throw err;
  }
  const port = (service.http.address() as AddressInfo).port;
  return { url: formatUrl(host, port), port, close: service.close, writeTransactions: service.writeTransactions };
}
