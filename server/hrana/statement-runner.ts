/**
 * Runs one analyzed statement on a stream's connection: binds arguments with sqld's rules,
 * takes the write lock when the statement is about to write, executes on the engine and
 * renders the Hrana StmtResult as JSON text (with a size budget).
 */

import type { EngineConnection, PreparedStatement } from "./connection-pool.js";
import {
  SQLITE_BUSY,
  SQLITE_BUSY_RECOVERY,
  SQLITE_ERROR,
  StmtError,
  argsInvalidError,
  asEngineError,
  responseTooLargeError,
  sqlParseError,
  stepError,
} from "./errors.js";
import { type AnalyzedStatement, errorOffset } from "./sql-analysis.js";
import type { Stream } from "./streams.js";
import { JsonArrayWriter, type SqlValue, rowJson } from "./values.js";
import { LockClosedError, LockTimeoutError } from "./write-lock.js";

/** Bytes of JSON still allowed in the response being built. */
export class ResponseBudget {
  constructor(public remaining: number) {}
}

export interface RunnerOptions {
  lockTimeoutMs: number;
  maxStatementResultBytes: number;
}

/** Arguments in sqld's Params::bind() order: the positional array handed to the engine. */
export function bindArguments(
  statement: AnalyzedStatement,
  args: readonly SqlValue[],
  namedArgs: readonly { name: string; value: SqlValue }[],
): SqlValue[] {
  const named = namedArgs.length > 0 ? new Map(namedArgs.map((a) => [a.name, a.value] as const)) : undefined;
  const given = named?.size ?? args.length;
  const { count, names } = statement.params;
  if (count < given) throw argsInvalidError(`too many parameters, expected ${count} found ${given}`);
  // Common case: only `?` parameters, one value each, nothing to reorder.
  if (named === undefined && count === given && statement.params.onlyAnonymous) return args as SqlValue[];
  const bound: SqlValue[] = new Array<SqlValue>(count).fill(null);
  for (let index = 1; index <= count; index++) {
    const name = names[index] ?? null;
    let value: SqlValue | undefined;
    if (name === null) {
      value = named === undefined ? args[index - 1] : undefined;
    } else if (name.startsWith("?")) {
      value = named === undefined ? args[Number.parseInt(name.slice(1), 10) - 1] : undefined;
    } else if (named !== undefined) {
      value = named.has(name) ? named.get(name) : named.get(name.slice(1));
    }
    if (value === undefined) {
      // sqld leaves the rest unbound (NULL) for EXPLAIN, and refuses otherwise.
      if (statement.isExplain) break;
      throw argsInvalidError(`value for parameter ${name ?? index} not found`);
    }
    bound[index - 1] = value;
  }
  return bound;
}

/** BEGIN IMMEDIATE/EXCLUSIVE and writing statements need the lock; the other transaction-control
 * statements never do (COMMIT of a writing transaction already holds it). */
function needsWriteLock(statement: AnalyzedStatement): boolean {
  if (statement.kind === "write") return true;
  if (statement.kind === "begin") return statement.beginMode === "immediate" || statement.beginMode === "exclusive";
  return false;
}

function readOnlyTransactionError(): StmtError {
  return new StmtError("SQLITE_READONLY", "SQLite error: cannot write in a read-only transaction (BEGIN TRANSACTION READONLY)", 8);
}

/** SQLITE_BUSY and SQLITE_BUSY_RECOVERY clear up by waiting; SQLITE_BUSY_SNAPSHOT (a read
 * transaction that cannot become a write one) never does. */
