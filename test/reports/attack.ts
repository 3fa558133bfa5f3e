/**
 * The attacker of the privacy property test: what a key that can read every report for every
 * period can derive, as exact linear algebra over the published figures.
 *
 * A published additive figure (pageviews, conversions) is a fact: "the sum of these finest
 * cells is v", where the cells are what the report documents it sums (the attacker knows the
 * rules and sees which single-day cells are suppressed). The attacker pins a hidden quantity
 * down exactly when its indicator vector lies in the row space of the facts.
 */
import { MAX_PERTURBATION, perturbationAt } from "../../worker/reports/noise";
import { noisePosition } from "../../worker/reports/noise-position";

export interface Fact {
  /** Which family of unknowns: "pv" (day, hour, path) or "conv" (day, hour, goal). */
  family: string;
  /** Finest cells summed. */
  cells: string[];
  value: number;
  /** Where it was read, for messages. */
  source: string;
}

/** A hidden quantity the attacker must not be able to pin down: the sum over `cells`. */
export interface Target {
  family: string;
  cells: string[];
  /** Why it is protected (e.g. "hidden page-day atom /a 2026-11-02, 3 sessions"). */
  what: string;
}

const EPSILON = 1e-9;

/** Row space over the reals, kept in echelon form: each row's pivot is zero in every later row. */
export class RowSpace {
  private readonly rows: { pivot: number; row: Float64Array }[] = [];
  constructor(readonly size: number) {}

  private reduce(vector: Float64Array): Float64Array {
    const v = Float64Array.from(vector);
    for (const { pivot, row } of this.rows) {
      const factor = v[pivot]!;
      if (Math.abs(factor) < EPSILON) continue;
      for (let i = 0; i < this.size; i++) v[i]! -= factor * row[i]!;
    }
    return v;
  }

  add(vector: Float64Array): void {
    const v = this.reduce(vector);
    let pivot = -1;
    for (let i = 0; i < this.size; i++)
      if (Math.abs(v[i]!) > EPSILON && (pivot < 0 || Math.abs(v[i]!) > Math.abs(v[pivot]!))) pivot = i;
    if (pivot < 0) return;
    const scale = v[pivot]!;
    for (let i = 0; i < this.size; i++) v[i]! /= scale;
    // Keep earlier rows free of the new pivot, so reduction order never matters.
    for (const r of this.rows) {
      const factor = r.row[pivot]!;
      if (Math.abs(factor) < EPSILON) continue;
      for (let i = 0; i < this.size; i++) r.row[i]! -= factor * v[i]!;
    }
    this.rows.push({ pivot, row: v });
  }

  contains(vector: Float64Array): boolean {
    return this.reduce(vector).every((x) => Math.abs(x) < 1e-7);
  }

  /** The rows, fully reduced: each row is 1 at its pivot and 0 at every other row's pivot. */
  get echelon(): readonly { pivot: number; row: Float64Array }[] {
    return this.rows;
  }
}

/** Every target whose value the facts determine exactly (a leak), per family. */
export function linearLeaks(facts: Fact[], targets: Target[]): Target[] {
  const leaks: Target[] = [];
  for (const family of new Set(targets.map((t) => t.family))) {
    const index = new Map<string, number>();
    const id = (cell: string) => index.get(cell) ?? index.set(cell, index.size).get(cell)!;
    const familyFacts = facts.filter((f) => f.family === family);
    const familyTargets = targets.filter((t) => t.family === family);
    for (const f of familyFacts) f.cells.forEach(id);
    for (const t of familyTargets) t.cells.forEach(id);
    const space = new RowSpace(index.size);
    const vector = (cells: string[]) => {
      const v = new Float64Array(index.size);
      for (const c of cells) v[id(c)] = 1;
      return v;
    };
    for (const f of familyFacts) if (f.cells.length > 0) space.add(vector(f.cells));
    for (const t of familyTargets) if (space.contains(vector(t.cells))) leaks.push(t);
  }
  return leaks;
}

/** Two published distinct counts of nested groups (parent ⊇ child): their difference is a group too. */
export interface NestedPair {
  parent: number;
  child: number;
  what: string;
}

/** Nested pairs whose difference is a group of 1 to k − 1 units: a small group singled out. */
export function complementLeaks(pairs: NestedPair[], k: number): NestedPair[] {
  return pairs.filter((p) => p.parent - p.child > 0 && p.parent - p.child < k);
}

/**
 * Groups of units pinned down by distinct counts of unions. The unknowns are the numbers of
 * units in `size` classes (at most 20; e.g. a day's sessions by the set of pages each viewed);
 * each fact says how many units the classes in it hold. A group is any set of classes, and the
 * attacker pins its size down when its 0/1 vector lies in the row space of the facts — whether
 * or not anyone thought of that group. Returns the groups (class lists) of 1 to k − 1 units
 * (`counts`: the true units per class) so pinned down, at most `limit` of them.
 *
 * A vector v is in the row space when its syndrome, v reduced by the echelon rows, is 0 — a
 * linear function of v, so it is the sum of its classes' columns. Meet in the middle: the
 * syndromes of the 2^(size/2) sets of low classes are matched against those of the high ones.
 */
