/**
 * Maps anything thrown inside a handler to a problem response. A failure to reach the
 * database is 503 with Retry-After (the client may retry; nothing was acknowledged); any
 * other unexpected error is a 500 whose detail names no internals.
 */
import { HttpProblem, problem } from "./problem";

const UNAVAILABLE_CODES = new Set(["SERVER_ERROR", "HRANA_WEBSOCKET_ERROR", "HRANA_CLOSED_ERROR", "STREAM_EXPIRED"]);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && UNAVAILABLE_CODES.has(code)) return true;
  // A refused or reset connection surfaces as a TypeError from fetch, possibly wrapped.
  const cause = (error as { cause?: unknown }).cause;
  return error instanceof TypeError || (cause instanceof Error && isDatabaseUnavailable(cause));
}

export function errorResponse(error: unknown): Response {
  if (error instanceof HttpProblem) return error.toResponse();
  if (isDatabaseUnavailable(error)) {
    return problem(503, "The database is not answering; retry shortly.", { headers: { "retry-after": "5" } });
  }
  console.error("unhandled error", error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  return problem(500, "An unexpected error occurred.");
}