function isTransientBusy(rawCode: number | undefined): boolean {
  return rawCode === SQLITE_BUSY || rawCode === SQLITE_BUSY_RECOVERY;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const SYNTAX_ERROR = /^(?:near ".*": syntax error|unrecognized token: .*|incomplete input)$/s;

/** Errors from sqlite3_prepare: sqld reports syntax errors from its own parser and the rest as
 * SQL_INPUT_ERROR (rusqlite's SqlInputError, which carries sqlite3_error_offset). */
export function prepareFailure(err: unknown, statement: AnalyzedStatement): StmtError {
  const engine = asEngineError(err);
  if (engine === undefined) throw err;
  if ((engine.rawCode & 0xff) === SQLITE_ERROR) {
    if (SYNTAX_ERROR.test(engine.message)) return sqlParseError(engine.message);
    const offset = errorOffset(statement, engine.message);
    return new StmtError("SQL_INPUT_ERROR", `SQL input error: ${engine.message} (at offset ${offset})`, engine.rawCode);
  }
  return stepError(engine);
}

function executionFailure(err: unknown): StmtError {
  if (err instanceof StmtError) return err;
  const engine = asEngineError(err);
  if (engine === undefined) throw err;
  return stepError(engine);
}

function columnsJson(prepared: PreparedStatement): string {
  const parts = prepared.stmt
    .columns()
    .map(
      (c) =>
        `{"name":${JSON.stringify(c.name)},"decltype":${c.type === null || c.type === undefined ? "null" : JSON.stringify(c.type)}}`,
    );
  return `[${parts.join(",")}]`;
}

export class StatementRunner {
  readonly #options: RunnerOptions;

  constructor(options: RunnerOptions) {
    this.#options = options;
  }

  /** Executes the statement; returns the StmtResult JSON or throws a StmtError. Synchronous
   * (no promise, no microtask) unless it has to wait for the write lock: batches of thousands
   * of statements are the hot path. */
  run(
    stream: Stream,
    statement: AnalyzedStatement,
    values: SqlValue[],
    wantRows: boolean,
    budget: ResponseBudget,
  ): string | Promise<string> {
    const conn = stream.connection();
    if (stream.readOnlyTransaction) {
      // The engine parses READONLY but does not enforce it: the server does, so a read batch never writes.
      if (stream.isAutocommit) stream.readOnlyTransaction = false;
      else if (needsWriteLock(statement)) throw readOnlyTransactionError();
    }
    if (needsWriteLock(statement) && !stream.holdsWriteLock) {
      return this.#takeWriteLock(stream).then(() => this.#runWithRetries(stream, conn, statement, values, wantRows, budget));
    }
    const heldBefore = stream.holdsWriteLock;
    let result: string;
    try {
      result = this.#execute(conn, statement, values, wantRows, budget);
      if (statement.kind === "begin") stream.readOnlyTransaction = statement.beginMode === "readonly";
    } catch (err) {
      if (err instanceof StmtError && isTransientBusy(err.rawCode)) {
        return this.#runWithRetries(stream, conn, statement, values, wantRows, budget, err);
      }
      stream.releaseWriteLockIfAutocommit();
      throw err;
    }
    // A statement that succeeded inside a transaction we already held cannot have ended it,
    // unless it is transaction control: skip asking the engine for every row of a batch.
    if (!heldBefore || (statement.kind !== "read" && statement.kind !== "write")) stream.releaseWriteLockIfAutocommit();
    return result;
  }

  async #runWithRetries(
    stream: Stream,
    conn: EngineConnection,
    statement: AnalyzedStatement,
    values: SqlValue[],
    wantRows: boolean,
    budget: ResponseBudget,
    busy?: StmtError,
  ): Promise<string> {
    const deadline = Date.now() + this.#options.lockTimeoutMs;
    try {
      for (let attempt = 0; ; attempt++) {
        if (busy !== undefined) {
          // SQLITE_BUSY comes before a statement changes anything, so retrying is safe. Without
          // our lock, a write we did not foresee met our own writer: queue up. With it, another
          // process (e.g. the CLI on the same file) is writing: back off without blocking.
          if (!stream.holdsWriteLock) {
            await this.#takeWriteLock(stream);
          } else if (Date.now() < deadline) {
            await sleep(Math.min(2 ** attempt, 50));
          } else {
            throw busy;
          }
        }
        try {
          return this.#execute(conn, statement, values, wantRows, budget);
        } catch (err) {
          if (!(err instanceof StmtError) || !isTransientBusy(err.rawCode)) throw err;
          busy = err;
        }
      }
    } finally {
      stream.releaseWriteLockIfAutocommit();
    }
  }

  async #takeWriteLock(stream: Stream): Promise<void> {
    try {
      await stream.acquireWriteLock(this.#options.lockTimeoutMs);
    } catch (err) {
      if (err instanceof LockTimeoutError) throw new StmtError("TRANSACTION_BUSY", err.message);
      if (err instanceof LockClosedError) throw new StmtError("SERVER_SHUTTING_DOWN", err.message);
      throw err;
    }
  }

  #execute(
    conn: EngineConnection,
    statement: AnalyzedStatement,
    values: SqlValue[],
    wantRows: boolean,
    budget: ResponseBudget,
  ): string {
    // A PRAGMA assignment (foreign_keys = OFF, ...) must not leak into the next stream that
    // borrows this connection: such a connection is closed instead of pooled.
    if (statement.changesConnectionState) conn.tainted = true;
    let prepared: PreparedStatement;
    try {
      prepared = conn.prepare(statement.sql);
    } catch (err) {
      throw prepareFailure(err, statement);
    }
    const limit = Math.min(this.#options.maxStatementResultBytes, budget.remaining);
    const started = performance.now();
    let cols = "[]";
    let rows = "[]";
    let affectedRows = 0;
    let lastInsertRowid: bigint | null = null;
    try {
      if (prepared.reader) {
        cols = columnsJson(prepared);
        rows = this.#collectRows(conn, prepared, values, wantRows, limit - cols.length);
        if (statement.isIud) {
          const exact = conn.changesAndLastRowid();
          affectedRows = Number(exact.changes);
          if (statement.isInsert) lastInsertRowid = exact.lastInsertRowid;
        }
      } else {
        const info = prepared.stmt.run(values);
        if (statement.isIud) affectedRows = info.changes;
        if (statement.isInsert) {
          // The binding reports the rowid as a double: ask again when that lost precision.
          lastInsertRowid =
            typeof info.lastInsertRowid === "bigint"
              ? info.lastInsertRowid
              : Number.isSafeInteger(info.lastInsertRowid)
                ? BigInt(info.lastInsertRowid)
                : conn.changesAndLastRowid().lastInsertRowid;
        }
      }
    } catch (err) {
      throw executionFailure(err);
    }
    const durationMs = performance.now() - started;
    const result =
      `{"cols":${cols},"rows":${rows},"affected_row_count":${affectedRows},` +
      `"last_insert_rowid":${lastInsertRowid === null ? "null" : `"${lastInsertRowid}"`},` +
      `"replication_index":null,"query_duration_ms":${durationMs}}`;
    if (result.length > limit) throw responseTooLargeError();
    budget.remaining -= result.length;
    return result;
  }

  /** Steps through all rows (so the statement completes), rendering them while they fit. */
  #collectRows(
    conn: EngineConnection,
    prepared: PreparedStatement,
    values: SqlValue[],
    wantRows: boolean,
    limit: number,
  ): string {
    const iterator = prepared.stmt.iterate(values);
    if (!wantRows) {
      for (const _ of iterator) {
        // step to the end: the rows are not wanted
      }
      return "[]";
    }
    const json = new JsonArrayWriter();
    try {
      for (const row of iterator) {
        json.add(rowJson(row as unknown[]));
        if (json.chars > limit) {
          // Stop the statement inside SQLite (a half-read statement would keep its locks), the
          // way sqld aborts a statement whose result outgrows the response limit.
          conn.interrupt();
          try {
            for (const _ of iterator) {
              // drain until the interrupt surfaces
            }
          } catch {
            // SQLITE_INTERRUPT: expected
          }
          throw responseTooLargeError();
        }
      }
      return json.finish();
    } finally {
      json.release();
    }
  }
}
