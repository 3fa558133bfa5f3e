/**
 * Nested dimensions (rule 9, "Nested dimensions" in docs/reports.md): each breakdown
 * dimension is a partition of the site-day with its own cover, but some dimensions nest —
 * every Windows, Linux and macOS session is desktop — so a parent value minus its shown nested
 * children is a group too (desktop 15 − Windows 11 8 − Linux 6 = the 1 macOS session). From the
 * day's pair cells (reports/dimension-pairs.ts: every two dimensions of a group) the rule knows
 * which values of one dimension lie wholly inside a value of another, or inside a union of them
 * (Android phones and tablets: mobile + tablet − Android is iOS and iPadOS).
 *
 * The rule, for each dimension X of a group: X's **blocks** are each shown value and all hidden
 * values together (their sum is the day minus the shown ones). For every union S of blocks,
 *  - S minus another dimension's shown values lying wholly inside S is 0 or at least k;
 *  - so is S minus those and that dimension's hidden values, when these lie inside S too (they
 *    are a known sum) — closed by hiding a shown value reaching outside S;
 *  - so is S minus the largest shown values of all the other dimensions inside S, when no two
 *    overlap (desktop − Windows 11 − Safari 18 when macOS is hidden and Safari only there).
 * Otherwise the smallest value subtracted is hidden as well (complementary suppression inside
 * the parent; one child beside its shown parent is rule 3), and marked sensitive: its own
 * partition's cover does not count it as the hidden group of k. Covers and the rule run again
 * after every change until nothing moves (cells are only ever hidden, so it ends). The group is
 * decided at once in a fixed order, broadest dimension first, so a cell reads the same
 * whichever dimension a request names, and a leak is closed by hiding a child, not its parent.
 *
 * Why it holds: with one dimension's shown values, another's and the day published, a
 * combination of them gives each pair cell (x, y) the weight a(x) + b(y) + c, a and b zero on
 * hidden values. The 0/1 combinations with a 1 on a union of blocks and b −1 on values inside it
 * are the unions above; along a nesting (a tree of values, as the fixed hierarchy is) these are
 * the groups a reader can pin down. What it does not cover: other weights, as values crossing
 * each other across three dimensions give (tablet − (Safari 18 − macOS), Safari on Macs and
 * iPads: a multi-way table, for issue 38's table-wide search); more than EXHAUSTIVE_BLOCKS
 * candidate blocks of one dimension on a day (then unions of one or two blocks only).
 */
import { smallestVisible, type PartitionCell } from "./cover";

/** A cell of one dimension's partition of the day; `sensitive` when hidden for a complement. */
export interface NestedCell extends PartitionCell {
  sensitive?: boolean;
}

/** A pair cell with both values' units that day (small values included, which the partitions lump). */
export interface PairCell {
  parent: string;
  child: string;
  units: number;
  parentUnits: number;
  childUnits: number;
}

export interface NestingDay {
  /**
   * Dimension → its decided partition of the day (value → cell). Keys starting with U+0000 are
   * no value: the lumped small values (always hidden) and `\u0000none`, the units with no value.
   */
  partitions: Map<string, Map<string, NestedCell>>;
  /** The day's pair cells per (parent dimension, child dimension). */
  pairs: { parent: string; child: string; cells: PairCell[] }[];
}

/** Unions of at most this many candidate blocks are searched exhaustively (2^n subsets); beyond, pairs only. */
export const EXHAUSTIVE_BLOCKS = 10;

/**
 * Applies the rule to a day whose partitions are decided each on its own, mutating their
 * visibility; `cover` re-runs a partition's own complementary suppression (breakdown.ts).
 */
export function decideNestedDimensions(day: NestingDay, k: number, cover: (cells: NestedCell[]) => void): void {
  const pairs = new PairTable(day.pairs, day.partitions);
  const dimensions = [...day.partitions.keys()];
  for (let changed = true; changed;) {
    changed = false;
    for (const x of dimensions) if (unionPass(x, day.partitions, pairs, k)) changed = true;
    for (const cells of day.partitions.values()) {
      const before = [...cells.values()].filter((c) => c.visible).length;
      cover([...cells.values()]);
      if ([...cells.values()].filter((c) => c.visible).length !== before) changed = true;
    }
  }
}

const isValue = (key: string) => !key.startsWith("\u0000");

