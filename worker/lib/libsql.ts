/**
 * The workers' libSQL client: `@libsql/client/web` speaking Hrana over HTTP, with its fetch
 * routed through the `DB` service binding when there is one (workerd), else through global
 * fetch to LIBSQL_URL (wrangler dev). One client per isolate and URL.
 *
 * The client's concurrency limit is off: it queues statements and starts a queued one when
 * another finishes, that is, inside another request's I/O context, which workerd refuses or
 * takes for a hang. Without the queue every statement runs in its own request's context.
 */
import { createClient, type Client } from "@libsql/client/web";
import type { DatabaseBindings } from "./env";

const DEFAULT_URL = "http://127.0.0.1:8080";
const clients = new Map<string, Client>();

export function libsqlClient(env: DatabaseBindings): Client {
  const url = env.LIBSQL_URL || DEFAULT_URL;
  const key = `${url}\u0000${env.DB ? "binding" : "global"}`;
  let client = clients.get(key);
  if (!client) {
    const binding = env.DB;
    client = createClient({
      url,
      authToken: env.LIBSQL_AUTH_TOKEN ?? undefined,
      // Not 0: @libsql/core reads `concurrency || 20`, so 0 would quietly mean 20.
      concurrency: Number.MAX_SAFE_INTEGER,
      fetch: binding ? (input: Request | string | URL, init?: RequestInit) => binding.fetch(input, init) : undefined,
    });
    clients.set(key, client);
  }
  return client;
}
