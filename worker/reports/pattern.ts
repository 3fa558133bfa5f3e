/**
 * Page filters: a path, or a pattern in which `*` stands for any run of characters (`/`
 * included) — the same language and the same linear-time matcher as goal patterns
 * (`lib/glob.ts`), so a crafted `page=` cannot stall the reports.
 */
import { compileGlob } from "../lib/glob";

/** A predicate for one report: the pattern is compiled once and tried on every row. */
export function pathFilter(pattern: string): (path: string) => boolean {
  const glob = compileGlob(pattern);
  return (path) => glob.matches(path);
}
