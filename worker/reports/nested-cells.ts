/**
 * What the breakdown needs to decide nested dimensions (privacy/nested-dimensions.ts): for a
 * dimension linked to others by DIMENSION_PAIRS, the other dimensions' day cells and the day's
 * pair cells, read in two queries; and, per day, every linked dimension's partition decided
 * with the nesting rules, so `dimension=os` and `dimension=device` read the same cells.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { DIMENSION_PAIRS, nestingGroup } from "./dimension-pairs";
import type { Dimension } from "./dimensions";
import { decideNestedDimensions, type NestedCell, type PairCell } from "./privacy";
import type { ReportScope } from "./scope";

/** A dimension-day row as the breakdown reads it (CELLS_SQL): small values summed per day as value null. */
export type CellRow = { day: unknown; value: unknown; units: unknown; count: unknown; key_sum: unknown };

export interface Nesting {
  /** The linked dimensions other than the one asked, each with its day cells. */
  others: Map<Dimension, Map<string, CellRow[]>>;
  /** Day → (parent dimension, child dimension) → pair cells. */
  pairs: Map<string, Map<string, PairCell[]>>;
}

/** ?1 site, ?2 the dimensions as a JSON array, ?3 from, ?4 to. Both values' units come with each pair cell. */
const PAIRS_SQL =
  "SELECT p.day AS day, p.parent_dimension AS parent_dimension, p.child_dimension AS child_dimension, p.parent_value AS parent, " +
  "p.child_value AS child, p.units AS units, a.visitors AS parent_units, b.visitors AS child_units FROM rollup_dimension_pair_day p " +
  "JOIN rollup_dimension_day a ON a.site_id = p.site_id AND a.dimension = p.parent_dimension AND a.day = p.day AND a.value = p.parent_value " +
  "JOIN rollup_dimension_day b ON b.site_id = p.site_id AND b.dimension = p.child_dimension AND b.day = p.day AND b.value = p.child_value " +
  "WHERE p.site_id = ?1 AND p.parent_dimension IN (SELECT value FROM json_each(?2)) AND p.day >= ?3 AND p.day <= ?4 AND p.units > 0";

const pairKey = (parent: string, child: string) => `${parent}\u0000${child}`;

/** The nesting data of `dimension`'s group, or undefined when no pair links it to another. */
export async function loadNesting(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  dimension: Dimension,
  cellsSql: string,
): Promise<Nesting | undefined> {
  const group = nestingGroup(dimension);
  if (group.length < 2) return undefined;
  const others = group.filter((d) => d !== dimension);
  const [pairRows, ...cellRows] = await Promise.all([
    db.query({ sql: PAIRS_SQL, args: [scope.siteId, JSON.stringify(group), scope.from, scope.to] }),
    ...others.map((d) => db.query({ sql: cellsSql, args: [scope.siteId, d, scope.from, scope.to, scope.k] })),
  ]);
  const nesting: Nesting = { others: new Map(), pairs: new Map() };
  others.forEach((d, i) => {
    const days = new Map<string, CellRow[]>();
    for (const r of cellRows[i]!.rows as unknown as CellRow[]) {
      const day = String(r.day);
      if (!days.has(day)) days.set(day, []);
      days.get(day)!.push(r);
    }
    nesting.others.set(d, days);
  });
  for (const r of pairRows.rows) {
    const day = String(r.day);
    if (!nesting.pairs.has(day)) nesting.pairs.set(day, new Map());
    const byPair = nesting.pairs.get(day)!;
    const key = pairKey(String(r.parent_dimension), String(r.child_dimension));
    if (!byPair.has(key)) byPair.set(key, []);
    byPair.get(key)!.push({
      parent: String(r.parent),
      child: String(r.child),
      units: Number(r.units),
      parentUnits: Number(r.parent_units),
      childUnits: Number(r.child_units),
    });
  }
  return nesting;
}

/**
 * Decides `cells` (the asked dimension's partition of one day, already decided alone) together
 * with the linked dimensions' partitions, made by `partitionOf` from their rows, under the nesting
 * rules; `cover` is a partition's own complementary suppression. Mutates `cells`.
 */
export function decideNestedDay<C extends NestedCell>(
  nesting: Nesting,
  day: string,
  dimension: Dimension,
  cells: C[],
  k: number,
  partitionOf: (rows: CellRow[]) => C[],
  cover: (cells: C[]) => void,
): void {
  // In the group's fixed order, whichever dimension was asked: the decisions must not depend on it.
  const partitions = new Map<string, Map<string, NestedCell>>();
  for (const d of nestingGroup(dimension)) {
    const own = d === dimension ? cells : partitionOf(nesting.others.get(d)?.get(day) ?? []);
    partitions.set(d, new Map(own.map((c) => [c.key, c])));
  }
  const pairs = DIMENSION_PAIRS.map(([parent, child]) => ({
    parent,
    child,
    cells: nesting.pairs.get(day)?.get(pairKey(parent, child)) ?? [],
  })).filter((p) => p.cells.length > 0);
  if (pairs.length === 0) return;
  decideNestedDimensions({ partitions, pairs }, k, (cs) => cover(cs as C[]));
}
