/**
 * Splits SQL text into statements and classifies each one the way sqld's query analysis does
 * (which statements exist, which are transaction control, which write, which are INSERT/UPDATE/
 * DELETE for affected_row_count), and numbers host parameters exactly as SQLite's parser does.
 */

import { type Token, tokenize } from "./sql-lexer.js";
import { StmtError, manyStatementsError, noStatementError, sqlParseError } from "./errors.js";

export type StatementKind =
  | "read" // SELECT, VALUES, EXPLAIN, read-only PRAGMA
  | "write" // INSERT/UPDATE/DELETE/REPLACE, DDL, REINDEX, PRAGMA with a value
  | "begin"
  | "commit"
  | "rollback"
  | "savepoint"
  | "release"
  | "rollback_to";

/** `readonly` is libSQL's `BEGIN [TRANSACTION] READONLY` (what @libsql/client sends for "read" batches). */
export type BeginMode = "deferred" | "immediate" | "exclusive" | "readonly";

/** SQLite's host-parameter table: names[i] is the name of parameter i (1-based), null for `?`. */
export interface ParamTable {
  count: number;
  names: ReadonlyArray<string | null>;
  /** Every parameter is a plain `?`: positional values bind as given. */
  onlyAnonymous: boolean;
}

export interface AnalyzedStatement {
  /** The statement text handed to the engine (first token through the terminating `;`). */
  sql: string;
  kind: StatementKind;
  beginMode: BeginMode | null;
  /** INSERT/UPDATE/DELETE: only these report affected_row_count (as in sqld). */
  isIud: boolean;
  /** INSERT: only these report last_insert_rowid (as in sqld). */
  isInsert: boolean;
  isExplain: boolean;
  /** What sqlite3_stmt_readonly() would say (transaction control counts as read-only). */
  readonly: boolean;
  /** PRAGMA assignments change per-connection state, so the connection must not be pooled. */
  changesConnectionState: boolean;
  params: ParamTable;
  tokens: readonly Token[];
}

// sqlite3_complete()'s state machine, which knows that the `;` inside CREATE TRIGGER ... END
// does not end the statement.
const Tk = { Semi: 0, Other: 2, Explain: 3, Create: 4, Temp: 5, Trigger: 6, End: 7 } as const;
type Tk = (typeof Tk)[keyof typeof Tk];
const TRIGGER_STATES: readonly (readonly number[])[] = [
  /* 0 INVALID */ [1, 0, 2, 3, 4, 2, 2, 2],
  /* 1 START   */ [1, 1, 2, 3, 4, 2, 2, 2],
  /* 2 NORMAL  */ [1, 2, 2, 2, 2, 2, 2, 2],
  /* 3 EXPLAIN */ [1, 3, 3, 2, 4, 2, 2, 2],
  /* 4 CREATE  */ [1, 4, 2, 2, 2, 4, 5, 2],
  /* 5 TRIGGER */ [6, 5, 5, 5, 5, 5, 5, 5],
  /* 6 SEMI    */ [6, 6, 5, 5, 5, 5, 5, 7],
  /* 7 END     */ [1, 7, 5, 5, 5, 5, 5, 5],
];

function triggerTokenClass(token: Token): Tk {
  if (token.kind === "semi") return Tk.Semi;
  if (token.kind !== "word") return Tk.Other;
  switch (token.text) {
    case "EXPLAIN":
      return Tk.Explain;
    case "CREATE":
      return Tk.Create;
    case "TEMP":
    case "TEMPORARY":
      return Tk.Temp;
    case "TRIGGER":
      return Tk.Trigger;
    case "END":
      return Tk.End;
    default:
      return Tk.Other;
  }
}

/** Splits into per-statement token lists; empty statements (`;;`) are dropped. */
function splitTokens(tokens: Token[]): Token[][] {
  const statements: Token[][] = [];
  let current: Token[] = [];
  let state = 0;
  for (const token of tokens) {
    const cls = triggerTokenClass(token);
    if (cls === Tk.Semi && current.length === 0) {
      state = 1;
      continue;
    }
    state = TRIGGER_STATES[state]![cls]!;
    current.push(token);
    if (cls === Tk.Semi && state === 1) {
      statements.push(current);
      current = [];
    }
  }
  if (current.length > 0) statements.push(current);
  return statements;
}

