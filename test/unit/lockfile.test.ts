/**
 * The lockfile round-trips: `npm install` on a fresh clone must not rewrite it (a dirty checkout
 * after the README's first command, and `git pull` conflicts), and `npm ci` must accept it. npm
 * adds every optional dependency of every locked package, whatever the platform, so each one
 * must already be in the lockfile where npm resolves it.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

type LockedPackage = { version?: string; optionalDependencies?: Record<string, string> };
const lock = JSON.parse(readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8")) as {
  lockfileVersion: number;
  packages: Record<string, LockedPackage>;
};

/** Where npm finds `name` from the package at `from`: its own node_modules, then each parent's. */
function resolve(from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf("/node_modules/");
    base = cut < 0 ? "" : base.slice(0, cut);
  }
}

describe("package-lock.json", () => {
  it("is lockfile version 3", () => {
    expect(lock.lockfileVersion).toBe(3);
  });

  it("holds every optional dependency of every locked package, for every platform", () => {
    const missing: string[] = [];
    for (const [path, pkg] of Object.entries(lock.packages)) {
      for (const name of Object.keys(pkg.optionalDependencies ?? {})) {
        if (!resolve(path, name)) missing.push(`${path || "(root)"} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
