/** `wren migrate`: applies pending migrations to LIBSQL_URL, or to the data folder's file. */
import { parseArgs } from "node:util";
import { applyMigrations, openDatabase } from "../database";
import { print } from "../output";
import type { Settings } from "../settings";

export async function migrateCommand(settings: Settings, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { json: { type: "boolean", default: false } } });
  const db = await openDatabase(settings);
  await applyMigrations(db);
  const target = settings.libsqlUrl ?? `file:${settings.dataDir}/wren.db`;
  print(values.json, { migrated: true, target }, () => `Migrations applied to ${target}.`);
}
