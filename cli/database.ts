/**
 * The CLI's database connection. With LIBSQL_URL it talks Hrana to that server (sqld, Turso,
 * or a running Wren's embedded server); without, it opens the data folder's file directly
 * with the same libSQL engine, so commands work whether or not Wren is running (WAL lets
 * both share the file).
 */
import { createClient, type Client } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "../worker/lib/db";
import * as schema from "../worker/lib/schema";
import { ROOT } from "./paths";
import { databaseFile, type Settings } from "./settings";

export const MIGRATIONS_FOLDER = join(ROOT, "migrations");

export async function openDatabase(settings: Settings, url = settings.libsqlUrl): Promise<Database> {
  let client: Client;
  if (url) {
    client = createClient({ url, authToken: settings.libsqlAuthToken });
  } else {
    mkdirSync(settings.dataDir, { recursive: true, mode: 0o700 });
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
