/**
 * The workers' database handle: `@libsql/client/web` speaking Hrana over HTTP, with its fetch
 * routed through the `DB` service binding when there is one (workerd), else through the
 * global fetch to LIBSQL_URL (wrangler dev, tests). One client per isolate and URL.
 */
import { createClient, type Client } from "@libsql/client/web";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { drizzle } from "drizzle-orm/libsql/web";
import * as schema from "./schema";
import type { DatabaseBindings } from "./env";

export type Database = LibSQLDatabase<typeof schema> & { $client: Client };

const DEFAULT_URL = "http://127.0.0.1:8080";
const cache = new Map<string, Database>();

export function database(env: DatabaseBindings): Database {
  const url = env.LIBSQL_URL || DEFAULT_URL;
  const cacheKey = `${url}\u0000${env.DB ? "binding" : "global"}`;
  let db = cache.get(cacheKey);
  if (!db) {
    const binding = env.DB;
    const client = createClient({
      url,
      authToken: env.LIBSQL_AUTH_TOKEN ?? undefined,
      fetch: binding ? (input: Request | string | URL, init?: RequestInit) => binding.fetch(input, init) : undefined,
    });
    db = drizzle(client, { schema }) as Database;
    cache.set(cacheKey, db);
  }
  return db;
}

/** True when the database answers a trivial query. */
export async function databaseAnswers(env: DatabaseBindings): Promise<boolean> {
  try {
    const rs = await database(env).$client.execute("SELECT 1 AS ok");
    return Number(rs.rows[0]?.ok) === 1;
  } catch {
    return false;
  }
}