const SQLITE_MAX_VARIABLE_NUMBER = 32766;

/** Mirrors sqlite3ExprAssignVarNumber(): `?` takes the next number, `?NNN` takes NNN, and a
 * named parameter reuses the number of an earlier parameter with the same name. */
export function numberParams(tokens: readonly Token[]): ParamTable {
  let count = 0;
  const names: (string | null)[] = [null];
  const byName = new Map<string, number>();
  for (const token of tokens) {
    if (token.kind !== "param") continue;
    const text = token.text;
    if (text === "?") {
      count++;
    } else if (text.startsWith("?")) {
      const index = Number.parseInt(text.slice(1), 10);
      if (!(index >= 1 && index <= SQLITE_MAX_VARIABLE_NUMBER)) continue; // prepare will reject it
      if (index > count) count = index;
      if (names[index] === undefined || names[index] === null) names[index] = text;
      if (!byName.has(text)) byName.set(text, index);
    } else {
      let index = byName.get(text);
      if (index === undefined) {
        index = ++count;
        byName.set(text, index);
        names[index] = text;
      }
    }
  }
  const table: (string | null)[] = new Array<string | null>(count + 1).fill(null);
  for (let i = 1; i <= count; i++) table[i] = names[i] ?? null;
  return { count, names: table, onlyAnonymous: table.every((name) => name === null) };
}

// sqld's pragma classification (libsql-server/src/query_analysis.rs): pragmas outside these
// lists, and listed ones that may only be read, are refused as "unsupported statement".
const READ_PRAGMAS = new Set([
  "TABLE_LIST",
  "INDEX_LIST",
  "TABLE_INFO",
  "TABLE_XINFO",
  "INDEX_INFO",
  "INDEX_XINFO",
  "PRAGMA_LIST",
  "COMPILE_OPTIONS",
  "DATABASE_LIST",
  "FUNCTION_LIST",
  "MODULE_LIST",
  "ENCODING",
]);
const READ_PRAGMAS_WITHOUT_VALUE = new Set(["SCHEMA_VERSION"]);
const PRAGMAS_WITH_OPTIONAL_VALUE = new Set([
  "DEFER_FOREIGN_KEYS",
  "FOREIGN_KEYS",
  "FOREIGN_KEY_LIST",
  "FOREIGN_KEY_CHECK",
  "COLLATION_LIST",
  "DATA_VERSION",
  "FREELIST_COUNT",
  "INTEGRITY_CHECK",
  "LEGACY_FILE_FORMAT",
  "PAGE_COUNT",
  "QUICK_CHECK",
  "STATS",
  "USER_VERSION",
]);
const PRAGMAS_QUERY_ONLY = new Set([
  "ANALYSIS_LIMIT",
  "APPLICATION_ID",
  "AUTO_VACUUM",
  "AUTOMATIC_INDEX",
  "BUSY_TIMEOUT",
  "CACHE_SIZE",
  "CACHE_SPILL",
  "CELL_SIZE_CHECK",
  "CHECKPOINT_FULLFSYNC",
  "FULLFSYNC",
  "HARD_HEAP_LIMIT",
  "JOURNAL_MODE",
  "JOURNAL_SIZE_LIMIT",
  "LEGACY_ALTER_TABLE",
  "LOCKING_MODE",
  "MAX_PAGE_COUNT",
  "MMAP_SIZE",
  "PAGE_SIZE",
  "QUERY_ONLY",
  "READ_UNCOMMITTED",
  "RECURSIVE_TRIGGERS",
  "REVERSE_UNORDERED_SELECTS",
  "SECURE_DELETE",
  "SOFT_HEAP_LIMIT",
  "SYNCHRONOUS",
  "TEMP_STORE",
  "THREADS",
  "TRUSTED_SCHEMA",
  "WAL_AUTOCHECKPOINT",
]);

