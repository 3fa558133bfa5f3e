/**
 * The collector's database client: `@libsql/client/web` through the DB binding, like
 * lib/db.ts, but with the client's concurrency limit lifted. The limit queues operations and
 * runs a queued one when another finishes, that is, inside another request's I/O context,
 * which workerd refuses or takes for a hang. Without the queue every statement runs in the
 * context of the request that issued it. The SQL itself is plain; no ORM here.
 */
import { createClient, type Client } from "@libsql/client/web";
import type { DatabaseBindings } from "../lib/env";

const DEFAULT_URL = "http://127.0.0.1:8080";
const clients = new Map<string, Client>();

export function collectorDb(env: DatabaseBindings): Client {
  const url = env.LIBSQL_URL || DEFAULT_URL;
  const key = `${url}\u0000${env.DB ? "binding" : "global"}`;
  let client = clients.get(key);
  if (!client) {
    const binding = env.DB;
    client = createClient({
      url,
      authToken: env.LIBSQL_AUTH_TOKEN ?? undefined,
      concurrency: Number.MAX_SAFE_INTEGER,
      fetch: binding ? (input: Request | string | URL, init?: RequestInit) => binding.fetch(input, init) : undefined,
    });
    clients.set(key, client);
  }
  return client;
}
