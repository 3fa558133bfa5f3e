/**
 * Engine connections (the `libsql` binding, better-sqlite3 API) and their pool. A stream
 * borrows one connection for its lifetime; it goes back to the pool only when it is in
 * autocommit state and no PRAGMA changed its settings, so streams never see each other's
 * transactions or connection state (sqld opens a fresh connection per stream).
 */

import Database from "libsql";

type EngineDatabase = InstanceType<typeof Database>;
type EngineStatement = ReturnType<EngineDatabase["prepare"]>;

export interface PreparedStatement {
  readonly stmt: EngineStatement;
  /** True when the statement returns columns (SELECT, RETURNING, some PRAGMAs). */
  readonly reader: boolean;
}

const STATEMENT_CACHE_SIZE = 128;

export class EngineConnection {
  readonly #db: EngineDatabase;
  readonly #statements = new Map<string, PreparedStatement>();
  #lastSql: string | undefined;
  #last: PreparedStatement | undefined;
  /** Set when the connection may carry state another stream must not inherit. */
  tainted = false;

  constructor(file: string) {
    // timeout 0 => busy_timeout 0: never block the event loop in SQLite's busy handler; the
    // write lock queue serializes writers instead.
    this.#db = new Database(file, { timeout: 0 } as never);
    try {
      this.#db.defaultSafeIntegers(true);
      this.#db.exec("PRAGMA busy_timeout = 0");
      // FULL: the WAL is fsynced at every commit, so an acknowledged commit survives power loss.
      this.#db.exec("PRAGMA synchronous = FULL");
      // Deleted and overwritten content is zeroed in the file, not left in free space: retention
      // and dropped idempotency keys (worker/reports/retention.ts) are gone from wren.db, not
      // only from its tables. It costs no measurable time on Wren's writes.
      this.#db.exec("PRAGMA secure_delete = ON");
    } catch (err) {
      this.#db.close();
      throw err;
    }
  }

  get inTransaction(): boolean {
    return this.#db.inTransaction;
  }

  /** Prepares (or reuses) a statement. Throws the engine's SqliteError on failure. */
  prepare(sql: string): PreparedStatement {
    // Batches repeat one statement thousands of times: skip the LRU bookkeeping then.
    if (sql === this.#lastSql && this.#last !== undefined) return this.#last;
    const cached = this.#statements.get(sql);
    if (cached !== undefined) {
      // Refresh LRU position.
      this.#statements.delete(sql);
      this.#statements.set(sql, cached);
      this.#lastSql = sql;
      this.#last = cached;
      return cached;
    }
    const stmt = this.#db.prepare(sql);
    const reader = stmt.reader;
    if (reader) stmt.raw(true);
    const prepared: PreparedStatement = { stmt, reader };
    this.#statements.set(sql, prepared);
    this.#lastSql = sql;
    this.#last = prepared;
    if (this.#statements.size > STATEMENT_CACHE_SIZE) {
      const oldest = this.#statements.keys().next().value;
      if (oldest !== undefined) this.#statements.delete(oldest);
    }
    return prepared;
  }

  /** sqlite3_changes() and sqlite3_last_insert_rowid() of the last statement, exactly. */
  changesAndLastRowid(): { changes: bigint; lastInsertRowid: bigint } {
    const row = this.prepare("SELECT changes(), last_insert_rowid()").stmt.all([]) as unknown as [[bigint, bigint]];
    const [changes, lastInsertRowid] = row[0]!;
    return { changes, lastInsertRowid };
  }

  /** sqlite3_interrupt(): the running statement halts (and is rolled back) at its next step. */
  interrupt(): void {
    // Present in the binding (libsql/index.js) but missing from its type definitions.
    (this.#db as unknown as { interrupt(): void }).interrupt();
  }

  exec(sql: string): void {
    this.#db.exec(sql);
  }

  /** Rolls back an open transaction; returns false if the connection is unusable. */
  rollbackIfNeeded(): boolean {
    if (!this.#db.inTransaction) return true;
    try {
      this.#db.exec("ROLLBACK");
    } catch {
      return false;
    }
    return !this.#db.inTransaction;
  }

  close(): void {
    this.#statements.clear();
    this.#last = undefined;
    try {
      this.#db.close();
    } catch {
      // Closing twice or after an engine failure: nothing left to release.
    }
  }
}

export class ConnectionPool {
  readonly #file: string;
  readonly #maxIdle: number;
  readonly #idle: EngineConnection[] = [];
  #open = 0;
  #closed = false;

  constructor(file: string, maxIdle: number) {
    this.#file = file;
    this.#maxIdle = maxIdle;
    const first = new EngineConnection(file);
    try {
      // journal_mode is persistent in the file; WAL lets readers run beside the single writer.
      const mode = (first.prepare("PRAGMA journal_mode = WAL").stmt.all([]) as unknown as [[string]])[0]![0];
      if (String(mode).toLowerCase() !== "wal") throw new Error(`could not enable WAL on ${file} (journal_mode=${mode})`);
    } catch (err) {
      first.close();
      throw err;
    }
    this.#open = 1;
    this.#idle.push(first);
  }

  /** Every function and virtual-table module the engine offers (for the SQL policy). */
  inventory(): { functions: string[]; modules: string[] } {
    const conn = this.acquire();
    try {
      const names = (sql: string) => (conn.prepare(sql).stmt.all([]) as unknown as [string][]).map((row) => String(row[0]));
      return {
        functions: names("SELECT DISTINCT name FROM pragma_function_list"),
        modules: names("SELECT DISTINCT name FROM pragma_module_list"),
      };
    } finally {
      this.release(conn);
    }
  }

  get openCount(): number {
    return this.#open;
  }

  get idleCount(): number {
    return this.#idle.length;
  }

  acquire(): EngineConnection {
    if (this.#closed) throw new Error("connection pool is closed");
    const idle = this.#idle.pop();
    if (idle !== undefined) return idle;
    const conn = new EngineConnection(this.#file);
    this.#open++;
    return conn;
  }

  /** Takes a connection back: reusable only if it is (or can be rolled back to) autocommit. */
  release(conn: EngineConnection): void {
    const reusable = !this.#closed && !conn.tainted && conn.rollbackIfNeeded() && this.#idle.length < this.#maxIdle;
    if (reusable) {
      this.#idle.push(conn);
    } else {
      conn.close();
      this.#open--;
    }
  }

  /**
   * Checkpoints the WAL into the database file and truncates it, on an idle connection. False
   * when a reader or writer stood in the way (busy_timeout 0: it never waits); nothing is lost then.
   */
  checkpoint(): boolean {
    let conn = this.#idle.pop();
    if (conn === undefined) {
      conn = new EngineConnection(this.#file);
      this.#open++;
    }
    try {
      const [row] = conn.prepare("PRAGMA wal_checkpoint(TRUNCATE)").stmt.all([]) as unknown as [[bigint | number, ...unknown[]]];
      return row !== undefined && Number(row[0]) === 0;
    } finally {
      this.#idle.push(conn);
    }
  }

  closeAll(): void {
    this.#closed = true;
    for (const conn of this.#idle.splice(0)) {
      conn.close();
      this.#open--;
    }
  }
}
