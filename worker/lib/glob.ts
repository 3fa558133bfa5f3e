/**
 * Path patterns — goal patterns and the reports' `page=` filter — matched in linear time.
 *
 * The language: `*` stands for any run of characters (`/` and the empty run included); every
 * other character stands for itself. Nothing else is special: no `?`, no classes, no escapes.
 *
 * Why it is hand-written: compiling `*` to a backtracking `.*` let one goal (`/*a*a*a*b`) and
 * one beacon (`/` + 500 × `a`) hold the only thread for seconds, freezing every site. Glob
 * libraries (picomatch, minimatch) compile to a RegExp too, and give `*` path semantics we do
 * not want, so they would bring the bug back. A `*`-only glob needs no backtracking at all:
 *
 * - the text before the first `*` must be a prefix of the path, the text after the last `*` a
 *   suffix that does not overlap it;
 * - each segment between stars is taken at its leftmost occurrence after the previous one.
 *   Leftmost is always safe: any match that places a segment later can place it there instead,
 *   leaving more room for the rest. So the cursor only moves forward.
 *
 * Each segment is searched with Knuth–Morris–Pratt, so no character of the path is scanned
 * twice by the search: a match costs at most about 2 × (path length) + (pattern length)
 * comparisons, whatever the pattern. `cost` counts them, so tests prove that by counting.
 */

/** Bounds the schemas put on a pattern; the matcher is linear whatever they are. */
export const MAX_PATTERN_LENGTH = 500;
export const MAX_PATTERN_STARS = 16;

/** Counts character comparisons, for tests that prove the matcher linear without a clock. */
export interface GlobCost {
  steps: number;
}

export interface Glob {
  matches(path: string, cost?: GlobCost): boolean;
}

interface Segment {
  text: string;
  /** KMP failure table: the length of the longest proper border of text[0..i]. */
  border: Int32Array;
}

export function starCount(pattern: string): number {
  let stars = 0;
  for (let i = 0; i < pattern.length; i++) if (pattern.charCodeAt(i) === 42) stars++;
  return stars;
}

function failureTable(text: string): Int32Array {
  const border = new Int32Array(text.length);
  let k = 0;
  for (let i = 1; i < text.length; i++) {
    while (k > 0 && text.charCodeAt(i) !== text.charCodeAt(k)) k = border[k - 1]!;
    if (text.charCodeAt(i) === text.charCodeAt(k)) k++;
    border[i] = k;
  }
  return border;
}

/** Whether `path[at..at+text.length)` equals `text`; the caller has checked it fits. */
function equalAt(path: string, at: number, text: string, cost: GlobCost | undefined): boolean {
  for (let i = 0; i < text.length; i++) {
    if (cost) cost.steps++;
    if (path.charCodeAt(at + i) !== text.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * The end of the leftmost occurrence of `segment` in `path[from..to)`, or -1. The path index
 * never moves back, and every mismatch shortens the partial match, so the comparisons are at
 * most 2 × (to − from).
 */
function findAfter(path: string, from: number, to: number, segment: Segment, cost: GlobCost | undefined): number {
  const { text, border } = segment;
  let k = 0;
  for (let i = from; i < to; i++) {
    const c = path.charCodeAt(i);
    for (;;) {
      if (cost) cost.steps++;
      if (c === text.charCodeAt(k)) {
        k++;
        break;
      }
      if (k === 0) break;
      k = border[k - 1]!;
    }
    if (k === text.length) return i + 1;
  }
  return -1;
}

export function compileGlob(pattern: string): Glob {
  const parts = pattern.split("*");
  if (parts.length === 1) {
    return { matches: (path, cost) => path.length === pattern.length && equalAt(path, 0, pattern, cost) };
  }
  const prefix = parts[0]!;
  const suffix = parts[parts.length - 1]!;
  // Empty segments (`**`) match anywhere; dropping them changes nothing.
  const middle: Segment[] = parts
    .slice(1, -1)
    .filter((text) => text.length > 0)
    .map((text) => ({ text, border: failureTable(text) }));
  const fixed = prefix.length + suffix.length;
  return {
    matches(path, cost) {
      if (path.length < fixed) return false;
      const end = path.length - suffix.length;
      if (!equalAt(path, 0, prefix, cost) || !equalAt(path, end, suffix, cost)) return false;
      let cursor = prefix.length;
      for (const segment of middle) {
        cursor = findAfter(path, cursor, end, segment, cost);
        if (cursor < 0) return false;
      }
      return true;
    },
  };
}

// Goals are matched on every beacon: keep compiled patterns, dropping them all when there are
// too many (a bounded cache without bookkeeping; recompiling is cheap and linear).
const MAX_CACHED = 5_000;
const cache = new Map<string, Glob>();

/** `compileGlob`, remembered for patterns used again and again. */
export function cachedGlob(pattern: string): Glob {
  let glob = cache.get(pattern);
  if (!glob) {
    if (cache.size >= MAX_CACHED) cache.clear();
    glob = compileGlob(pattern);
    cache.set(pattern, glob);
  }
  return glob;
}
