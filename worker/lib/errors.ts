/**
 * Maps anything thrown inside a handler to a problem response. A server fault (lib/faults.ts)
 * is 503 with Retry-After: the database not answering, or its storage refusing to write; the
 * client may retry, and with the same event `id` a retry never counts twice. Any other
 * unexpected error is a 500 whose detail names no internals, logged without the statement's
 * parameters (they can hold key hashes and names).
 */
import { noteStorageFault, serverFault } from "./faults";
import { HttpProblem, problem } from "./problem";

export { isDatabaseUnavailable } from "./faults";

/** Seconds a client should wait: a stalled database is usually back soon, a full disk is not. */
export const RETRY_AFTER_UNAVAILABLE_S = 5;
export const RETRY_AFTER_STORAGE_S = 30;

export function errorResponse(error: unknown, where = "a request"): Response {
  if (error instanceof HttpProblem) return error.toResponse();
  const fault = serverFault(error);
  if (fault?.kind === "storage") {
    noteStorageFault(fault, where);
    return problem(503, "The server cannot write to its storage right now; retry later.", {
      headers: { "retry-after": String(RETRY_AFTER_STORAGE_S) },
    });
  }
  if (fault?.kind === "unavailable") {
    return problem(503, "The database is not answering; retry shortly.", {
      headers: { "retry-after": String(RETRY_AFTER_UNAVAILABLE_S) },
    });
  }
  console.error("unhandled error", describeError(error));
  return problem(500, "An unexpected error occurred.");
}

/** An error and its causes for the log: names, codes and messages, never a query's parameters. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = (error as { cause?: unknown }).cause;
  // drizzle's "Failed query: <sql>\nparams: <values>": the values stay out of the log.
  const message = error.message.replace(/\nparams:[\s\S]*$/, "");
  return `${error.name}${code ? ` [${String(code)}]` : ""}: ${message}${cause ? ` (cause: ${describeError(cause)})` : ""}`;
}
