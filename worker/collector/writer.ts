/**
 * Group commit inside the collector's isolate: concurrent requests queue their rows, and
 * one of them (the leader) stores everything queued in one transaction. Each request is
 * answered only after the transaction holding its rows has committed, so a 202 built on it
 * means the rows are in the database.
 *
 * How this is safe in workerd, where every request has its own I/O context:
 * - The leader does the database I/O in its own context, under `ctx.waitUntil`, so a client
 *   that hangs up does not cancel a commit other requests are waiting for.
 * - A waiting request keeps a timer of its own pending: workerd resolves a promise settled by
 *   another request into the waiter's context, but would take a wait with nothing pending
 *   for a hung request. The timer is also the bound on the wait (then 503, nothing promised).
 * - Leadership is handed, when a flush ends, to the first request still queued, which then
 *   flushes in its own context: no request ever waits on more than its own batch.
 *
 * A Durable Object would serialise this too, but its per-call overhead was most of a
 * beacon's cost in workerd (see docs/collector.md, "Throughput").
 */
import type { InStatement, ResultSet } from "@libsql/client/web";
import { libsqlClient } from "../lib/libsql";
import { describeError } from "../lib/errors";
import { serverFault, type FaultKind, type ServerFault } from "../lib/faults";
import { REQUEST_DEADLINE_MS } from "../lib/libsql";
import type { CollectorWorkerEnv } from "./env";
import { tokenVersionsStatement, writeStatements, type IngestRequest } from "./rows";
import { EVENT_WINDOW_MS } from "./window";
import { now as serviceNow } from "../lib/clock";

export type IngestOutcome =
  | {
      ok: true;
      /** Keyed conversions stored by this request (the rest were already stored). */
      storedKeys: string[];
      /** Stored conversions that were attached to a session, by key. */
      attachedKeys: string[];
      /** Current token version per site asked for in `tokenSites` (absent: no such site). */
      tokenVersions: Record<string, number>;
    }
  | {
      ok: false;
      /** A server fault (503: retry), a refusal of these rows (422), or a bug (500). */
      reason: FaultKind | "rejected" | "internal";
      /** False only when the rows certainly did not commit: refused, or never sent. */
      maybeStored: boolean;
      fault?: ServerFault;
      detail: string;
    };

type Turn = { kind: "done"; outcome: IngestOutcome } | { kind: "lead" };

interface Pending {
  request: IngestRequest;
  /** Set synchronously with `settle`, so a waiter whose timer fired still sees its turn. */
  turn: Turn | null;
  settle(turn: Turn): void;
}

/** Rows per transaction; more wait for the next flush. */
const MAX_ROWS_PER_FLUSH = 4_000;
/**
 * The longest a request waits for its batch; then 503, and nothing was promised. Longer than a
 * commit's deadline (lib/libsql.ts), so that a waiter normally hears its batch's real outcome.
 */
const MAX_WAIT_MS = REQUEST_DEADLINE_MS + 5_000;

/**
 * Flushes that may be in flight at once. The database commits one after the other anyway;
 * two in flight only made batches smaller on the bench (docs/collector.md), so one.
 */
const MAX_FLUSHES_IN_FLIGHT = 1;

const queue: Pending[] = [];
/** Flushes in flight, by number, with when they started; one older than MAX_WAIT_MS is given up on. */
const inFlight = new Map<number, number>();
let flushNumbers = 0;
/** Leaderships handed to queued requests that have not started their flush yet. */
let handedOver = 0;

function rowCount(r: IngestRequest): number {
  return r.events.length + r.vitals.length + r.sessions.length + r.beacons.length + r.conversions.length + r.propDrops.length + 1;
}

function busy(): number {
  return inFlight.size + handedOver;
}

/** Gives a free flush slot to the first queued request that has no turn yet. */
function handOver(): void {
  while (busy() < MAX_FLUSHES_IN_FLIGHT) {
    const next = queue.find((p) => p.turn === null);
    if (!next) return;
    handedOver++;
    next.settle({ kind: "lead" });
  }
}

/** Stores the rows with those of concurrent requests; resolves after the commit. */
export async function ingest(env: CollectorWorkerEnv, ctx: ExecutionContext, request: IngestRequest): Promise<IngestOutcome> {
  let settle!: (turn: Turn) => void;
  const turnPromise = new Promise<Turn>((resolve) => (settle = resolve));
  const me: Pending = { request, turn: null, settle: (turn) => ((me.turn = turn), settle(turn)) };
  queue.push(me);
  if (busy() < MAX_FLUSHES_IN_FLIGHT) return lead(env, ctx, me);

  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), MAX_WAIT_MS)));
  const turn = (await Promise.race([turnPromise, timedOut])) ?? me.turn;
  clearTimeout(timer);
  if (turn?.kind === "done") return turn.outcome;
  if (turn?.kind === "lead") return lead(env, ctx, me);

  // Nothing came: leave the queue, give up on flushes that are stuck, let the next ones go.
  const index = queue.indexOf(me);
  if (index >= 0) queue.splice(index, 1);
  for (const [number, startedAt] of inFlight) if (Date.now() - startedAt >= MAX_WAIT_MS) inFlight.delete(number);
  handOver();
  return { ok: false, reason: "unavailable", maybeStored: true, detail: "timed out waiting for the database" };
}

