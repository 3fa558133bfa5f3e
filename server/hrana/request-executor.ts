/**
 * Executes the stream requests of a pipeline (execute, batch, sequence, describe, store_sql,
 * close_sql, close, get_autocommit) with sqld's semantics (libsql-server/src/hrana/http/
 * request.rs, batch.rs, stmt.rs) and renders each StreamResult as JSON text.
 */

import { ProtocolError, StmtError, argsBothError } from "./errors.js";
import type { BatchCond, BatchStep, Stmt, StreamRequest } from "./protocol.js";
import { type AnalyzedStatement, analyzeSequence, analyzeSingle } from "./sql-analysis.js";
import type { SqlPolicy } from "./sql-policy.js";
import { type ResponseBudget, type StatementRunner, bindArguments, prepareFailure } from "./statement-runner.js";
import type { Stream } from "./streams.js";

export interface ExecutorLimits {
  maxStoredSqls: number;
  maxStoredSqlBytes: number;
  maxSequenceStatements: number;
}

const ANALYSIS_CACHE_SIZE = 512;

function okResult(responseJson: string): string {
  return `{"type":"ok","response":${responseJson}}`;
}

function errorResult(error: StmtError): string {
  return `{"type":"error","error":${JSON.stringify(error.toProto())}}`;
}

interface PreparedStep {
  statement: AnalyzedStatement;
  stmt: Stmt;
  condition: BatchCond | undefined;
}

export class RequestExecutor {
  readonly #runner: StatementRunner;
  readonly #limits: ExecutorLimits;
  readonly #policy: SqlPolicy;
  /** Analysis is pure, so it is shared across streams, keyed by SQL text. */
  readonly #analysisCache = new Map<string, AnalyzedStatement>();

  constructor(runner: StatementRunner, limits: ExecutorLimits, policy: SqlPolicy) {
    this.#runner = runner;
    this.#limits = limits;
    this.#policy = policy;
  }

  /** Returns the StreamResult JSON. Throws ProtocolError/BatonError for requests sqld refuses
   * with an HTTP error (the caller then drops the stream). */
  async execute(stream: Stream, request: StreamRequest, budget: ResponseBudget): Promise<string> {
    try {
      return okResult(await this.#dispatch(stream, request, budget));
    } catch (err) {
      if (err instanceof StmtError) return errorResult(err);
      throw err;
    }
  }

  async #dispatch(stream: Stream, request: StreamRequest, budget: ResponseBudget): Promise<string> {
    if (request.type !== "close" && request.type !== "store_sql" && request.type !== "close_sql") stream.assertOpen();
    switch (request.type) {
      case "close":
        stream.close();
        return '{"type":"close"}';
      case "execute": {
        const statement = this.#statementOf(stream, request.stmt);
        const values = bindArguments(statement, request.stmt.args, request.stmt.namedArgs);
        const result = await this.#runner.run(stream, statement, values, request.stmt.wantRows, budget);
        return `{"type":"execute","result":${result}}`;
      }
      case "batch":
        return `{"type":"batch","result":${await this.#batch(stream, request.steps, budget)}}`;
      case "sequence":
        await this.#sequence(stream, this.#resolveSql(stream, request.sql, request.sqlId), budget);
        return '{"type":"sequence"}';
      case "describe":
        return `{"type":"describe","result":${this.#describe(stream, this.#resolveSql(stream, request.sql, request.sqlId))}}`;
      case "store_sql":
        this.#storeSql(stream, request.sqlId, request.sql);
        return '{"type":"store_sql"}';
      case "close_sql":
        stream.sqls.delete(request.sqlId);
        return '{"type":"close_sql"}';
      case "get_autocommit":
        // sqld only answers this on v3; we also answer it on v2 (harmless, and handy).
        return `{"type":"get_autocommit","is_autocommit":${stream.isAutocommit}}`;
    }
  }

