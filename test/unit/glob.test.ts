/**
 * The path-pattern matcher (`worker/lib/glob.ts`): the same answers as the regex it replaced,
 * on random patterns and paths, and linear work on the inputs that made that regex backtrack
 * for seconds. Work is counted in character comparisons, never timed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cachedGlob, compileGlob, starCount, type GlobCost } from "../../worker/lib/glob";

/** The old semantics, exactly as the collector and the reports compiled them. */
function reference(pattern: string): RegExp {
  const body = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`, "s");
}

function steps(pattern: string, path: string): { matched: boolean; steps: number } {
  const cost: GlobCost = { steps: 0 };
  const matched = compileGlob(pattern).matches(path, cost);
  return { matched, steps: cost.steps };
}

const word = (alphabet: string[], maxLength: number) =>
  fc.array(fc.constantFrom(...alphabet), { maxLength }).map((chars) => chars.join(""));

describe("glob matching", () => {
  it("agrees with the regex it replaced on random patterns and paths", () => {
    fc.assert(
      fc.property(word(["a", "b", "/", "*"], 10), word(["a", "b", "/"], 14), (pattern, path) => {
        expect(compileGlob(pattern).matches(path)).toBe(reference(pattern).test(path));
      }),
      { numRuns: 20_000 },
    );
  });

  it("agrees on paths built to match, so matches are tested as often as misses", () => {
    // Fill each star of a random pattern with a random run: the reference always says yes here.
    const filled = fc
      .array(word(["a", "b", "/"], 4), { minLength: 1, maxLength: 6 })
      .chain((parts) => fc.tuple(fc.constant(parts), fc.array(word(["a", "b", "/"], 4), { minLength: parts.length - 1, maxLength: parts.length - 1 })));
    fc.assert(
      fc.property(filled, ([parts, runs]) => {
        const pattern = parts.join("*");
        const path = parts.map((part, i) => part + (runs[i] ?? "")).join("");
        expect(reference(pattern).test(path)).toBe(true);
        expect(compileGlob(pattern).matches(path)).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });

  it.each([
    ["", "", true],
    ["", "/", false],
    ["*", "", true],
    ["*", "/any/thing", true],
    ["**", "x", true],
    ["/blog/*", "/blog/", true],
    ["/blog/*", "/blog/2026/11/post", true],
    ["/blog/*", "/blog", false],
    ["/blog/*/comments", "/blog/2026/11/comments", true],
    ["/blog/*/comments", "/blog/comments", false],
    ["/a.b", "/aXb", false],
    ["/(x)+", "/(x)+", true],
    ["ab*ba", "aba", false], // prefix and suffix may not share a character
    ["ab*ba", "abba", true],
    ["a*a", "a", false],
    ["a*a", "aa", true],
    ["*ab*ab*", "abab", true],
    ["*ab*ab*", "aba", false],
    ["*aab", "aaab", true], // the search must fall back inside a partial match
    ["*abab*", "abaabab", true],
    ["/*a*a*a*b", "/aaaaaaaa", false],
    ["/*a*a*a*b", "/aaab", true],
  ])("%j against %j is %s", (pattern, path, expected) => {
    expect(compileGlob(pattern).matches(path)).toBe(expected);
    expect(reference(pattern).test(path)).toBe(expected);
  });

  it("answers the input that froze the service (the regex took seconds on it, so it is not asked)", () => {
    expect(compileGlob("/*a*a*a*b").matches("/" + "a".repeat(500))).toBe(false);
    expect(compileGlob("/*a*a*a*b").matches("/" + "a".repeat(500) + "b")).toBe(true);
  });

  it("remembers compiled patterns", () => {
    expect(cachedGlob("/p/*")).toBe(cachedGlob("/p/*"));
    expect(cachedGlob("/p/*").matches("/p/1")).toBe(true);
  });

  it("counts stars", () => {
    expect(starCount("/a/*/b/**")).toBe(3);
    expect(starCount("/plain")).toBe(0);
  });
});

describe("glob matching is linear", () => {
  const attack = "/*a*a*a*b";

  it("costs a small multiple of the path length on the input that made the regex backtrack", () => {
    const costs = [1_000, 10_000, 100_000].map((n) => {
      const path = "/" + "a".repeat(n);
      const { matched, steps: work } = steps(attack, path);
      expect(matched).toBe(false);
      // Prefix, suffix, and each path character compared at most twice by the segment search.
      expect(work).toBeLessThanOrEqual(2 * (path.length + attack.length));
      return work;
    });
    // Ten times the path, ten times the work (plus slack), never the square of it.
    expect(costs[1]!).toBeLessThan(10 * costs[0]! + 100);
    expect(costs[2]!).toBeLessThan(10 * costs[1]! + 100);
  });

  it("stays within 2 × (path + pattern) whatever the pattern: more stars do not multiply the work", () => {
    const n = 100_000;
    for (const pattern of ["/*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "/*" + "a".repeat(400) + "b*", "*aaaaaaab*aaaaaaab*c", "/*ab*ab*ab*abc"]) {
      for (const path of ["/" + "a".repeat(n), "/" + "ab".repeat(n / 2), "/" + ("a".repeat(7) + "c").repeat(n / 8)]) {
        // (No reference answer here: the regex would backtrack for longer than the test runs.)
        expect(steps(pattern, path).steps).toBeLessThanOrEqual(2 * (path.length + pattern.length));
      }
    }
  });

  it("stays within 2 × (path + pattern) on random inputs", () => {
    fc.assert(
      fc.property(word(["a", "b", "*"], 24), word(["a", "b"], 200), (pattern, path) => {
        expect(steps(pattern, path).steps).toBeLessThanOrEqual(2 * (path.length + pattern.length));
      }),
      { numRuns: 5_000 },
    );
  });
});