/** Every pragma a client may read (as a statement, or as a `pragma_<name>` table). */
export const READABLE_PRAGMAS: ReadonlySet<string> = new Set([
  ...READ_PRAGMAS,
  ...READ_PRAGMAS_WITHOUT_VALUE,
  ...PRAGMAS_WITH_OPTIONAL_VALUE,
  ...PRAGMAS_QUERY_ONLY,
]);

function unquotedUpper(token: Token | undefined): string | undefined {
  if (token === undefined) return undefined;
  if (token.kind === "word") return token.text;
  if (token.kind === "quoted" || token.kind === "string") return token.text.slice(1, -1).toUpperCase();
  return undefined;
}

interface Classification {
  kind: StatementKind;
  beginMode?: BeginMode;
  isIud?: boolean;
  isInsert?: boolean;
  isExplain?: boolean;
  changesConnectionState?: boolean;
}

const DML_VERBS = new Set(["SELECT", "VALUES", "INSERT", "REPLACE", "UPDATE", "DELETE"]);

/** The verb of a WITH statement: the first SELECT/VALUES/INSERT/... outside the CTE parentheses. */
function verbAfterWith(tokens: readonly Token[]): string | undefined {
  let depth = 0;
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === "lparen") depth++;
    else if (token.kind === "rparen") depth--;
    else if (depth === 0 && token.kind === "word" && DML_VERBS.has(token.text)) return token.text;
  }
  return undefined;
}

/** True for `CREATE TEMP ...` and `CREATE ... temp.name`, which sqld refuses. */
function createsTempObject(tokens: readonly Token[]): boolean {
  const second = tokens[1]?.text;
  if (second === "TEMP" || second === "TEMPORARY") return true;
  for (let i = 2; i + 1 < tokens.length && i < 8; i++) {
    if (tokens[i + 1]!.kind === "dot" && unquotedUpper(tokens[i]) === "TEMP") return true;
  }
  return false;
}

function classifyPragma(tokens: readonly Token[]): Classification | undefined {
  let nameIndex = 1;
  if (tokens[2]?.kind === "dot") nameIndex = 3;
  const name = unquotedUpper(tokens[nameIndex]);
  if (name === undefined) return undefined;
  const hasValue = tokens.length > nameIndex + 1 && tokens[nameIndex + 1]!.kind !== "semi";
  if (READ_PRAGMAS.has(name)) return { kind: "read", changesConnectionState: hasValue };
  if (READ_PRAGMAS_WITHOUT_VALUE.has(name)) return hasValue ? undefined : { kind: "read" };
  if (PRAGMAS_WITH_OPTIONAL_VALUE.has(name)) {
    return hasValue ? { kind: "write", changesConnectionState: true } : { kind: "read" };
  }
  if (PRAGMAS_QUERY_ONLY.has(name)) return hasValue ? undefined : { kind: "read" };
  return undefined;
}

function classify(tokens: readonly Token[]): Classification | undefined {
  const first = tokens[0];
  if (first === undefined || first.kind !== "word") return undefined;
  let verb = first.text;
  if (verb === "WITH") verb = verbAfterWith(tokens) ?? "";
  switch (verb) {
    case "EXPLAIN":
      return { kind: "read", isExplain: true };
    case "SELECT":
    case "VALUES":
      return { kind: "read" };
    case "INSERT":
    case "REPLACE":
      return { kind: "write", isIud: true, isInsert: true };
    case "UPDATE":
    case "DELETE":
      return { kind: "write", isIud: true };
    case "BEGIN": {
      const mode = tokens[1]?.text;
      if (mode === "IMMEDIATE") return { kind: "begin", beginMode: "immediate" };
      if (mode === "EXCLUSIVE") return { kind: "begin", beginMode: "exclusive" };
      if (mode === "READONLY" || (mode === "TRANSACTION" && tokens[2]?.text === "READONLY")) {
        return { kind: "begin", beginMode: "readonly" };
      }
      return { kind: "begin", beginMode: "deferred" };
    }
    case "COMMIT":
    case "END":
      return { kind: "commit" };
    case "ROLLBACK":
      return tokens.some((t) => t.kind === "word" && t.text === "TO") ? { kind: "rollback_to" } : { kind: "rollback" };
    case "SAVEPOINT":
      return { kind: "savepoint" };
    case "RELEASE":
      return { kind: "release" };
    case "CREATE": {
      if (createsTempObject(tokens)) return undefined;
      const what = tokens[1]?.text === "UNIQUE" ? "INDEX" : tokens[1]?.text;
      if (what === "TABLE" || what === "VIRTUAL" || what === "INDEX" || what === "VIEW" || what === "TRIGGER") {
        return { kind: "write" };
      }
      return undefined;
    }
    case "DROP": {
      const what = tokens[1]?.text;
      return what === "TABLE" || what === "INDEX" || what === "VIEW" || what === "TRIGGER" ? { kind: "write" } : undefined;
    }
    case "ALTER":
      return tokens[1]?.text === "TABLE" ? { kind: "write" } : undefined;
    case "REINDEX":
      return { kind: "write" };
    case "PRAGMA":
      return classifyPragma(tokens);
    default:
      // ATTACH/DETACH (would open arbitrary files), ANALYZE, VACUUM, ...: refused by sqld too.
      return undefined;
  }
}

