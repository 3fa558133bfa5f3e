/**
 * The attacker of the privacy property test: what a key that can read every report for every
 * period can derive, as exact linear algebra over the published figures.
 *
 * A published additive figure (pageviews, conversions) is a fact: "the sum of these finest
 * cells is v", where the cells are what the report documents it sums (the attacker knows the
 * rules and sees which single-day cells are suppressed). The attacker pins a hidden quantity
 * down exactly when its indicator vector lies in the row space of the facts.
 */

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