/**
 * The day's pair cells, readable both ways round, and what they imply for the rest (no value):
 * a value's units with no value of the other dimension are its units outside the pair cells,
 * and the units with neither value follow from the day.
 */
class PairTable {
  private readonly units = new Map<string, number>();
  private readonly sums = new Map<string, number>();
  private readonly listed = new Set<string>();
  constructor(
    pairs: NestingDay["pairs"],
    private readonly partitions: NestingDay["partitions"],
  ) {
    const add = (key: string, units: number) => this.sums.set(key, (this.sums.get(key) ?? 0) + units);
    for (const p of pairs) {
      this.listed.add(`${p.parent}\u0000${p.child}`).add(`${p.child}\u0000${p.parent}`);
      for (const c of p.cells) {
        this.units.set(`${p.parent}\u0000${c.parent}\u0000${p.child}\u0000${c.child}`, c.units);
        this.units.set(`${p.child}\u0000${c.child}\u0000${p.parent}\u0000${c.parent}`, c.units);
        add(`${p.parent}\u0000${c.parent}\u0000${p.child}`, c.units);
        add(`${p.child}\u0000${c.child}\u0000${p.parent}`, c.units);
        add(`${p.parent}\u0000${p.child}`, c.units);
      }
      add(`${p.child}\u0000${p.parent}`, this.sums.get(`${p.parent}\u0000${p.child}`) ?? 0);
    }
  }
  linked(x: string, y: string): boolean {
    return this.listed.has(`${x}\u0000${y}`);
  }
  private unitsOf(x: string, a: string): number {
    return this.partitions.get(x)?.get(a)?.units ?? 0;
  }
  /** Units with value `a` of dimension `x` and `b` of `y` (either may be the rest, `\u0000none`); both are shown cells. */
  shared(x: string, a: string, y: string, b: string): number {
    if (isValue(a) && isValue(b)) return this.units.get(`${x}\u0000${a}\u0000${y}\u0000${b}`) ?? 0;
    if (isValue(b)) return this.unitsOf(y, b) - (this.sums.get(`${y}\u0000${b}\u0000${x}`) ?? 0);
    if (isValue(a)) return this.unitsOf(x, a) - (this.sums.get(`${x}\u0000${a}\u0000${y}`) ?? 0);
    const day = [...(this.partitions.get(x)?.values() ?? [])].reduce((n, c) => n + c.units, 0);
    return this.unitsOf(x, a) + this.unitsOf(y, b) - day + (this.sums.get(`${x}\u0000${y}`) ?? 0);
  }
}

/** A shown cell of one dimension, with its units per block of the dimension the pass is about. */
interface Spread {
  dimension: string;
  cell: NestedCell;
  blocks: Map<string, number>;
}

/**
 * One pass over dimension x: its blocks (each shown value, and the hidden ones together) against
 * the shown values of every dimension paired with it. For a union S of blocks, S minus the shown
 * values of one other dimension lying wholly inside S must be 0 or at least k, and so must S
 * minus the largest shown values of any of them lying inside S (those in no other), when they
 * are disjoint (a tree: desktop − Windows − Safari when macOS is hidden). When a remainder is
 * 1 to k − 1, the smallest of the values subtracted is hidden. True when it hid a cell.
 */
