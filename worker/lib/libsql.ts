/**
 * The workers' libSQL client: `@libsql/client/web` speaking Hrana over HTTP, with its fetch
 * routed through the `DB` service binding when there is one (workerd), else through global
 * fetch to LIBSQL_URL (wrangler dev). One client per isolate, URL and deadline.
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
import { DatabaseTimeout } from "./faults";

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

export function libsqlClient(env: DatabaseBindings, deadlineMs = REQUEST_DEADLINE_MS): Client {
  const url = env.LIBSQL_URL || DEFAULT_URL;
  const key = `${url}\u0000${env.DB ? "binding" : "global"}\u0000${deadlineMs}`;
  let client = clients.get(key);
  if (!client) {
    const binding = env.DB;
    const send: Fetch = binding ? (input, init) => binding.fetch(input, init) : (input, init) => fetch(input, init);
    client = createClient({
      url,
      authToken: env.LIBSQL_AUTH_TOKEN ?? undefined,
      // Not 0: @libsql/core reads `concurrency || 20`, so 0 would quietly mean 20.
      concurrency: Number.MAX_SAFE_INTEGER,
      fetch: withDeadline(send, deadlineMs),
    });
    clients.set(key, client);
  }
  return client;
}
