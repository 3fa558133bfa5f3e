/**
 * The data folder holds the database, the server secret, the database token and the Durable
 * Object storage: nothing in it is for other local users. Every start makes the folder 0700
 * and everything in it 0700 (folders) or 0600 (files), whatever an earlier version, a restore
 * or an operator's `cp` left behind, and sets the process umask so that what the engine and
 * workerd create from now on (WAL files, Durable Object folders) is private from the start.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

function tighten(path: string): void {
  const stat = lstatSync(path);
  // A symlink's own mode means nothing, and following it could chmod a file outside the folder.
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    if ((stat.mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(path, PRIVATE_DIR_MODE);
    for (const entry of readdirSync(path)) tighten(join(path, entry));
  } else if ((stat.mode & 0o777 & ~PRIVATE_FILE_MODE) !== 0) {
    chmodSync(path, stat.mode & PRIVATE_FILE_MODE);
  }
}

/** Makes the data folder (if missing) and closes it to everyone but its owner. */
export function secureDataFolder(dir: string): void {
  process.umask(0o077);
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  tighten(dir);
}
