/** `wren migrate`: makes the database (and the data folder) or applies pending migrations, to LIBSQL_URL or the data folder's file. */
import { applyMigrations, openDatabase } from "../database";
import { print } from "../output";
import { databaseFile, type Settings } from "../settings";
import type { Invocation, MIGRATE_OPTIONS } from "./registry";

export async function migrateCommand(settings: Settings, { values }: Invocation<typeof MIGRATE_OPTIONS>): Promise<void> {
  const db = await openDatabase(settings);
  await applyMigrations(db);
  // A server by its scheme and host only: LIBSQL_URL may carry a token in its query.
  const server = settings.libsqlUrl ? new URL(settings.libsqlUrl) : undefined;
  const target = server ? `${server.protocol}//${server.host}` : `file:${databaseFile(settings)}`;
  print(values.json ?? false, { migrated: true, target }, () => `Migrations applied to ${target}.`);
}
