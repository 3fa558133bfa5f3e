/**
 * The CLI's database connection. With LIBSQL_URL it talks Hrana to that server (sqld, Turso,
 * or a running Wren's embedded server); without, it opens the data folder's file directly
 * with the same libSQL engine, so commands work whether or not Wren is running (WAL lets
 * both share the file).
 *
 * Only `wren migrate`, `wren start` and `wren db` make a database. Every other command opens one that
 * exists and is migrated to this version's latest migration, and otherwise stops before its
 * first query, saying which command makes it — creating nothing (not even the data folder).
 */
import { createClient, type Client } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { migrate } from "drizzle-orm/libsql/migrator";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "../worker/lib/db";
import * as schema from "../worker/lib/schema";
import { secureDataFolder } from "./data-folder";
import { CliError, redact } from "./output";
import { ROOT } from "./paths";
import { databaseFile, type Settings } from "./settings";

export const MIGRATIONS_FOLDER = join(ROOT, "migrations");

/** The table drizzle's migrator records applied migrations in. */
export const MIGRATIONS_TABLE = "__drizzle_migrations";

const MAKE_IT = "run `npx wren migrate` or `npm start`";

/** A Hrana server to talk to instead of LIBSQL_URL (`wren start`'s embedded one). */
export interface DatabaseServer {
  url: string;
  authToken: string | undefined;
}

const wrap = (client: Client) => drizzle(client, { schema }) as unknown as Database;

/** Where the database is, as an error may say it: the file, or the server's origin (never its token). */
function describeTarget(settings: Settings): string {
  if (!settings.libsqlUrl) return databaseFile(settings);
  try {
    const url = new URL(settings.libsqlUrl);
    return `the libSQL server at ${url.protocol}//${url.host}`;
  } catch {
    return "the libSQL server LIBSQL_URL names";
  }
}

/** A client for LIBSQL_URL, or for the data folder's file (made if missing). */
async function connect(settings: Settings): Promise<Client> {
  if (settings.libsqlUrl) return createClient({ url: settings.libsqlUrl, authToken: settings.libsqlAuthToken });
  secureDataFolder(settings.dataDir);
  const client = createClient({ url: `file:${databaseFile(settings)}` });
  // Wait for a running server's writer instead of failing with SQLITE_BUSY.
  await client.execute("PRAGMA busy_timeout = 10000");
  return client;
}

/** The newest migration this version ships: a database that has not applied it is out of date. */
export function latestMigration(): number {
  return Math.max(0, ...readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).map((m) => m.folderMillis));
}

/** Refuses a database that is missing this version's migrations, naming the command that applies them. */
async function requireMigrated(client: Client, settings: Settings): Promise<void> {
  const target = describeTarget(settings);
  let applied: number;
  try {
    const result = await client.execute(`SELECT max(created_at) AS at FROM ${MIGRATIONS_TABLE}`);
    applied = Number(result.rows[0]?.at ?? 0);
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    if (/no such table/i.test(cause)) applied = 0;
    else throw new CliError(`cannot read the Wren database (${target}): ${redact(cause)}`, 1, "database", { database: target });
  }
  if (applied === 0) {
    throw new CliError(`no Wren database here (${target} has no tables yet) — ${MAKE_IT}`, 1, "not_migrated", {
      database: target,
    });
  }
  if (applied < latestMigration()) {
    throw new CliError(
      `the Wren database (${target}) is older than this version of Wren — run \`npx wren migrate\` (or \`npm start\`)`,
      1,
      "not_migrated",
      {
        database: target,
      },
    );
  }
}

/**
 * The database as it is, for `wren migrate`, `wren start` (the server it started) and tools
 * that migrate a fresh folder: the data folder's file (made, with the folder, when missing),
 * LIBSQL_URL, or `server`.
 */
export async function openDatabase(settings: Settings, server?: DatabaseServer): Promise<Database> {
  if (server) return wrap(createClient({ url: server.url, authToken: server.authToken }));
  return wrap(await connect(settings));
}

/**
 * The database of an existing, migrated Wren, for every command that reads or writes records:
 * the data folder's file or LIBSQL_URL. Without one, a CliError says how to make it, and
 * nothing is created.
 */
export async function openExistingDatabase(settings: Settings): Promise<Database> {
  const file = databaseFile(settings);
  if (!settings.libsqlUrl && !(existsSync(file) && statSync(file).isFile())) {
    throw new CliError(`no Wren database here (${file}) — ${MAKE_IT}, or set WREN_DATA to the data folder`, 1, "no_database", {
      database: file,
    });
  }
  const client = await connect(settings);
  try {
    await requireMigrated(client, settings);
  } catch (error) {
    client.close();
    throw error;
  }
  return wrap(client);
}

/** Applies the SQL migrations drizzle-kit generated; already-applied ones are skipped. */
export async function applyMigrations(db: Database): Promise<void> {
  await migrate(db, { migrationsFolder: MIGRATIONS_FOLDER });
}