function unionPass(x: string, partitions: NestingDay["partitions"], pairs: PairTable, k: number): boolean {
  const xs = partitions.get(x)!;
  const HIDDEN = "\u0000hidden";
  const blocks = new Map<string, number>();
  let day = 0;
  for (const c of xs.values()) {
    day += c.units;
    if (c.visible) blocks.set(c.key, c.units);
  }
  blocks.set(HIDDEN, day - [...blocks.values()].reduce((n, u) => n + u, 0));
  const spreads: Spread[] = [];
  const shownXs = [...xs.values()].filter((c) => c.visible);
  for (const [y, ys] of partitions) {
    if (y === x || !pairs.linked(x, y)) continue;
    for (const cell of ys.values()) {
      if (!cell.visible) continue;
      // Its units in each shown value of x, the rest in the hidden block.
      const spread = new Map<string, number>();
      for (const a of shownXs) {
        const units = pairs.shared(x, a.key, y, cell.key);
        if (units > 0) spread.set(a.key, units);
      }
      const rest = cell.units - [...spread.values()].reduce((n, u) => n + u, 0);
      if (rest > 0) spread.set(HIDDEN, rest);
      spreads.push({ dimension: y, cell, blocks: spread });
    }
  }
  // A block's units outside every shown value paired with it: a lower bound of a union's remainder.
  const covered = new Map<string, number>();
  for (const s of spreads) for (const [b, u] of s.blocks) covered.set(b, (covered.get(b) ?? 0) + u);
  const candidates = [...blocks.keys()].filter((b) => blocks.get(b)! > 0 && blocks.get(b)! - (covered.get(b) ?? 0) < k);
  const small = (n: number) => n > 0 && n < k;
  const hide = (cells: NestedCell[]) => {
    const smallest = smallestVisible(cells)!;
    smallest.visible = false;
    smallest.sensitive = true;
    return true;
  };
  // The hidden values of another dimension are a known sum too (the day minus its shown
  // cells): a union S holding them all, minus them and the shown values inside, is a group.
  // When it is small, the smallest shown value reaching outside S is hidden: they then leave S.
  for (const y of new Set(spreads.map((s) => s.dimension))) {
    const shownY = spreads.filter((s) => s.dimension === y && s.cell.visible);
    const hiddenY = new Map<string, number>();
    for (const [b, units] of blocks) {
      const rest = units - shownY.reduce((n, s) => n + (s.blocks.get(b) ?? 0), 0);
      if (rest > 0) hiddenY.set(b, rest);
    }
    const hiddenUnits = [...hiddenY.values()].reduce((n, u) => n + u, 0);
    if (hiddenUnits === 0) continue;
    const around = [...hiddenY.keys()];
    for (const extra of [[], ...[...unions(candidates.filter((b) => !hiddenY.has(b)))].map((u) => [...u])]) {
      const union = new Set([...around, ...extra]);
      const size = [...union].reduce((n, b) => n + blocks.get(b)!, 0);
      const inside = shownY.filter((s) => [...s.blocks.keys()].every((b) => union.has(b)));
      if (!small(size - hiddenUnits - inside.reduce((n, s) => n + s.cell.units, 0))) continue;
      const leaving = shownY.filter((s) => [...s.blocks.keys()].some((b) => !union.has(b)));
      if (leaving.length > 0) return hide(leaving.map((s) => s.cell));
    }
  }
  for (const union of unions(candidates)) {
    const size = [...union].reduce((n, b) => n + blocks.get(b)!, 0);
    const inside = spreads.filter((s) => s.cell.visible && [...s.blocks.keys()].every((b) => union.has(b)));
    const byDimension = new Map<string, NestedCell[]>();
    for (const s of inside) byDimension.set(s.dimension, [...(byDimension.get(s.dimension) ?? []), s.cell]);
    for (const cells of byDimension.values()) if (small(size - cells.reduce((n, c) => n + c.units, 0))) return hide(cells);
    // Across dimensions: the largest values inside S, when no two of them overlap.
    const values = inside;
    const largest = values.filter(
      (s) =>
        !values.some(
          (o) =>
            o !== s &&
            o.dimension !== s.dimension &&
            nestedIn(pairs, s, o) &&
            !(nestedIn(pairs, o, s) && o.dimension < s.dimension),
        ),
    );
    const disjoint = largest.every((s, i) =>
      largest
        .slice(i + 1)
        .every((o) => o.dimension === s.dimension || pairs.shared(s.dimension, s.cell.key, o.dimension, o.cell.key) === 0),
    );
    if (byDimension.size > 1 && disjoint && largest.length > 0 && small(size - largest.reduce((n, s) => n + s.cell.units, 0)))
      return hide(largest.map((s) => s.cell));
  }
  return false;
}

/** Whether every unit of `inner` has `outer`'s value (a pair cell holds all of them). */
function nestedIn(pairs: PairTable, inner: Spread, outer: Spread): boolean {
  return pairs.shared(outer.dimension, outer.cell.key, inner.dimension, inner.cell.key) === inner.cell.units;
}

/** Every nonempty union of the candidates when they are few; else each one and each two. */
function* unions(candidates: string[]): Generator<Set<string>> {
  if (candidates.length <= EXHAUSTIVE_BLOCKS) {
    for (let mask = 1; mask < 1 << candidates.length; mask++) yield new Set(candidates.filter((_, i) => mask & (1 << i)));
    return;
  }
  for (let i = 0; i < candidates.length; i++) {
    yield new Set([candidates[i]!]);
    for (let j = i + 1; j < candidates.length; j++) yield new Set([candidates[i]!, candidates[j]!]);
  }
}
