/** Hands rows to the group commit (writer.ts) and turns its outcome into "stored" or a problem. */
import { HttpProblem } from "../lib/problem";
import type { CollectorWorkerEnv } from "./env";
import type { IngestRequest } from "./rows";
import { ingest, type IngestOutcome } from "./writer";

export type StoredOutcome = Extract<IngestOutcome, { ok: true }>;

/** Resolves once the rows are committed; throws 503 (retry) or 422 (refused by the database). */
export async function store(env: CollectorWorkerEnv, ctx: ExecutionContext, request: IngestRequest): Promise<StoredOutcome> {
  const outcome: IngestOutcome = await ingest(env, ctx, request);
  if (outcome.ok) return outcome;
  if (outcome.reason === "unavailable") {
    throw new HttpProblem(503, "The database is not answering; nothing was stored. Retry shortly.", { headers: { "retry-after": "5" } });
  }
  console.error("ingest refused by the database", outcome.detail);
  throw new HttpProblem(422, "The database refused these rows (was the site or goal just deleted?); nothing was stored.", { field: "body" });
}
