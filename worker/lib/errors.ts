/**
 * Maps anything thrown inside a handler to a problem response. A failure to reach the
 * database is 503 with Retry-After (the client may retry; nothing was acknowledged); any
 * other unexpected error is a 500 whose detail names no internals.
 */
import { HttpProblem, problem } from "./problem";

const UNAVAILABLE_CODES = new Set(["SERVER_ERROR", "HRANA_WEBSOCKET_ERROR", "HRANA_CLOSED_ERROR", "STREAM_EXPIRED"]);
/** How a refused, reset or lost connection reads in workerd and in Node's fetch. */
const CONNECTION_FAILURE = /network connection lost|fetch failed|ECONNREFUSED|ECONNRESET|connection refused|socket hang up/i;

/** True when an error, or any error it wraps (drizzle wraps the client's), is a lost database. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return true;
  if (CONNECTION_FAILURE.test(error.message)) return true;
  return isDatabaseUnavailable((error as { cause?: unknown }).cause, depth + 1);
}

export function errorResponse(error: unknown): Response {
  if (error instanceof HttpProblem) return error.toResponse();
  if (isDatabaseUnavailable(error)) {
    return problem(503, "The database is not answering; retry shortly.", { headers: { "retry-after": "5" } });
  }
  console.error("unhandled error", describeError(error));
  return problem(500, "An unexpected error occurred.");
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = (error as { cause?: unknown }).cause;
  return `${error.name}${code ? ` [${String(code)}]` : ""}: ${error.message}${cause ? ` (cause: ${describeError(cause)})` : ""}`;
}
