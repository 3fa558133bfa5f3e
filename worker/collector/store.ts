/** Hands rows to the IngestWriter and turns its outcome into "stored" or a problem. */
import { HttpProblem } from "../lib/problem";
import type { CollectorWorkerEnv } from "./env";
import type { IngestRequest } from "./rows";
import type { IngestOutcome } from "./writer";

export type StoredOutcome = Extract<IngestOutcome, { ok: true }>;

/** Resolves once the rows are committed; throws 503 (retry) or 422 (refused by the database). */
export async function store(env: CollectorWorkerEnv, request: IngestRequest): Promise<StoredOutcome> {
  let outcome: IngestOutcome;
  try {
    outcome = await env.INGEST_WRITER.get(env.INGEST_WRITER.idFromName("writer")).ingest(request);
  } catch (error) {
    console.error("ingest writer failed", error instanceof Error ? error.message : String(error));
    outcome = { ok: false, reason: "unavailable", detail: "writer unavailable" };
  }
  if (outcome.ok) return outcome;
  if (outcome.reason === "unavailable") {
    throw new HttpProblem(503, "The database is not answering; nothing was stored. Retry shortly.", { headers: { "retry-after": "5" } });
  }
  console.error("ingest refused by the database", outcome.detail);
  throw new HttpProblem(422, "The database refused these rows (was the site or goal just deleted?); nothing was stored.", { field: "body" });
}
