/**
 * What every bench that builds a database needs around its run: a scratch folder, removed
 * afterwards (kept, and named, with BENCH_KEEP_DATA=1, to look at what the run made), and the
 * scales it runs at from its own variable.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export async function inScratchFolder<T>(name: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `wren-bench-${name}-`));
  try {
    return await work(dir);
  } finally {
    if (process.env.BENCH_KEEP_DATA) console.log(`data kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

/** The event counts a bench runs at: `variable`'s comma-separated list, else `fallback`'s. */
export function benchScales(variable: string, fallback: string): number[] {
  return (process.env[variable] ?? fallback).split(",").map(Number);
}
