/**
 * The data folder holds the database, the server secret, the database token and the Durable
 * Object storage: nothing in it is for other local users. Every start makes the folder 0700
 * and everything in it 0700 (folders) or 0600 (files), whatever an earlier version, a restore
 * or an operator's `cp` left behind, and sets the process umask so that what the engine and
 * workerd create from now on (WAL files, Durable Object folders) is private from the start.
 */
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { CliError } from "./output";

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

const READ_ONLY_CODES = new Set(["EROFS", "EACCES", "EPERM"]);

/**
 * Refuses to start on a data folder (or database file) Wren cannot write: it would start, answer
 * reads, and fail every write with a storage fault. Tried for real (a file created and removed,
 * the database opened for writing), since permission bits say nothing to root or on a read-only mount.
 */
export function requireWritableDataFolder(dir: string, databaseFile: string): void {
  const refuse = (what: string, error: NodeJS.ErrnoException): never => {
    throw new CliError(
      `${what} is read-only (${error.code}): Wren keeps its database and state there and must write them. ` +
        "Make it writable, or point WREN_DATA at a writable folder.",
    );
  };
  const probe = join(dir, `.write-check-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    closeSync(openSync(probe, "wx", PRIVATE_FILE_MODE));
    rmSync(probe);
  } catch (error) {
    if (READ_ONLY_CODES.has((error as NodeJS.ErrnoException).code ?? "")) refuse(`the data folder ${dir}`, error as NodeJS.ErrnoException);
    throw error;
  }
  if (existsSync(databaseFile)) {
    try {
      closeSync(openSync(databaseFile, "r+"));
    } catch (error) {
      if (READ_ONLY_CODES.has((error as NodeJS.ErrnoException).code ?? "")) refuse(`the database file ${databaseFile}`, error as NodeJS.ErrnoException);
      throw error;
    }
  }
}
