/** Where the code lives on disk, for the commands that start workerd or apply migrations. */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository (or installed package) root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** This Wren's version (package.json). */
export function version(): string {
  return (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
}
