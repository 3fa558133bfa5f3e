/**
 * `wren backup FILE`: a consistent copy of the data folder's database, taken while Wren runs
 * and ingests, plus the server secret (cli/backup-file.ts), in one file.
 *
 * The copy is SQLite's `VACUUM INTO`, run by this process on the database file itself, as every
 * CLI command opens it (the embedded Hrana server refuses VACUUM and ATTACH, rightly, for its
 * clients). VACUUM INTO reads in one read transaction, and in WAL mode a reader sees the
 * database as of its first read however much the server writes meanwhile: the copy holds every
 * transaction committed before it began and none of the ones after, and it never blocks a
 * writer. With LIBSQL_URL the database is not here: sqld has its own snapshots (see
 * docs/operations.md), and this command refuses.
 */
import { createClient, type Client } from "@libsql/client";
import { chmodSync, existsSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { writeManifest } from "../backup-file";
import { latestMigration, MIGRATIONS_TABLE } from "../database";
import { CliError, print } from "../output";
import { version } from "../paths";
import { readSecret } from "../secret";
import { databaseFile, secretFile, type Settings } from "../settings";
import type { BACKUP_OPTIONS, Invocation } from "./registry";

/** The refusal for LIBSQL_URL, shared with restore. */
export function refuseRemoteDatabase(settings: Settings, command: "backup" | "restore"): void {
  if (!settings.libsqlUrl) return;
  throw new CliError(
    `wren ${command} works on the data folder's own database; LIBSQL_URL is set, so the database is on a libSQL server: ` +
      "use that server's snapshots instead (sqld: bottomless replication or a copy of its data folder; see docs/operations.md)",
    2,
  );
}

/** The newest migration the database has applied; refuses a file that is no Wren database. */
async function appliedMigration(client: Client, file: string): Promise<number> {
  try {
    const result = await client.execute(`SELECT max(created_at) AS at FROM ${MIGRATIONS_TABLE}`);
    const at = Number(result.rows[0]?.at ?? 0);
    if (at > 0) return at;
  } catch (error) {
    if (!/no such table/i.test(error instanceof Error ? error.message : String(error))) throw error;
  }
  throw new CliError(`${file} holds no Wren database (no migrations applied): nothing to back up`, 1, "no_database");
}

export async function backupCommand(
  settings: Settings,
  { values, positionals }: Invocation<typeof BACKUP_OPTIONS>,
): Promise<void> {
  refuseRemoteDatabase(settings, "backup");
  const target = resolve(positionals[0]!);
  const source = databaseFile(settings);
  if (!existsSync(source)) {
    throw new CliError(`no Wren database here (${source}): set WREN_DATA to the data folder`, 1, "no_database", {
      database: source,
    });
  }
  if (existsSync(target) && !values.force) {
    throw new CliError(`${target} exists: choose another FILE, or --force to replace it`, 2, "usage", { file: target });
  }
  if (!existsSync(dirname(target)) || !statSync(dirname(target)).isDirectory()) {
    throw new CliError(`the folder of FILE (${dirname(target)}) does not exist`, 2, "usage", { file: target });
  }
  const secret = readSecret(settings);
  if (!secret)
    throw new CliError(`no server secret in ${secretFile(settings)} (nor WREN_SECRET): a backup without it cannot be restored`);

  // Written aside and renamed into place: FILE is a whole backup or absent, never half of one.
  const partial = `${target}.partial-${process.pid}`;
  rmSync(partial, { force: true });
  // The copy holds the secret and every row: private from its first byte.
  process.umask(0o077);
  const database = createClient({ url: `file:${source}` });
  try {
    await database.execute("PRAGMA busy_timeout = 10000");
    const migration = await appliedMigration(database, source);
    if (migration > latestMigration()) {
      throw new CliError(
        `the database in ${source} is newer than this version of Wren: back it up with the version that runs it`,
      );
    }
    const createdAt = new Date().toISOString();
    await database.execute({ sql: "VACUUM INTO ?", args: [partial] });
    const copy = createClient({ url: `file:${partial}` });
    try {
      await writeManifest(copy, { createdAt, migration, wrenVersion: version(), secret });
    } finally {
      copy.close();
    }
    chmodSync(partial, 0o600);
    renameSync(partial, target);
    const bytes = statSync(target).size;
    print(
      values.json ?? false,
      { file: target, bytes, created_at: createdAt, migration },
      () => `backed up ${source} to ${target} (${bytes} bytes, taken ${createdAt})`,
    );
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    database.close();
  }
}
