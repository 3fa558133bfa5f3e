/**
 * `GET /healthz`: 200 only when the database answers, else 503 with Retry-After. The body
 * says how fresh the reports are: the instant the publisher has published through, and how
 * far that lags behind now (normally the grace plus at most one interval, 15–25 s).
 */
import { libsqlClient } from "../lib/libsql";
import { problem } from "../lib/problem";
import { readOnly } from "../lib/read-only";
import { publisherStatus, type PublisherEnv } from "../reports/publisher";
import { PUBLICATION_SQL, publicationOf } from "../reports/publication";

export async function healthz(env: PublisherEnv, nowMs = Date.now()): Promise<Response> {
  let publication;
  try {
    publication = publicationOf(await readOnly(libsqlClient(env)).query(PUBLICATION_SQL));
  } catch {
    return problem(503, "The database is not answering.", { headers: { "retry-after": "5" } });
  }
  return Response.json(
    { status: "ok", database: "ok", publisher: publisherStatus(publication, env, nowMs) },
    { headers: { "cache-control": "no-store" } },
  );
}