/** Flushes `me` and what is queued behind it, in this request's context. */
function lead(env: CollectorWorkerEnv, ctx: ExecutionContext, me: Pending): Promise<IngestOutcome> {
  if (me.turn?.kind === "lead") handedOver--;
  const number = ++flushNumbers;
  inFlight.set(number, Date.now());
  // This request first, then every queued one not handed a flush of its own, up to the cap.
  const at = queue.indexOf(me);
  if (at >= 0) queue.splice(at, 1);
  const batch: Pending[] = [me];
  let rows = rowCount(me.request);
  for (let i = 0; i < queue.length && rows < MAX_ROWS_PER_FLUSH; ) {
    const next = queue[i]!;
    if (next.turn === null && rows + rowCount(next.request) <= MAX_ROWS_PER_FLUSH) {
      queue.splice(i, 1);
      batch.push(next);
      rows += rowCount(next.request);
    } else i++;
  }

  const work = (async () => {
    try {
      const outcomes = await flush(env, batch.map((p) => p.request));
      batch.forEach((p, i) => p !== me && p.settle({ kind: "done", outcome: outcomes[i]! }));
      const mine = outcomes[batch.indexOf(me)]!;
      if (!mine.ok && mine.fault) failQueued(mine);
      return mine;
    } finally {
      inFlight.delete(number);
      handOver();
    }
  })();
  // Keep the commit alive if this request's client goes away: others wait on it.
  ctx.waitUntil(work.catch(() => undefined));
  return work;
}

/**
 * The database just failed a commit for a server fault: the requests still queued would only
 * wait a deadline each to fail the same way, so they fail now. They were never sent: nothing of
 * theirs is stored, and their clients hear so at once instead of after a queue of deadlines.
 */
function failQueued(outcome: Extract<IngestOutcome, { ok: false }>): void {
  for (const pending of queue.filter((p) => p.turn === null)) {
    queue.splice(queue.indexOf(pending), 1);
    pending.settle({ kind: "done", outcome: { ...outcome, maybeStored: false } });
  }
}

/** Commits the requests' rows in one transaction; on a refusal, each request alone. */
async function flush(env: CollectorWorkerEnv, requests: IngestRequest[]): Promise<IngestOutcome[]> {
  try {
    return await commit(env, requests);
  } catch (error) {
    if (serverFault(error) || requests.length === 1) return requests.map(() => failure(error));
    // Something in the batch was refused: find whose, so one bad request costs no one else.
    const outcomes: IngestOutcome[] = [];
    for (const request of requests) {
      try {
        outcomes.push((await commit(env, [request]))[0]!);
      } catch (single) {
        outcomes.push(failure(single));
      }
    }
    return outcomes;
  }
}

/** One transaction for the requests' rows; the outcome of each, in order. */
async function commit(env: CollectorWorkerEnv, requests: IngestRequest[]): Promise<IngestOutcome[]> {
  const now = serviceNow();
  const guard = tokenVersionsStatement(requests.flatMap((r) => r.tokenSites));
  const writes = writeStatements(requests, now, EVENT_WINDOW_MS);
  const statements: InStatement[] = guard ? [guard, ...writes] : writes;
  if (statements.length === 0) return requests.map(() => success([], [], {}));
  const results = await libsqlClient(env).batch(statements, "write");

  const tokenVersions: Record<string, number> = {};
  if (guard) for (const row of results[0]!.rows) tokenVersions[String(row.id)] = Number(row.token_version);
  const stored = new Map<string, string | null>();
  for (const result of conversionResults(results, writes, guard !== null)) {
    for (const row of result.rows) {
      if (row.event_key !== null) stored.set(keyOf(String(row.site_id), String(row.event_key)), row.session_id === null ? null : String(row.session_id));
    }
  }
  // The first request (in the order of the rows) to carry a key is the one that stored it.
  const claimed = new Set<string>();
  return requests.map((r) => {
    const storedKeys: string[] = [];
    const attachedKeys: string[] = [];
    for (const c of r.conversions) {
      if (c.key === null) continue;
      const key = keyOf(c.siteId, c.key);
      if (claimed.has(key) || !stored.has(key)) continue;
      claimed.add(key);
      storedKeys.push(c.key);
      if (stored.get(key) !== null) attachedKeys.push(c.key);
    }
    const versions: Record<string, number> = {};
    for (const site of r.tokenSites) if (site in tokenVersions) versions[site] = tokenVersions[site]!;
    return success(storedKeys, attachedKeys, versions);
  });
}

function keyOf(siteId: string, eventKey: string): string {
  return `${siteId}\u0000${eventKey}`;
}

function conversionResults(results: ResultSet[], writes: InStatement[], guarded: boolean): ResultSet[] {
  const offset = guarded ? 1 : 0;
  return writes
    .map((statement, i) => ({ statement, result: results[i + offset]! }))
    .filter(({ statement }) => typeof statement !== "string" && statement.sql.startsWith("INSERT INTO conversions"))
    .map(({ result }) => result);
}

function success(storedKeys: string[], attachedKeys: string[], tokenVersions: Record<string, number>): IngestOutcome {
  return { ok: true, storedKeys, attachedKeys, tokenVersions };
}

function failure(error: unknown): IngestOutcome {
  const detail = describeError(error);
  const fault = serverFault(error);
  // A storage fault is a refused write: the transaction rolled back. Silence from the database
  // is not: the commit may have landed after the deadline.
  if (fault) return { ok: false, reason: fault.kind, fault, maybeStored: fault.kind === "unavailable", detail };
  // A refusal rolled the transaction back; anything else may have come after the commit.
  const refused = isConstraintRefusal(error);
  return { ok: false, reason: refused ? "rejected" : "internal", maybeStored: !refused, detail };
}

/** SQLite refused the rows themselves (a foreign key to a site or goal deleted meanwhile). */
function isConstraintRefusal(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && code.startsWith("SQLITE_CONSTRAINT")) return true;
  return isConstraintRefusal((error as { cause?: unknown }).cause, depth + 1);
}
