/**
 * Server faults: failures that are the server's, never the client's, so that they answer 503
 * (retry) and not 422 (give up) or 500. Two kinds:
 *
 * - `unavailable`: the database did not answer (refused, reset, past its deadline, busy);
 * - `storage`: it answered that it cannot write (disk full, read-only file, I/O error), or the
 *   runtime's Durable Object storage failed (workerd shows that only as "internal error" and
 *   logs the SQLite error itself).
 *
 * Storage faults are remembered for /healthz (this isolate saw one a moment ago) and logged
 * with their cause, at most once per LOG_INTERVAL_MS per cause, so that a full disk under load
 * does not also flood the log.
 */

export type FaultKind = "unavailable" | "storage";

export interface ServerFault {
  kind: FaultKind;
  /** sqld's code (`SQLITE_FULL`), or a name of ours (`DATABASE_TIMEOUT`, `RUNTIME_STORAGE`). */
  code: string;
  /** What the operator should look at. */
  cause: string;
}

/** Thrown by the database client's fetch when a call passes its deadline (lib/libsql.ts). */
export class DatabaseTimeout extends Error {
  readonly code = "DATABASE_TIMEOUT";
  constructor(ms: number) {
    super(`the database did not answer within ${ms} ms`);
    this.name = "DatabaseTimeout";
  }
}

/** SQLite's primary result codes (as sqld names them) that mean the storage, not the SQL, failed. */
const STORAGE_CODES: Record<string, string> = {
  SQLITE_FULL: "the disk holding the database is full",
  SQLITE_READONLY: "the database file or its folder is read-only",
  SQLITE_IOERR: "the disk reported an I/O error",
  SQLITE_CANTOPEN: "the database file cannot be opened",
  SQLITE_PERM: "the database file's permissions refuse access",
  SQLITE_CORRUPT: "the database file is damaged",
  SQLITE_NOTADB: "the database file is not a database",
  SQLITE_NOMEM: "the database server is out of memory",
  SQLITE_NOLFS: "the file system cannot hold a file this large",
};

/** The same faults as messages, where no code survives (workerd's own SQLite, wrapped errors). */
const STORAGE_MESSAGES: [RegExp, string][] = [
  [/database or disk is full/i, "SQLITE_FULL"],
  [/attempt to write a readonly database|read-only file system/i, "SQLITE_READONLY"],
  [/disk I\/O error/i, "SQLITE_IOERR"],
];

/** How workerd reports a failure in its own storage (the Durable Objects'): details go to its log. */
const RUNTIME_INTERNAL = /^internal error; reference = |outputGateBroken/;

const UNAVAILABLE_CODES = new Set([
  "SERVER_ERROR",
  "HRANA_WEBSOCKET_ERROR",
  "HRANA_CLOSED_ERROR",
  "STREAM_EXPIRED",
  "DATABASE_TIMEOUT",
]);
/** A writer that waited too long for the lock (sqld's SQLITE_BUSY, our server's TRANSACTION_BUSY): retry. */
const BUSY_CODES = new Set(["SQLITE_BUSY", "SQLITE_LOCKED", "TRANSACTION_BUSY"]);
/** How a refused, reset, lost or timed-out connection reads in workerd and in Node's fetch. */
const CONNECTION_FAILURE =
  /network connection lost|fetch failed|ECONNREFUSED|ECONNRESET|connection refused|socket hang up|operation was aborted|timed? ?out/i;

/** What kind of server fault an error is (or any error it wraps: drizzle wraps the client's), if any. */
export function serverFault(error: unknown, depth = 0): ServerFault | null {
  if (!(error instanceof Error) || depth > 5) return null;
  const rawCode = (error as { code?: unknown }).code;
  const code = typeof rawCode === "string" ? rawCode : "";
  const primary = code.replace(/^(SQLITE_[A-Z]+?)(_[A-Z_]+)?$/, "$1");
  if (primary in STORAGE_CODES) return { kind: "storage", code: primary, cause: STORAGE_CODES[primary]! };
  for (const [pattern, named] of STORAGE_MESSAGES) {
    if (pattern.test(error.message)) return { kind: "storage", code: named, cause: STORAGE_CODES[named]! };
  }
  if (RUNTIME_INTERNAL.test(error.message)) {
    return {
      kind: "storage",
      code: "RUNTIME_STORAGE",
      cause: "workerd's Durable Object storage failed (its log names the SQLite error)",
    };
  }
  if (
    UNAVAILABLE_CODES.has(code) ||
    BUSY_CODES.has(code) ||
    error.name === "TimeoutError" ||
    CONNECTION_FAILURE.test(error.message)
  ) {
    return { kind: "unavailable", code: code || error.name, cause: "the database is not answering" };
  }
  return serverFault((error as { cause?: unknown }).cause, depth + 1);
}

/** A connection the database never accepted: the request never reached it. */
const CONNECTION_REFUSED = /ECONNREFUSED|connection refused/i;

/**
 * True when a call failed before the database ran any of it, so running it again cannot store
 * anything twice: a writer that waited too long for the lock (rolled back), or a connection
 * refused. Not a timeout or a connection lost mid-call: those may have committed.
 */
export function isRetryableUnsent(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && BUSY_CODES.has(code.replace(/^(SQLITE_[A-Z]+?)(_[A-Z_]+)?$/, "$1"))) return true;
  if (CONNECTION_REFUSED.test(error.message)) return true;
  return isRetryableUnsent((error as { cause?: unknown }).cause, depth + 1);
}

/** True when an error is the database not answering (see serverFault). */
export function isDatabaseUnavailable(error: unknown): boolean {
  return serverFault(error)?.kind === "unavailable";
}

const LOG_INTERVAL_MS = 10_000;
const lastLogged = new Map<string, number>();
let latestStorageFault: { fault: ServerFault; at: number } | null = null;

/** Remembers a storage fault for /healthz and logs it (rate-limited), naming the cause and where. */
export function noteStorageFault(fault: ServerFault, where: string, nowMs = Date.now()): void {
  latestStorageFault = { fault, at: nowMs };
  const last = lastLogged.get(fault.code) ?? -Infinity;
  if (nowMs - last < LOG_INTERVAL_MS) return;
  lastLogged.set(fault.code, nowMs);
  console.error(`storage fault: ${fault.code}: ${fault.cause} (in ${where}); requests that write answer 503 until it is fixed`);
}

/** The last storage fault this isolate met, and when (for /healthz). */
export function lastStorageFault(): { fault: ServerFault; at: number } | null {
  return latestStorageFault;
}