function firstIllegalToken(tokens: readonly Token[]): Token | undefined {
  return tokens.find((t) => t.kind === "illegal");
}

function analyzeTokens(source: string, tokens: Token[]): AnalyzedStatement {
  const first = tokens[0]!;
  const last = tokens[tokens.length - 1]!;
  const classification = classify(tokens);
  if (classification === undefined) throw sqlParseError(`unsupported statement: ${source}`);
  const readonly = classification.kind !== "write";
  return {
    sql: source.slice(first.start, last.end),
    kind: classification.kind,
    beginMode: classification.beginMode ?? null,
    isIud: classification.isIud ?? false,
    isInsert: classification.isInsert ?? false,
    isExplain: classification.isExplain ?? false,
    readonly,
    changesConnectionState: classification.changesConnectionState ?? false,
    params: numberParams(tokens),
    tokens: tokens.map((t) => ({ ...t, start: t.start - first.start, end: t.end - first.start })),
  };
}

function lex(sql: string): Token[][] {
  const tokens = tokenize(sql);
  const illegal = firstIllegalToken(tokens);
  if (illegal !== undefined) {
    throw sqlParseError(`unrecognized token: ${JSON.stringify(sql.slice(illegal.start, illegal.end))}`);
  }
  return splitTokens(tokens);
}

/** Analyzes SQL that must hold exactly one statement (execute, batch steps, describe). */
export function analyzeSingle(sql: string): AnalyzedStatement {
  const statements = lex(sql);
  if (statements.length === 0) throw noStatementError();
  if (statements.length > 1) throw manyStatementsError();
  return analyzeTokens(sql, statements[0]!);
}

/** Analyzes a `sequence` (any number of statements, possibly none). */
export function analyzeSequence(sql: string, maxStatements: number): AnalyzedStatement[] {
  const statements = lex(sql);
  if (statements.length > maxStatements) {
    throw new StmtError("SQL_MANY_STATEMENTS", `SQL string contains more than ${maxStatements} statements`);
  }
  return statements.map((tokens) => analyzeTokens(sql, tokens));
}

/** Best-effort byte offset (as sqlite3_error_offset reports it) of the name an error message
 * complains about, e.g. `no such column: foo`; the binding does not expose the real offset. */
export function errorOffset(statement: AnalyzedStatement, message: string): number {
  const candidates: string[] = [];
  const trailing = /: ([^\s:]+)$/.exec(message);
  if (trailing) candidates.push(trailing[1]!.replace(/\(\)$/, "").split(".").pop()!);
  const exists = /^(?:table|index|view|trigger) (\S+) already exists$/.exec(message);
  if (exists) candidates.push(exists[1]!.replace(/^"|"$/g, ""));
  const fn = /function:? (\w+)\(\)/.exec(message);
  if (fn) candidates.push(fn[1]!);
  for (const candidate of candidates) {
    const wanted = candidate.toUpperCase();
    const hit = statement.tokens.find((t) => unquotedUpper(t) === wanted);
    if (hit) return Buffer.byteLength(statement.sql.slice(0, hit.start), "utf8");
  }
  return 0;
}
