/** Reading a data folder's files for what they hold: the privacy tests look for secrets left on disk. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * The regular files under `root` whose bytes hold any of `needles`, as paths inside it, sorted.
 * Sockets (the api process's, data/api.sock) and other special files hold no bytes to read.
 */
export function filesHolding(root: string, needles: Buffer[]): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile()) {
        const bytes = readFileSync(path);
        if (needles.some((needle) => bytes.includes(needle))) found.push(path.slice(root.length + 1));
      }
    }
  };
  walk(root);
  return found.sort();
}
