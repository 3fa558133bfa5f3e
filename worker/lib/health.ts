/** `GET /healthz`: 200 only when the database answers, else 503 with Retry-After. */
import { databaseAnswers } from "./db";
import type { DatabaseBindings } from "./env";
import { problem } from "./problem";

export async function healthz(env: DatabaseBindings): Promise<Response> {
  if (await databaseAnswers(env)) {
    return Response.json({ status: "ok", database: "ok" }, { headers: { "cache-control": "no-store" } });
  }
  return problem(503, "The database is not answering.", { headers: { "retry-after": "5" } });
}
