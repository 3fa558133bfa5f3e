/**
 * Nested dimensions (rule 9, "Nested dimensions" in docs/reports.md): each breakdown
 * dimension is a partition of the site-day with its own cover, but some dimensions nest —
 * every Windows, Linux and macOS session is desktop — so a parent value minus its shown nested
 * children is a group too (desktop 15 − Windows 11 8 − Linux 6 = the 1 macOS session). From the
 * day's pair cells (reports/dimension-pairs.ts) a child value c is **nested** in parent value p
 * when all of c's units are in the pair cell (p, c), and p is **exact** when its units are all
 * in children nested in it. Then, besides each partition's own cover (breakdown.ts):
 *
 * 1. a shown parent minus its shown nested children is 0 or at least k units (the children
 *    hidden in it, and its units in no nested child) — else its smallest shown nested child is
 *    hidden too (complementary suppression inside the parent; with one child this is rule 3);
 * 2. a hidden exact parent keeps a hidden child: were all its children shown, their sum would
 *    be the parent, and the parent's partition would lose the cover it hides for;
 * 3. when every hidden parent value is exact, the hidden parents minus their shown children
 *    (the day minus the shown parents, minus shown children) is 0 or at least k;
 * 4. the child partition's hidden remainder (the day minus its shown cells) minus what rule 1
 *    pins down inside shown exact parents is 0 or at least k — else the smallest shown child
 *    outside those parents is hidden (or, with none, the smallest shown exact parent).
 *
 * A cell hidden by 1, 2 or 3 is marked sensitive, so its partition's cover does not count it as
 * the hidden group of k; covers run again after every change, until nothing moves. Only cells
 * are hidden, so this ends. The decisions are made for every dimension linked by a pair at
 * once, in a fixed order, so a cell reads the same whichever dimension a request names.
 *
 * Why this holds: within a pair whose child partition refines its parent on the exact values,
 * the shown cells form a tree (day → parent → nested child); the groups a reader pins down there
 * are the differences along it, which 1–4 keep at 0 or at least k. What it does not cover: a
 * child that is not nested (Chrome 131 on Windows and Android) crosses its parents, and the two
 * partitions are then a two-way table, where a table-wide search is needed (issue 38); pairs
 * not listed in DIMENSION_PAIRS are decided independently.
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
  /** Dimension → its decided partition of the day (value → cell, lumped small values and the rest included). */
  partitions: Map<string, Map<string, NestedCell>>;
  /** The day's pair cells per (parent dimension, child dimension). */
  pairs: { parent: string; child: string; cells: PairCell[] }[];
}

/**
 * Applies rules 1–4 to a day whose partitions are decided each on its own, mutating their
 * visibility; `cover` re-runs a partition's own complementary suppression (breakdown.ts).
 */
export function decideNestedDimensions(day: NestingDay, k: number, cover: (cells: NestedCell[]) => void): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (const pair of day.pairs) {
      const parents = day.partitions.get(pair.parent);
      const children = day.partitions.get(pair.child);
      if (parents && children && nestedPass(pair.cells, parents, children, k)) changed = true;
    }
    for (const cells of day.partitions.values()) {
      const before = [...cells.values()].filter((c) => c.visible).length;
      cover([...cells.values()]);
      if ([...cells.values()].filter((c) => c.visible).length !== before) changed = true;
    }
  }
}

/** One pass of rules 1–4 over one pair; true when it hid a cell. */
function nestedPass(pairCells: PairCell[], parents: Map<string, NestedCell>, children: Map<string, NestedCell>, k: number): boolean {
  const shown = (cells: Map<string, NestedCell>, value: string) => cells.get(value)?.visible === true;
  const kids = new Map<string, { value: string; units: number }[]>();
  const parentUnits = new Map<string, number>();
  for (const c of pairCells) {
    parentUnits.set(c.parent, c.parentUnits);
    if (c.units !== c.childUnits) continue;
    if (!kids.has(c.parent)) kids.set(c.parent, []);
    kids.get(c.parent)!.push({ value: c.child, units: c.units });
  }
  const sum = (xs: { units: number }[]) => xs.reduce((n, x) => n + x.units, 0);
  const exact = (p: string) => parentUnits.get(p) === sum(kids.get(p) ?? []);
  const shownKids = (p: string) => (kids.get(p) ?? []).filter((c) => shown(children, c.value));
  const small = (n: number) => n > 0 && n < k;
  const hideSmallestKid = (among: string[]) => {
    const cells = among.flatMap((p) => shownKids(p)).map((c) => children.get(c.value)!);
    const smallest = smallestVisible(cells);
    if (!smallest) return false;
    smallest.visible = false;
    smallest.sensitive = true;
    return true;
  };

  for (const p of kids.keys()) {
    const units = parentUnits.get(p)!;
    // Rule 1: a shown parent minus its shown nested children.
    if (shown(parents, p) && small(units - sum(shownKids(p)))) return hideSmallestKid([p]);
    // Rule 2: a hidden exact parent that its shown children would add up to.
    if (!shown(parents, p) && exact(p) && units - sum(shownKids(p)) === 0) return hideSmallestKid([p]);
  }

  // Rule 3: the hidden parents together, when all of them are exact.
  const hiddenParents = [...parents.values()].filter((c) => !c.visible && c.units > 0);
  const hiddenExact = [...kids.keys()].filter((p) => !shown(parents, p) && exact(p));
  const hiddenUnits = sum(hiddenParents);
  if (hiddenUnits > 0 && hiddenUnits === hiddenExact.reduce((n, p) => n + parentUnits.get(p)!, 0)) {
    if (small(hiddenUnits - hiddenExact.reduce((n, p) => n + sum(shownKids(p)), 0))) return hideSmallestKid(hiddenExact);
  }

  // Rule 4: the child partition's hidden remainder outside the shown exact parents.
  const shownExact = [...kids.keys()].filter((p) => shown(parents, p) && exact(p));
  const pinned = shownExact.reduce((n, p) => n + parentUnits.get(p)! - sum(shownKids(p)), 0);
  const hiddenChildren = sum([...children.values()].filter((c) => !c.visible && c.units > 0));
  if (small(hiddenChildren - pinned)) {
    const inside = new Set(shownExact.flatMap((p) => (kids.get(p) ?? []).map((c) => c.value)));
    const outside = smallestVisible([...children.values()].filter((c) => !inside.has(c.key)));
    if (outside) {
      outside.visible = false;
      return true;
    }
    const parent = smallestVisible(shownExact.map((p) => parents.get(p)!));
    if (parent) {
      parent.visible = false;
      parent.sensitive = true;
      return true;
    }
  }
  return false;
}
