/**
 * The api worker's drizzle handle over the primary's libSQL client (lib/libsql.ts), with
 * `$reader`: the read-only handle over the copy reports read (the replica, when configured).
 */
import type { Client } from "@libsql/client/web";
import type { LibSQLDatabase } from "drizzle-orm/libsql";
import { drizzle } from "drizzle-orm/libsql/web";
import * as schema from "./schema";
import type { DatabaseBindings } from "./env";
import { libsqlClient, readerClient } from "./libsql";
import { readOnly, type ReadOnlyDatabase } from "./read-only";

export type Database = LibSQLDatabase<typeof schema> & { $client: Client; $reader: ReadOnlyDatabase };

const databases = new WeakMap<Client, Database>();

/** `deadlineMs`: see lib/libsql.ts (a request's by default). */
export function database(env: DatabaseBindings, deadlineMs?: number): Database {
  const client = libsqlClient(env, deadlineMs);
  let db = databases.get(client);
  if (!db) {
    db = Object.assign(drizzle(client, { schema }), { $reader: readOnly(readerClient(env, deadlineMs)) }) as Database;
    databases.set(client, db);
  }
  return db;
}

/**
 * A query built once per database handle and then only executed: drizzle builds SQL from
 * its query objects on every call otherwise, which is most of a hot request's CPU.
 */
export function preparedQuery<Q>(build: (db: Database) => Q): (db: Database) => Q {
  const built = new WeakMap<Database, Q>();
  return (db) => {
    let query = built.get(db);
    if (query === undefined) {
      query = build(db);
      built.set(db, query);
    }
    return query;
  };
}
