/**
 * The domain layer against a real database without the whole stack: the embedded libSQL
 * server (as test/hrana starts it) over a temporary file with the project's migrations, and
 * the same drizzle handle the api worker builds. Each file gets its own server.
 */
import { createClient, type Client } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { join } from "node:path";
import { MIGRATIONS_FOLDER } from "../../cli/database";
import { callerFor, type Caller } from "../../worker/domain/access";
import { issueKey } from "../../worker/domain/apikeys";
import type { Database } from "../../worker/lib/db";
import type { Scope } from "../../worker/lib/keys";
import * as schema from "../../worker/lib/schema";
import { startTestServer, type TestServer } from "../hrana/helpers";

export interface DomainDb {
  db: Database;
  client: Client;
  server: TestServer;
  /** Rows of a table matching a site (or all rows), to show what a call wrote or left. */
  count(table: string, where?: { column: string; value: string }): Promise<number>;
  /** A caller holding a freshly issued key. */
  caller(scopes: Scope[], sites?: string[] | null): Promise<Caller>;
  close(): Promise<void>;
}

let keyCounter = 0;

export interface DomainDbOptions {
  /**
   * false: a database file on one connection with foreign-key enforcement off, as on a
   * server that does not turn it on — so cascades must be explicit to pass.
   */
  foreignKeys?: boolean;
}

export async function openDomainDb(options: DomainDbOptions = {}): Promise<DomainDb> {
  const server = await startTestServer();
  // One connection, so that the pragma below holds for every statement.
  const client =
    options.foreignKeys === false
      ? createClient({ url: `file:${join(server.dir, "no-fk.db")}`, concurrency: 1 })
      : createClient({ url: server.url });
  await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
  // After migrating: a migration that rebuilds a table turns enforcement back on at its end.
  if (options.foreignKeys === false) await client.execute("PRAGMA foreign_keys = OFF");
  const db = drizzle(client, { schema }) as unknown as Database;
  return {
    db,
    client,
    server,
    async count(table, where) {
      const rs = await client.execute(
        where
          ? { sql: `SELECT count(*) AS n FROM ${table} WHERE ${where.column} = ?`, args: [where.value] }
          : `SELECT count(*) AS n FROM ${table}`,
      );
      return Number(rs.rows[0]?.n);
    },
    async caller(scopes, sites = null) {
      const { row } = await issueKey(db, { name: `domain test ${++keyCounter}`, scopes, sites });
      return callerFor(row);
    },
    async close() {
      client.close();
      await server.dispose();
    },
  };
}

/** Runs `call` expecting it to throw an HttpProblem; returns its status, detail and extras. */
export async function problemOf(
  call: Promise<unknown>,
): Promise<{ status: number; detail: string; field?: string; [k: string]: unknown }> {
  try {
    await call;
  } catch (error) {
    const problem = error as { status?: number; detail?: string; extra?: Record<string, unknown> };
    if (typeof problem.status !== "number") throw error;
    return { status: problem.status, detail: problem.detail ?? "", ...problem.extra };
  }
  throw new Error("expected the call to be refused");
}
