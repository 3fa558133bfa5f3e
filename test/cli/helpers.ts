/**
 * The real `wren` command (bin/wren.js, spawned through runWren) on a temporary data folder,
 * with none of this machine's Wren settings leaking in: only what a test passes is set.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runWren, type CliResult } from "../helpers/stack";

/** The process environment without any variable Wren reads (HOST, PORT, WREN_*, LIBSQL_*). */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(HOST|PORT|WREN_.*|LIBSQL_.*)$/.test(name)));
  return { ...env, ...extra };
}

export const tempDir = (name: string) => mkdtempSync(join(tmpdir(), `wren-cli-${name}-`));

/** `wren ARGS` with WREN_DATA=dataDir and the given variables. */
export const wren = (args: string[], dataDir: string, extra: Record<string, string> = {}): Promise<CliResult> =>
  runWren(args, cleanEnv({ WREN_DATA: dataDir, ...extra }));

/** Runs the jobs at most `limit` at a time (the CLI is a Node process each time; the cores are shared). */
export async function pooled<T, R>(items: T[], limit: number, job: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await job(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** What no CLI output may ever contain: SQL, a failed query's parameters, a key or its prefix, a hash. */
export const LEAKS = [
  /Failed query/i,
  /params:/i,
  /\binsert into\b/i,
  /\bselect\b[\s\S]*\bfrom\b/i,
  /wren_[A-Za-z0-9_-]{6}/,
  /[0-9a-f]{64}/i,
];
