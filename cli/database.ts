/**
 * The CLI's database connection. With LIBSQL_URL it talks Hrana to that server (sqld, Turso,
 * or a running Wren's embedded server); without, it opens the data folder's file directly
 * with the same libSQL engine, so commands work whether or not Wren is running (WAL lets
 * both share the file).
 */
import { createClient, type Client } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { join } from "node:path";
import type { Database } from "../worker/lib/db";
import * as schema from "../worker/lib/schema";
import { secureDataFolder } from "./data-folder";
import { ROOT } from "./paths";
import { databaseFile, type Settings } from "./settings";

export const MIGRATIONS_FOLDER = join(ROOT, "migrations");

/** A Hrana server to talk to instead of LIBSQL_URL (`wren start`'s embedded one). */
export interface DatabaseServer {
  url: string;
  authToken: string | undefined;
}

export async function openDatabase(settings: Settings, server?: DatabaseServer): Promise<Database> {
  let client: Client;
  const url = server?.url ?? settings.libsqlUrl;
  if (url) {
    client = createClient({ url, authToken: server ? server.authToken : settings.libsqlAuthToken });
  } else {
    secureDataFolder(settings.dataDir);
    client = createClient({ url: `file:${databaseFile(settings)}` });
    // Wait for a running server's writer instead of failing with SQLITE_BUSY.
    await client.execute("PRAGMA busy_timeout = 10000");
  }
  return drizzle(client, { schema }) as unknown as Database;
}

/** Applies the SQL migrations drizzle-kit generated; already-applied ones are skipped. */
export async function applyMigrations(db: Database): Promise<void> {
  await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
}