export function smallGroups(size: number, facts: number[][], counts: number[], k: number, limit = 5): number[][] {
  const space = new RowSpace(size);
  for (const f of facts) {
    const v = new Float64Array(size);
    for (const c of f) v[c] = 1;
    space.add(v);
  }
  const rows = space.echelon;
  const pivotOf = new Map(rows.map((r, i) => [r.pivot, i]));
  const free = Array.from({ length: size }, (_, c) => c).filter((c) => !pivotOf.has(c));
  const column = (c: number) =>
    Float64Array.from(free, (j) => (pivotOf.has(c) ? -rows[pivotOf.get(c)!]!.row[j]! : c === j ? 1 : 0));
  const columns = Array.from({ length: size }, (_, c) => column(c));
  const half = size >> 1;
  // Syndromes and units of every set of classes from `from` (count classes), built bit by bit.
  const sets = (from: number, count: number) => {
    const syndromes: Float64Array[] = [new Float64Array(free.length)];
    const units: number[] = [0];
    for (let set = 1; set < 1 << count; set++) {
      const bit = 31 - Math.clz32(set & -set);
      const rest = set & (set - 1);
      const s = Float64Array.from(syndromes[rest]!);
      const col = columns[from + bit]!;
      for (let j = 0; j < s.length; j++) s[j]! += col[j]!;
      syndromes.push(s);
      units.push(units[rest]! + counts[from + bit]!);
    }
    return { syndromes, units };
  };
  const key = (s: Float64Array, sign: number) => Array.from(s, (x) => Math.round(sign * x * 1e6) + 0).join(",");
  const low = sets(0, half);
  const high = sets(half, size - half);
  const byKey = new Map<string, number[]>();
  high.syndromes.forEach((s, b) => {
    const kk = key(s, 1);
    const list = byKey.get(kk);
    if (list) list.push(b);
    else byKey.set(kk, [b]);
  });
  const found: number[][] = [];
  low.syndromes.forEach((s, a) => {
    for (const b of byKey.get(key(s, -1)) ?? []) {
      const units = low.units[a]! + high.units[b]!;
      if (units < 1 || units >= k || found.length >= limit) continue;
      const set = a | (b << half);
      found.push(Array.from({ length: size }, (_, c) => c).filter((c) => set & (1 << c)));
    }
  });
  return found;
}

/**
 * One shown figure of a cell of the noise attacks (privacy-noise.property.test.ts, e2e
 * privacy-noise.test.ts): its shown value, and its true value as the unknown victims `v` plus a
 * known `offset` (the attacker's own sessions, pageviews or samples). `units`: a count of units
 * (never shown below k when it is k or more); `cover`: the index of the units reading of the
 * same cell whose shown value this events figure is never below (noise.ts shownCounts);
 * `cell`: which unit set it shows (readings of different cells have unrelated keys; default 0).
 */
export interface NoiseReading {
  shown: number;
  offset: number;
  cell?: number;
  units?: boolean;
  cover?: number;
}

/** Whether the source's table position is enumerable: a function of (key sum mod 256, value) alone, with no secret. */
export function positionIsEnumerable(): boolean {
  const a = { secret: 12345, positionSecret: 67890 };
  const b = { secret: 98765, positionSecret: 4321 };
  for (let i = 0; i < 200; i++) {
    const sum = (i * 7919) % 100_000;
    const value = 1 + (i % 40);
    if (noisePosition(sum, value, a) !== noisePosition(sum, value, b)) return false;
    if (noisePosition(sum + 256, value, a) !== noisePosition(sum, value, a)) return false;
  }
  return true;
}

/**
 * The victim counts in lo…hi that an attacker who knows the public table and the source cannot
 * rule out, given its readings. Where the source's position is enumerable (the old linear
 * index), it tries each of the 256 key positions of each cell: a count stands when every cell
 * has a position that yields all its readings. Else the places are keyed by secrets it never sees, so readings of
 * distinct true values are independent draws: a count stands when each value's readings fit
 * some perturbation −MAX_PERTURBATION…+MAX_PERTURBATION (readings of one value share it).
 */
export function noiseCandidates(readings: NoiseReading[], k: number, lo: number, hi: number): number[] {
  const post = (r: NoiseReading, value: number, d: number, coverShown: number) => {
    if (value <= 0) return value;
    const p = Math.max(1, value + d);
    if (r.units) return value >= k ? Math.max(k, p) : p;
    return r.cover === undefined ? p : Math.max(coverShown, p);
  };
  const out: number[] = [];
  const enumerable = positionIsEnumerable();
  const digits = Array.from({ length: 2 * MAX_PERTURBATION + 1 }, (_, i) => i - MAX_PERTURBATION);
  const key = { secret: 1, positionSecret: 1 };
  for (let v = lo; v <= hi; v++) {
    let fits = false;
    if (enumerable) {
      const cells = new Set(readings.map((r) => r.cell ?? 0));
      fits = [...cells].every((cell) => {
        for (let x = 0; x < 256; x++) {
          const d = (value: number) => perturbationAt(noisePosition(x, value, key));
          const shownOf = (r: NoiseReading): number =>
            post(r, v + r.offset, d(v + r.offset), r.cover === undefined ? 0 : shownOf(readings[r.cover]!));
          if (readings.every((r) => (r.cell ?? 0) !== cell || shownOf(r) === r.shown)) return true;
        }
        return false;
      });
    } else {
      // One draw per cell and true value.
      const draws = new Map<string, NoiseReading[]>();
      for (const r of readings) {
        const at = `${r.cell ?? 0}|${v + r.offset}`;
        draws.set(at, [...(draws.get(at) ?? []), r]);
      }
      fits = [...draws.values()].every((group) =>
        digits.some((d) =>
          group.every((r) => post(r, v + r.offset, d, r.cover === undefined ? 0 : readings[r.cover]!.shown) === r.shown),
        ),
      );
    }
    if (fits) out.push(v);
  }
  return out;
}
