/**
 * Keeps worker/ readable in one sitting: no .ts file under worker/ may pass 400 lines
 * (STYLE.md: ~300 lines is the signal to split a file along its seams, 400 the hard stop).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/stack";

const MAX_LINES = 400;

/** Lines as `wc -l` counts them: newline characters, plus a last line without one. */
function lineCount(text: string): number {
  const newlines = text.split("\n").length - 1;
  return text === "" || text.endsWith("\n") ? newlines : newlines + 1;
}

/** Every .ts file under worker/ (paths relative to the repository, with "/"), with its line count. */
function workerFiles(): { file: string; lines: number }[] {
  return (readdirSync(join(ROOT, "worker"), { recursive: true, encoding: "utf8" }) as string[])
    .filter((f) => f.endsWith(".ts"))
    .map((f) => `worker/${f.split("\\").join("/")}`)
    .map((file) => ({ file, lines: lineCount(readFileSync(join(ROOT, file), "utf8")) }));
}

describe("file size", () => {
  it(`no .ts file under worker/ exceeds ${MAX_LINES} lines`, () => {
    const files = workerFiles();
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.filter((f) => f.lines > MAX_LINES).map((f) => `${f.file}: ${f.lines} lines`);
    expect(offenders).toEqual([]);
  });

  it("counts lines as wc -l does", () => {
    expect(lineCount("")).toBe(0);
    expect(lineCount("a\n")).toBe(1);
    expect(lineCount("a\nb")).toBe(2);
    expect(lineCount("a\n\nb\n")).toBe(3);
  });
});
