/**
 * What the CLI prints. A result: JSON with --json, else aligned human text, on stdout. A
 * failure: every error any command raises goes through `describeFailure`, the one formatter,
 * and out on stderr — `wren: MESSAGE`, or with --json one JSON object
 * `{"error": MESSAGE, "code": CODE, "exit_code": N, …}` — with exit code 1 (2: a usage error).
 * No error shows a secret, a hash or SQL: a failed query is told by its cause (never its text
 * or parameters), and whatever looks like a key, a webhook secret, a token or a hash is masked.
 */
import { HttpProblem } from "../worker/lib/problem";

export function print(json: boolean, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return "(none)";
  const cells = rows.map((row) => columns.map((c) => formatCell(row[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(columns), ...cells.map(line)].join("\n");
}

function formatCell(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (Array.isArray(value)) return value.join(",");
  return String(value);
}

/**
 * A user-facing failure: printed without a stack trace, exit code 1 (2 for usage). `code` is
 * the stable word a script branches on (JSON `code`); `details` go into the JSON object.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
    readonly code = exitCode === 2 ? "usage" : "failed",
    readonly details: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface Failure {
  message: string;
  code: string;
  exitCode: number;
  details: Record<string, string>;
}

/** Masks of what must never reach a terminal or a log: keys and their prefixes, webhook secrets, s2s tokens, hashes. */
const MASKS: [RegExp, string][] = [
  [/(?<![\w/.-])wren_[A-Za-z0-9_-]{6,}/g, "wren_…"],
  [/\bwhsec_[A-Za-z0-9+/=]+/g, "whsec_…"],
  [/\b(site_[A-Za-z0-9]{16})\.[A-Za-z0-9_-]{16,}/g, "$1.…"],
  [/\b[0-9a-f]{32,}\b/gi, "…"],
  [/([?&](?:authToken|auth_token|token)=)[^&\s]+/gi, "$1…"],
  [/Failed query:[\s\S]*/g, "a database query failed"],
];

export function redact(text: string): string {
  return MASKS.reduce((out, [pattern, mask]) => out.replace(pattern, mask), text);
}

/** A drizzle query failure: its message carries the SQL and every parameter, so only its cause is told. */
function isQueryError(error: unknown): error is Error & { cause?: unknown } {
  return error instanceof Error && ("params" in error || error.message.startsWith("Failed query:"));
}

const PROBLEM_CODES: Record<number, string> = { 400: "refused", 404: "not_found", 409: "conflict", 422: "refused" };

function describe(error: unknown): Failure {
  if (error instanceof CliError)
    return { message: error.message, code: error.code, exitCode: error.exitCode, details: error.details };
  if (error instanceof HttpProblem) {
    const field: Record<string, string> = typeof error.extra.field === "string" ? { field: error.extra.field } : {};
    return { message: error.detail, code: PROBLEM_CODES[error.status] ?? "failed", exitCode: 1, details: field };
  }
  if (isQueryError(error)) {
    const cause = error.cause instanceof Error ? error.cause.message : "unknown cause";
    if (/no such table/i.test(cause)) {
      return {
        message: "the database is not migrated: run `npx wren migrate` (or `npm start`)",
        code: "not_migrated",
        exitCode: 1,
        details: {},
      };
    }
    return { message: `database error: ${cause}`, code: "database", exitCode: 1, details: {} };
  }
  return { message: error instanceof Error ? error.message : String(error), code: "failed", exitCode: 1, details: {} };
}

/** The one formatter every failure goes through (module comment). */
export function describeFailure(error: unknown): Failure {
  const failure = describe(error);
  return {
    ...failure,
    message: redact(failure.message),
    details: Object.fromEntries(Object.entries(failure.details).map(([k, v]) => [k, redact(v)])),
  };
}

/** Prints a failure on stderr: human text, or with --json one JSON object. */
export function printFailure(failure: Failure, json: boolean): void {
  process.stderr.write(
    json
      ? `${JSON.stringify({ error: failure.message, code: failure.code, exit_code: failure.exitCode, ...failure.details })}\n`
      : `wren: ${failure.message}\n`,
  );
}
