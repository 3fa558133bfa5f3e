/**
 * Layers point one way (STYLE.md): worker/domain/ is what the workers build on, so no file under
 * it may import a worker — worker/alerts/, worker/api/ or worker/collector/. A domain function
 * that needs something a worker computes gets that piece moved down into the domain or lib/.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/stack";

const WORKERS = ["worker/alerts", "worker/api", "worker/collector"];

/** Every module specifier a file imports or re-exports (static and dynamic). */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)) found.push(m[1]!);
  return found;
}

/** The worker folders a domain file reaches into, as "file -> specifier". */
export function upwardImports(file: string, text: string): string[] {
  return specifiers(text)
    .filter((s) => s.startsWith("."))
    .filter((s) => {
      const target = relative(ROOT, resolve(ROOT, dirname(file), s));
      return WORKERS.some((w) => target === w || target.startsWith(`${w}/`));
    })
    .map((s) => `${file} -> ${s}`);
}

describe("layers", () => {
  it("no file under worker/domain/ imports from worker/alerts, worker/api or worker/collector", () => {
    const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "worker/domain"], {
      cwd: ROOT,
      encoding: "utf8",
    })
      .split("\n")
      .filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(10);
    const upward = files.flatMap((file) => upwardImports(file, readFileSync(join(ROOT, file), "utf8")));
    expect(upward).toEqual([]);
  });

  it("catches an upward import, however deep the domain file sits", () => {
    expect(upwardImports("worker/domain/x.ts", 'import { a } from "../alerts/evaluate";')).toEqual([
      "worker/domain/x.ts -> ../alerts/evaluate",
    ]);
    expect(upwardImports("worker/domain/a/b.ts", 'import type { A } from "../../api/resources";')).toEqual([
      "worker/domain/a/b.ts -> ../../api/resources",
    ]);
    expect(upwardImports("worker/domain/a/b.ts", 'export { c } from "../../collector";')).toEqual([
      "worker/domain/a/b.ts -> ../../collector",
    ]);
    expect(upwardImports("worker/domain/x.ts", 'import { b } from "../lib/db";\nimport { c } from "./goals";')).toEqual([]);
  });
});
