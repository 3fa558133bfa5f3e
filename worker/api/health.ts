/**
 * `GET /healthz`: 200 only when the database answers and both stores still write, else 503 with
 * Retry-After and what failed. The write probe rewrites one row of `health_probe` and one value
 * in the Durable Object storage, at most every PROBE_INTERVAL_MS per isolate (a load balancer's
 * polling costs no write each). A storage fault a request of this isolate met since the last
 * probe that passed counts too: a nearly full disk can pass a one-row write and fail a batch.
 *
 * On an instance whose reports read a replica (LIBSQL_READ_URL), the publication is read there
 * (so the lag includes the replica's) and the primary must answer a read too, on every call: a
 * primary gone away must fail the check at once, not when the cached write probe runs again.
 *
 * The body also says how fresh the reports are (the instant the publisher has published
 * through, and the lag behind now), and `instance`: the id `wren start` gave this start, so
 * that it probes its own workerd and never an orphan of an earlier start on the same port.
 */
import { HEALTH_DEADLINE_MS, libsqlClient, readerClient } from "../lib/libsql";
import { lastStorageFault, noteStorageFault, serverFault, type ServerFault } from "../lib/faults";
import { problem } from "../lib/problem";
import { readOnly } from "../lib/read-only";
import { publisherStatus } from "../reports/publisher";
import { PUBLICATION_SQL, publicationOf } from "../reports/publication";
import { RETRY_AFTER_STORAGE_S, RETRY_AFTER_UNAVAILABLE_S } from "../lib/errors";
import type { ApiEnv } from "./env";
import { now as serviceNow } from "../lib/clock";

const PROBE_INTERVAL_MS = 5_000;

interface Probe {
  at: number;
  fault: ServerFault | null;
}
let lastProbe: Probe | null = null;

async function writeProbe(env: ApiEnv, nowMs: number): Promise<Probe> {
  if (lastProbe && nowMs - lastProbe.at < PROBE_INTERVAL_MS) return lastProbe;
  let fault: ServerFault | null = null;
  try {
    await libsqlClient(env, HEALTH_DEADLINE_MS).execute({
      sql: "INSERT INTO health_probe (id, checked_at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at",
      args: [nowMs],
    });
    const publisher = env.PUBLISHER;
    if (publisher) await publisher.get(publisher.idFromName("publisher")).probeStorage(nowMs);
  } catch (error) {
    fault = serverFault(error) ?? { kind: "storage", code: "PROBE_FAILED", cause: "the write probe failed" };
    if (fault.kind === "storage") noteStorageFault(fault, "the /healthz write probe", nowMs);
  }
  lastProbe = { at: nowMs, fault };
  return lastProbe;
}

/** What fails the write check: the probe's own fault, else a request's storage fault since the probe passed. */
async function writeFault(env: ApiEnv, nowMs: number): Promise<ServerFault | null> {
  const probe = await writeProbe(env, nowMs);
  if (probe.fault) return probe.fault;
  const seen = lastStorageFault();
  return seen && seen.at > probe.at ? seen.fault : null;
}

export async function healthz(env: ApiEnv, nowMs = Date.now()): Promise<Response> {
  const instance = env.WREN_INSTANCE ?? null;
  let publication;
  const notAnswering = (which: string) =>
    problem(503, `The ${which} is not answering.`, {
      headers: { "retry-after": String(RETRY_AFTER_UNAVAILABLE_S) },
      database: "not answering",
      instance,
    });
  try {
    publication = publicationOf(await readOnly(readerClient(env, HEALTH_DEADLINE_MS)).query(PUBLICATION_SQL));
  } catch {
    return notAnswering(env.LIBSQL_READ_URL ? "database replica reports read" : "database");
  }
  if (env.LIBSQL_READ_URL) {
    try {
      await libsqlClient(env, HEALTH_DEADLINE_MS).execute("SELECT 1");
    } catch {
      return notAnswering("primary database");
    }
  }
  const fault = await writeFault(env, nowMs);
  if (fault) {
    const storage = fault.kind === "storage" ? `${fault.code}: ${fault.cause}` : "not answering writes";
    return problem(503, `The database answers but cannot write (${storage}).`, {
      headers: { "retry-after": String(fault.kind === "storage" ? RETRY_AFTER_STORAGE_S : RETRY_AFTER_UNAVAILABLE_S) },
      database: "ok",
      storage,
      instance,
    });
  }
  return Response.json(
    { status: "ok", database: "ok", storage: "ok", instance, publisher: publisherStatus(publication, env, serviceNow()) },
    { headers: { "cache-control": "no-store" } },
  );
}
