/**
 * The workers' libSQL clients: `@libsql/client/web` speaking Hrana over HTTP, with its fetch
 * routed through a service binding when there is one (workerd), else through global fetch to
 * the URL (wrangler dev). One client per isolate, URL and deadline.
 *
 * Two of them, for a scale-out on sqld (docs/operations.md, "Scale-out"):
 * - libsqlClient: LIBSQL_URL (binding `DB`), the primary. Every write goes there, and every read
 *   that decides something (a key, a session to attach, a salt, a lease), since a replica may
 *   not have the write another instance made a moment ago.
 * - readerClient: LIBSQL_READ_URL (binding `DB_READ`), a replica near this instance, or the
 *   primary when unset. Only the reports' read-only handle uses it: they read published cells,
 *   and the publication they name (published_through) is read from the same copy.
 *
 * Calls refused before they ran — a writer that waited too long for the lock (SQLITE_BUSY, which
 * sqld answers under contention), a connection refused — are retried here with a short backoff,
 * for at most RETRY_BUDGET_MS: nothing of theirs was written.
 *
 * Every call has a deadline: a database that stops answering (a stopped process, a hung disk)
 * would otherwise hold every request forever. Past it the call fails with DatabaseTimeout, which
 * answers 503 + Retry-After (lib/errors.ts); the next call opens a new HTTP request, so service
 * resumes by itself when the database does.
 *
 * The client's concurrency limit is off: it queues statements and starts a queued one when
 * another finishes, that is, inside another request's I/O context, which workerd refuses or
 * takes for a hang. Without the queue every statement runs in its own request's context.
 */
import { createClient, type Client } from "@libsql/client/web";
import type { DatabaseBindings } from "./env";
import { DatabaseTimeout, isRetryableUnsent } from "./faults";

const DEFAULT_URL = "http://127.0.0.1:8080";
/** A request's calls: long enough for the heaviest report (p95 ≤ 0.5 s at 10 M events), short enough to answer "retry". */
export const REQUEST_DEADLINE_MS = 5_000;
/** Background work (publishing, alert evaluation, retention) folds more rows per call and has no one waiting. */
export const BACKGROUND_DEADLINE_MS = 60_000;
/** /healthz answers a load balancer, which gives up after a few seconds. */
export const HEALTH_DEADLINE_MS = 2_000;

const clients = new Map<string, Client>();

type Fetch = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/** `send` with a deadline on the whole exchange (the body too: the signal stays armed while it streams). */
export function withDeadline(send: Fetch, ms: number): Fetch {
  return async (input, init) => {
    const deadline = AbortSignal.timeout(ms);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    try {
      return await send(input, { ...init, signal });
    } catch (error) {
      if (deadline.aborted) throw new DatabaseTimeout(ms);
      throw error;
    }
  };
}

/** Waits before each retry of a call that was refused before it ran (busy, connection refused); jittered ±50 %. */
export const RETRY_DELAYS_MS = [25, 75, 200, 400];
/** No retry starts this long after the first attempt: a caller gets its 503 within seconds. */
export const RETRY_BUDGET_MS = 1_500;

/** Runs `call`, again after each RETRY_DELAYS_MS pause while it fails in a way that wrote nothing. */
export async function retryUnsent<T>(call: () => Promise<T>, delays: readonly number[] = RETRY_DELAYS_MS): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const delay = delays[attempt];
      if (delay === undefined || Date.now() - started > RETRY_BUDGET_MS || !isRetryableUnsent(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random())));
    }
  }
}

/** `client` with execute() and batch() retried by retryUnsent; the rest as it is. */
function retrying(client: Client): Client {
  const execute: Client["execute"] = ((...args: Parameters<Client["execute"]>) =>
    retryUnsent(() => (client.execute as (...a: unknown[]) => ReturnType<Client["execute"]>)(...args))) as Client["execute"];
  const batch: Client["batch"] = (statements, mode) => retryUnsent(() => client.batch(statements, mode));
  return new Proxy(client, {
    get(target, property) {
      if (property === "execute") return execute;
      if (property === "batch") return batch;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function clientFor(url: string, binding: Fetcher | undefined, authToken: string | null | undefined, deadlineMs: number): Client {
  const key = `${url}\u0000${binding ? "binding" : "global"}\u0000${deadlineMs}`;
  let client = clients.get(key);
  if (!client) {
    const send: Fetch = binding ? (input, init) => binding.fetch(input, init) : (input, init) => fetch(input, init);
    client = retrying(
      createClient({
        url,
        authToken: authToken ?? undefined,
        // Not 0: @libsql/core reads `concurrency || 20`, so 0 would quietly mean 20.
        concurrency: Number.MAX_SAFE_INTEGER,
        fetch: withDeadline(send, deadlineMs),
      }),
    );
    clients.set(key, client);
  }
  return client;
}

/** The primary: writes and the reads that decide them. */
export function libsqlClient(env: DatabaseBindings, deadlineMs = REQUEST_DEADLINE_MS): Client {
  return clientFor(env.LIBSQL_URL || DEFAULT_URL, env.DB, env.LIBSQL_AUTH_TOKEN, deadlineMs);
}

/** The copy reports read: LIBSQL_READ_URL's replica, else the primary. */
export function readerClient(env: DatabaseBindings, deadlineMs = REQUEST_DEADLINE_MS): Client {
  if (!env.LIBSQL_READ_URL) return libsqlClient(env, deadlineMs);
  return clientFor(env.LIBSQL_READ_URL, env.DB_READ, env.LIBSQL_AUTH_TOKEN, deadlineMs);
}
