/** Where the code lives on disk, for the commands that start workerd or apply migrations. */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository (or installed package) root. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
