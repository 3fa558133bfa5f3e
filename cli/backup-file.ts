/**
 * What a Wren backup file is: one SQLite file, a consistent copy of the database (VACUUM INTO)
 * plus a table `wren_backup` with what a restore needs besides the rows — the format and its
 * version, when the copy was made, the newest migration it had applied, and the server secret
 * (without it the copy's s2s tokens, session hashes and noise keys no longer match anything).
 * One file, so it is copied, encrypted and checked as one; SQLite, so `sqlite3 FILE` can read
 * it. It holds the secret, so it is written 0600 and must be kept as private as the data folder.
 */
import type { Client } from "@libsql/client";

export const BACKUP_TABLE = "wren_backup";
const FORMAT = "wren-backup";
const FORMAT_VERSION = 1;

export interface BackupManifest {
  /** When the copy was taken (ISO 8601). */
  createdAt: string;
  /** The newest migration (drizzle's folderMillis) the copied database had applied. */
  migration: number;
  /** The Wren version that took it. */
  wrenVersion: string;
  /** The server secret, 64 hex characters. */
  secret: string;
}

/** Why a file is not a backup this version can restore (the command says it, exit 2). */
export class NotABackup extends Error {}

/** Adds the manifest table to a fresh copy. */
export async function writeManifest(copy: Client, manifest: BackupManifest): Promise<void> {
  const rows: [string, string][] = [
    ["format", FORMAT],
    ["format_version", String(FORMAT_VERSION)],
    ["created_at", manifest.createdAt],
    ["migration", String(manifest.migration)],
    ["wren_version", manifest.wrenVersion],
    ["secret", manifest.secret],
  ];
  await copy.batch(
    [
      `CREATE TABLE ${BACKUP_TABLE} (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
      ...rows.map(([name, value]) => ({ sql: `INSERT INTO ${BACKUP_TABLE} (name, value) VALUES (?, ?)`, args: [name, value] })),
    ],
    "write",
  );
}

/** Reads and checks the manifest; a file that is not a Wren backup (or not SQLite at all) is a NotABackup. */
export async function readManifest(copy: Client): Promise<BackupManifest> {
  let values: Map<string, string>;
  try {
    const result = await copy.execute(`SELECT name, value FROM ${BACKUP_TABLE}`);
    values = new Map(result.rows.map((row) => [String(row.name), String(row.value)]));
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    if (/not a database|no such table|file is encrypted|malformed/i.test(cause)) {
      throw new NotABackup("it is not a Wren backup (made by `wren backup`)");
    }
    throw error;
  }
  if (values.get("format") !== FORMAT) throw new NotABackup("it is not a Wren backup (made by `wren backup`)");
  if (values.get("format_version") !== String(FORMAT_VERSION)) {
    throw new NotABackup(`it is a Wren backup of format ${values.get("format_version")}, which this version cannot read`);
  }
  const secret = values.get("secret") ?? "";
  const migration = Number(values.get("migration"));
  const createdAt = values.get("created_at") ?? "";
  if (!/^[0-9a-f]{64}$/i.test(secret) || !Number.isSafeInteger(migration) || Number.isNaN(Date.parse(createdAt))) {
    throw new NotABackup("its manifest is damaged");
  }
  return { createdAt, migration, wrenVersion: values.get("wren_version") ?? "unknown", secret };
}

/**
 * Makes a restored copy the database again: the manifest (and the secret's bytes, with
 * secure_delete) go, and so do the leases — they belong to the boxes that held them on the
 * original, and the restored box would otherwise wait for them to run out before publishing.
 */
export async function stripManifest(copy: Client): Promise<void> {
  await copy.execute("PRAGMA secure_delete = ON");
  await copy.batch([`DROP TABLE ${BACKUP_TABLE}`, "DELETE FROM leases"], "write");
}
