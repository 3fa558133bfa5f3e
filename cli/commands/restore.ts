/**
 * `wren restore FILE`: makes the data folder what a `wren backup` file holds — its database and
 * server secret — while Wren is stopped. The new folder is built beside the data folder and
 * checked there (a backup, of a version this Wren can migrate, that SQLite finds intact), and
 * only then renamed into place: an interrupted restore leaves the old folder as it was. The old
 * folder is kept as `<data>.before-restore-<time>` unless --force. What the new folder lacks is
 * made at the next start: the database token, and the Durable Object storage (per-box caches
 * and the box's id; the restored box is a new box, so its leases start free).
 */
import { createClient } from "@libsql/client";
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { wrenRunsOn } from "../api-socket";
import { NotABackup, readManifest, stripManifest, type BackupManifest } from "../backup-file";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "../data-folder";
import { latestMigration } from "../database";
import { CliError, print } from "../output";
import type { Settings } from "../settings";
import { refuseRemoteDatabase } from "./backup";
import type { Invocation, RESTORE_OPTIONS } from "./registry";

/** `2026-11-27T06-01-02.345Z`: a time that sorts, is a file name everywhere, and differs between two restores. */
const stamp = (date: Date) => date.toISOString().replaceAll(":", "-");

/** Copies the backup into `staging` as its database and secret; refuses a file that is not a restorable backup. */
async function stage(file: string, staging: string): Promise<BackupManifest> {
  mkdirSync(staging, { mode: PRIVATE_DIR_MODE });
  const database = join(staging, "wren.db");
  copyFileSync(file, database);
  const copy = createClient({ url: `file:${database}` });
  try {
    let manifest: BackupManifest;
    try {
      manifest = await readManifest(copy);
    } catch (error) {
      if (error instanceof NotABackup) throw new CliError(`cannot restore ${file}: ${error.message}`, 2, "usage", { file });
      throw error;
    }
    if (manifest.migration > latestMigration()) {
      throw new CliError(
        `cannot restore ${file}: it was taken by a newer Wren (${manifest.wrenVersion}); restore it with that version or newer`,
        2,
        "usage",
        { file },
      );
    }
    const check = await copy.execute("PRAGMA quick_check");
    if (String(check.rows[0]?.[0]) !== "ok")
      throw new CliError(`cannot restore ${file}: SQLite finds it damaged`, 2, "usage", { file });
    await stripManifest(copy);
    writeFileSync(join(staging, "secret.key"), `${manifest.secret}\n`, { mode: PRIVATE_FILE_MODE });
    return manifest;
  } finally {
    copy.close();
  }
}

export async function restoreCommand(
  settings: Settings,
  { values, positionals }: Invocation<typeof RESTORE_OPTIONS>,
): Promise<void> {
  refuseRemoteDatabase(settings, "restore");
  const file = resolve(positionals[0]!);
  if (!existsSync(file) || !statSync(file).isFile()) throw new CliError(`no file ${file} to restore`, 2, "usage", { file });
  const dataDir = settings.dataDir;
  if (await wrenRunsOn(dataDir)) {
    throw new CliError(
      `Wren is running on the data folder ${dataDir}: stop it first (sudo systemctl stop wren, or Ctrl-C)`,
      1,
      "running",
    );
  }

  process.umask(0o077);
  mkdirSync(dirname(dataDir), { recursive: true });
  const staging = join(dirname(dataDir), `.${basename(dataDir)}.restoring-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  let manifest: BackupManifest;
  try {
    manifest = await stage(file, staging);
    const configured = process.env.WREN_SECRET;
    if (configured && configured !== manifest.secret) {
      throw new CliError(
        `WREN_SECRET is set and differs from the secret in ${file}: it would override the restored one; unset it`,
        2,
      );
    }
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }

  const kept = existsSync(dataDir) ? `${dataDir}.before-restore-${stamp(new Date())}` : undefined;
  try {
    if (kept) renameSync(dataDir, kept);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  renameSync(staging, dataDir);
  if (kept && values.force) rmSync(kept, { recursive: true, force: true });
  const result = {
    data: dataDir,
    backup_created_at: manifest.createdAt,
    previous_data: kept && !values.force ? kept : null,
  };
  print(values.json ?? false, result, () =>
    [
      `restored ${file} (taken ${manifest.createdAt}) into ${dataDir}`,
      result.previous_data ? `the data folder before is kept as ${result.previous_data}` : "",
      "start Wren to bring it up to date and serve it: npm start (or sudo systemctl start wren)",
    ]
      .filter(Boolean)
      .join("\n"),
  );
}