  #resolveSql(stream: Stream, sql: string | undefined, sqlId: number | undefined): string {
    if (sql !== undefined) return sql;
    const stored = stream.sqls.get(sqlId!);
    if (stored === undefined) throw new ProtocolError(`SQL text ${sqlId} not found`);
    return stored;
  }

  #analyze(sql: string): AnalyzedStatement {
    const cached = this.#analysisCache.get(sql);
    if (cached !== undefined) return cached;
    const statement = analyzeSingle(sql);
    // Only statements the policy allows are cached, so a cache hit needs no second check.
    this.#policy.check(statement);
    this.#analysisCache.set(sql, statement);
    if (this.#analysisCache.size > ANALYSIS_CACHE_SIZE) {
      const oldest = this.#analysisCache.keys().next().value;
      if (oldest !== undefined) this.#analysisCache.delete(oldest);
    }
    return statement;
  }

  /** sqld's proto_stmt_to_query(): SQL lookup, parse, and the positional-xor-named rule. */
  #statementOf(stream: Stream, stmt: Stmt): AnalyzedStatement {
    const statement = this.#analyze(this.#resolveSql(stream, stmt.sql, stmt.sqlId));
    if (stmt.args.length > 0 && stmt.namedArgs.length > 0) throw argsBothError();
    return statement;
  }

  async #batch(stream: Stream, steps: BatchStep[], budget: ResponseBudget): Promise<string> {
    // As in sqld, every step is parsed before any runs: one bad statement fails the batch.
    const prepared: PreparedStep[] = steps.map((step) => ({
      statement: this.#statementOf(stream, step.stmt),
      stmt: step.stmt,
      condition: step.condition,
    }));
    const succeeded: boolean[] = [];
    const results: string[] = [];
    const errors: string[] = [];
    for (const step of prepared) {
      let ok = false;
      let result = "null";
      let error = "null";
      if (step.condition === undefined || this.#evaluate(step.condition, succeeded, stream)) {
        try {
          const values = bindArguments(step.statement, step.stmt.args, step.stmt.namedArgs);
          const pending = this.#runner.run(stream, step.statement, values, step.stmt.wantRows, budget);
          result = typeof pending === "string" ? pending : await pending;
          ok = true;
        } catch (err) {
          if (!(err instanceof StmtError)) throw err;
          error = JSON.stringify(err.toProto());
          budget.remaining -= error.length;
        }
      }
      succeeded.push(ok);
      results.push(result);
      errors.push(error);
    }
    return `{"step_results":[${results.join(",")}],"step_errors":[${errors.join(",")}],"replication_index":null}`;
  }

  /** sqld's eval_cond(): `error` is the negation of `ok`, so it is also true for a skipped step
   * (the Hrana spec says false; we follow the server clients actually run against). */
  #evaluate(cond: BatchCond, succeeded: readonly boolean[], stream: Stream): boolean {
    switch (cond.type) {
      case "ok":
        return succeeded[cond.step] === true;
      case "error":
        return succeeded[cond.step] !== true;
      case "not":
        return !this.#evaluate(cond.cond, succeeded, stream);
      case "and":
        return cond.conds.every((c) => this.#evaluate(c, succeeded, stream));
      case "or":
        return cond.conds.some((c) => this.#evaluate(c, succeeded, stream));
      case "is_autocommit":
        return stream.isAutocommit;
    }
  }

  /** Runs statements in order without arguments, stopping at the first error (sqld). */
  async #sequence(stream: Stream, sql: string, budget: ResponseBudget): Promise<void> {
    const statements = analyzeSequence(sql, this.#limits.maxSequenceStatements);
    // Every statement passes the policy before the first one runs.
    for (const statement of statements) this.#policy.check(statement);
    for (const statement of statements) {
      const values = bindArguments(statement, [], []);
      const pending = this.#runner.run(stream, statement, values, false, budget);
      if (typeof pending !== "string") await pending;
    }
  }

  #describe(stream: Stream, sql: string): string {
    const statement = this.#analyze(sql);
    const conn = stream.connection();
    let columns: { name: string; type: string | null }[];
    try {
      columns = conn.prepare(statement.sql).stmt.columns();
    } catch (err) {
      throw prepareFailure(err, statement);
    }
    const params = [];
    for (let i = 1; i <= statement.params.count; i++) {
      params.push(`{"name":${JSON.stringify(statement.params.names[i] ?? null)}}`);
    }
    const cols = columns.map((c) => `{"name":${JSON.stringify(c.name)},"decltype":${JSON.stringify(c.type ?? null)}}`);
    return (
      `{"params":[${params.join(",")}],"cols":[${cols.join(",")}],` +
      `"is_explain":${statement.isExplain},"is_readonly":${statement.readonly}}`
    );
  }

  #storeSql(stream: Stream, sqlId: number, sql: string): void {
    if (stream.sqls.has(sqlId)) throw new ProtocolError(`SQL text ${sqlId} already exists`);
    if (stream.sqls.size >= this.#limits.maxStoredSqls) {
      throw new StmtError("SQL_STORE_TOO_MANY", `The server already stores ${stream.sqls.size} SQL texts, it cannot store more`);
    }
    const bytes = Buffer.byteLength(sql, "utf8");
    if (bytes > this.#limits.maxStoredSqlBytes) {
      throw new StmtError(
        "SQL_STORE_TOO_LARGE",
        `The statement is too large to be stored: ${bytes} B/${this.#limits.maxStoredSqlBytes} B`,
      );
    }
    stream.sqls.set(sqlId, sql);
  }
}
