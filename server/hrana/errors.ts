/**
 * Error types of the Hrana server, named and worded as sqld (libsql-server) does, so that a
 * client sees the same failures here and on sqld/Turso.
 */

/** An error reported inside a successful pipeline response (`{"type":"error","error":...}`):
 * sqld's StmtError/BatchError/StreamResponseError. The stream stays usable. */
export class StmtError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The engine's extended result code, when the error came from SQLite. */
    readonly rawCode?: number,
  ) {
    super(message);
    this.name = "StmtError";
  }

  toProto(): { message: string; code: string } {
    return { message: this.message, code: this.code };
  }
}

/** A request that a correct client never sends (malformed JSON, unknown SQL id, bad condition
 * step...). sqld answers HTTP 400 and drops the stream; we do the same, with a JSON body. */
export class ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** Baton problems. sqld answers these with HTTP 400 and a text/plain body (no error code). */
export class BatonError extends Error {
  static invalid(): BatonError {
    return new BatonError("Received an invalid baton");
  }
  static reused(): BatonError {
    return new BatonError("Received a baton that has already been used");
  }
  static streamClosed(): BatonError {
    return new BatonError("Stream for this baton was closed");
  }
  private constructor(message: string) {
    super(message);
    this.name = "BatonError";
  }
}

/** sqld's StreamError::StreamExpired: HTTP 400 with a JSON Hrana error. */
export class StreamExpiredError extends Error {
  readonly code = "STREAM_EXPIRED";
  constructor() {
    super("The stream has expired due to inactivity");
    this.name = "StreamExpiredError";
  }
}

/** Any other HTTP-level refusal (auth, limits, routing), answered as-is. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(
      typeof body["error"] === "string"
        ? body["error"]
        : typeof body["message"] === "string"
          ? body["message"]
          : `HTTP ${status}`,
    );
    this.name = "HttpError";
  }
}

// sqld maps rusqlite's primary error codes to these names. Note SQLITE_ERROR (1) is not in
// rusqlite's ErrorCode enum, so sqld reports it as SQLITE_UNKNOWN; we keep that.
const PRIMARY_CODE_NAMES: Record<number, string> = {
  2: "SQLITE_INTERNAL",
  3: "SQLITE_PERM",
  4: "SQLITE_ABORT",
  5: "SQLITE_BUSY",
  6: "SQLITE_LOCKED",
  7: "SQLITE_NOMEM",
  8: "SQLITE_READONLY",
  9: "SQLITE_INTERRUPT",
  10: "SQLITE_IOERR",
  11: "SQLITE_CORRUPT",
  12: "SQLITE_NOTFOUND",
  13: "SQLITE_FULL",
  14: "SQLITE_CANTOPEN",
  15: "SQLITE_PROTOCOL",
  17: "SQLITE_SCHEMA",
  18: "SQLITE_TOOBIG",
  19: "SQLITE_CONSTRAINT",
  20: "SQLITE_MISMATCH",
  21: "SQLITE_MISUSE",
  22: "SQLITE_NOLFS",
  23: "SQLITE_AUTH",
  25: "SQLITE_RANGE",
  26: "SQLITE_NOTADB",
};

export const SQLITE_ERROR = 1;
export const SQLITE_BUSY = 5;
export const SQLITE_BUSY_RECOVERY = 261;

/** What the `libsql` binding throws: a SqliteError with the extended result code in rawCode. */
export interface EngineError {
  message: string;
  rawCode: number;
}

export function asEngineError(err: unknown): EngineError | undefined {
  if (err instanceof Error && typeof (err as { rawCode?: unknown }).rawCode === "number") {
    return { message: err.message, rawCode: (err as unknown as { rawCode: number }).rawCode };
  }
  return undefined;
}

export function primaryCodeName(rawCode: number): string {
  return PRIMARY_CODE_NAMES[rawCode & 0xff] ?? "SQLITE_UNKNOWN";
}

export function sqlParseError(detail: string): StmtError {
  return new StmtError("SQL_PARSE_ERROR", `SQL string could not be parsed: ${detail}`);
}

export function noStatementError(): StmtError {
  return new StmtError("SQL_NO_STATEMENT", "SQL string does not contain any statement");
}

export function manyStatementsError(): StmtError {
  return new StmtError("SQL_MANY_STATEMENTS", "SQL string contains more than one statement");
}

export function argsInvalidError(detail: string): StmtError {
  return new StmtError("ARGS_INVALID", `Arguments do not match SQL parameters: ${detail}`);
}

export function argsBothError(): StmtError {
  return new StmtError("ARGS_BOTH_POSITIONAL_AND_NAMED", "Specifying both positional and named arguments is not supported");
}

export function responseTooLargeError(): StmtError {
  return new StmtError("RESPONSE_TOO_LARGE", "Response is too large");
}

/** An error raised while *executing* a statement (sqlite3_step): sqld's SqliteError. */
export function stepError(err: EngineError): StmtError {
  return new StmtError(primaryCodeName(err.rawCode), `SQLite error: ${err.message}`, err.rawCode);
}
