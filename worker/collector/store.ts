/** Hands rows to the group commit (writer.ts) and turns its outcome into "stored" or a problem. */
import { RETRY_AFTER_STORAGE_S, RETRY_AFTER_UNAVAILABLE_S } from "../lib/errors";
import { noteStorageFault } from "../lib/faults";
import { HttpProblem } from "../lib/problem";
import type { CollectorWorkerEnv } from "./env";
import type { IngestRequest } from "./rows";
import { ingest, type IngestOutcome } from "./writer";

export type StoredOutcome = Extract<IngestOutcome, { ok: true }>;

/**
 * What a 503 may promise. "Nothing was stored" only when that is certain (the database refused
 * the write, or it was never sent); after a deadline the commit may still have landed, and the
 * client's retry is safe only with the same event `id` (an id is stored once).
 */
function unstoredDetail(outcome: Extract<IngestOutcome, { ok: false }>): string {
  const retry = outcome.maybeStored
    ? "The events may have been stored: retry with the same `id` on each event, which is never stored twice."
    : "Nothing was stored; retry later.";
  return outcome.reason === "storage"
    ? `The server cannot write to its storage right now. ${retry}`
    : `The database did not confirm the write in time. ${retry}`;
}

/** Resolves once the rows are committed; throws 503 (retry), 422 (refused by the database) or 500. */
export async function store(env: CollectorWorkerEnv, ctx: ExecutionContext, request: IngestRequest): Promise<StoredOutcome> {
  const outcome: IngestOutcome = await ingest(env, ctx, request);
  if (outcome.ok) return outcome;
  if (outcome.reason === "storage" || outcome.reason === "unavailable") {
    if (outcome.fault?.kind === "storage") noteStorageFault(outcome.fault, "the collector's group commit");
    const retryAfter = outcome.reason === "storage" ? RETRY_AFTER_STORAGE_S : RETRY_AFTER_UNAVAILABLE_S;
    throw new HttpProblem(503, unstoredDetail(outcome), { headers: { "retry-after": String(retryAfter) } });
  }
  if (outcome.reason === "rejected") {
    console.error("ingest refused by the database", outcome.detail);
    throw new HttpProblem(422, "The database refused these rows (was the site or goal just deleted?); nothing was stored.", { field: "body" });
  }
  console.error("ingest failed", outcome.detail);
  // Not "nothing was stored": a fault after the commit would make that untrue.
  throw new HttpProblem(500, "An unexpected error occurred.");
}
