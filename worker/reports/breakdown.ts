/**
 * The breakdown report: a site's visitors, pageviews and (for one goal) converting sessions,
 * conversions and rate per value of one dimension (dimensions.ts) — sources, campaigns, entry
 * and exit pages, browsers, systems, devices, countries.
 *
 * A dimension partitions each day's visitors, so each day is a partition of the site-day atom
 * into dimension-day cells, plus the rest (no value: no UTM, no known country, rows from before
 * dimensions), which is a cell like the others with value null. The privacy rules are the
 * partition's (docs/reports.md, rule 9): a cell is shown only inside a shown site-day, with k
 * units, and with complementary suppression over the day's cells; an entry or exit page beside
 * its page-day as the pages report shows it differs from it by 0 or at least k; a goal's cell is
 * shown only inside its shown value cell and its shown goal-day, with k units, complements of 0
 * or at least k against both, and complementary suppression over the goal-day's cells.
 * Figures over several days are sums of the shown day cells (rule 2).
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { loadDayAtoms, shownValue, type DayAtoms } from "./atoms";
import { perturbedFigure, ratio, type Figure } from "./figures";
import type { Dimension } from "./dimensions";
import { NOISE_COLUMN } from "./noise";
import {
  additiveFigure,
  addToTally,
  complementSafe,
  distinctFigure,
  EMPTY_TALLY,
  enoughUnits,
  PAGE_ATOMS_SQL,
  type AtomTally,
  type PartitionCell,
} from "./privacy";
import type { ReportScope } from "./scope";

export interface BreakdownRow {
  /** The dimension's value; null for visitors without one. */
  value: string | null;
  visitors: Figure;
  pageviews: Figure;
  /** With a goal: its converting sessions and conversions among these visitors, and the rate. */
  converting_sessions?: Figure;
  conversions?: Figure;
  rate?: Figure;
}

export interface BreakdownReport {
  rows: BreakdownRow[];
  totals: { visitors: Figure; pageviews: Figure; converting_sessions?: Figure; conversions?: Figure };
}

/** A day's cell: a value's units and additive count, and what it shows. */
interface DayCell extends PartitionCell {
  value: number;
  keySum: number;
}

/** The key of the cell with no value (PartitionCell keys are strings). */
const NONE = "\u0000none";

const CELLS_SQL =
  "SELECT day, value, visitors AS units, pageviews AS count, key_sum FROM rollup_dimension_day WHERE site_id = ?1 AND dimension = ?2 AND day >= ?3 AND day <= ?4 AND visitors > 0";
const GOAL_CELLS_SQL =
  "SELECT day, value, units, conversions AS count, key_sum FROM rollup_goal_dimension_day WHERE site_id = ?1 AND dimension = ?2 AND day >= ?3 AND day <= ?4 AND goal_id = ?5 AND units > 0";
/** The page-days as the pages report shows them, for entry and exit pages. Parameters: ?1 k, ?2 site, ?3 from, ?4 to. */
const PAGE_DAYS_SQL = `WITH ${PAGE_ATOMS_SQL} SELECT day, path, visitors, visible FROM page_atoms`;

type Rows = { day: unknown; value: unknown; units: unknown; count: unknown; key_sum: unknown }[];

/**
 * A day's partition of `total` into its cells and the rest, with visibility decided: none when
 * the total is hidden; else k units, `extra` for each cell, then complementary suppression.
 */
function partition(
  total: { units: number; count: number; keySum: number; visible: boolean },
  rows: Rows,
  k: number,
  extra: (value: string, units: number) => boolean,
): DayCell[] {
  const cells: DayCell[] = rows.map((r) => ({
    key: String(r.value),
    units: Number(r.units),
    value: Number(r.count),
    keySum: Number(r.key_sum),
    visible: false,
  }));
  const rest = cells.reduce(
    (acc, c) => ({ units: acc.units - c.units, count: acc.count - c.value, keySum: acc.keySum - c.keySum }),
    { units: total.units, count: total.count, keySum: total.keySum },
  );
  if (rest.units > 0) cells.push({ key: NONE, units: rest.units, value: rest.count, keySum: rest.keySum, visible: false });
  if (!total.visible) return cells;
  const sensitive = new Set<DayCell>();
  for (const c of cells) {
    c.visible = enoughUnits(c.units, k);
    if (c.visible && c.key !== NONE && !extra(c.key, c.units)) {
      c.visible = false;
      sensitive.add(c);
    }
  }
  coverPartition(cells, sensitive, k);
  return cells;
}

/**
 * Complementary suppression over a day's partition (privacy.ts coverHiddenRemainder), where a
 * cell hidden for its complement elsewhere (`sensitive`) must not be pinned down by the total
 * minus the shown cells either: unless a hidden cell of k units that is not sensitive is among
 * the hidden ones, the smallest shown cell is hidden too.
 */
function coverPartition(cells: DayCell[], sensitive: Set<DayCell>, k: number): void {
  const hidden = cells.filter((c) => !c.visible && c.units > 0);
  if (hidden.length === 0 || hidden.some((c) => c.units >= k && !sensitive.has(c))) return;
  const smallest = cells
    .filter((c) => c.visible)
    .sort((a, b) => a.units - b.units || a.value - b.value || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))[0];
  if (smallest) smallest.visible = false;
}

const byDay = (rows: Rows) => {
  const days = new Map<string, Rows>();
  for (const r of rows) {
    const day = String(r.day);
    if (!days.has(day)) days.set(day, []);
    days.get(day)!.push(r);
  }
  return days;
};

interface ValueTallies {
  visitors: AtomTally;
  pageviews: AtomTally;
  converting: AtomTally;
  conversions: AtomTally;
}

export async function breakdownReport(db: ReadOnlyDatabase, scope: ReportScope, dimension: Dimension, goal?: string): Promise<BreakdownReport> {
  const range = [scope.siteId, dimension, scope.from, scope.to];
  const pageDimension = dimension === "entry_page" || dimension === "exit_page";
  const [atoms, cellRows, goalRows, pageRows] = await Promise.all([
    loadDayAtoms(db, scope),
    db.query({ sql: CELLS_SQL, args: range }),
    goal ? db.query({ sql: GOAL_CELLS_SQL, args: [...range, goal] }) : null,
    pageDimension ? db.query({ sql: PAGE_DAYS_SQL, args: [scope.k, scope.siteId, scope.from, scope.to] }) : null,
  ]);
  const pages = new Map<string, { units: number; visible: boolean }>();
  for (const r of pageRows?.rows ?? []) pages.set(`${r.day}\u0000${r.path}`, { units: Number(r.visitors), visible: Number(r.visible) === 1 });

  const tallies = new Map<string, ValueTallies>();
  const tallyOf = (key: string) => {
    if (!tallies.has(key)) tallies.set(key, { visitors: EMPTY_TALLY, pageviews: EMPTY_TALLY, converting: EMPTY_TALLY, conversions: EMPTY_TALLY });
    return tallies.get(key)!;
  };
  const cellsByDay = byDay(cellRows.rows as unknown as Rows);
  const goalCellsByDay = byDay((goalRows?.rows ?? []) as unknown as Rows);
  for (const [day, site] of atoms.siteDays) {
    if (site.units === 0) continue;
    const total = { units: site.units, count: site.pageviews, keySum: siteKeySum(atoms, day), visible: site.visible };
    const cells = partition(total, cellsByDay.get(day) ?? [], scope.k, (value, units) => {
      if (!pageDimension) return true;
      // An entry (exit) page's visitors are among its page-day's: their difference is a group too.
      const page = pages.get(`${day}\u0000${value}`);
      return !page?.visible || complementSafe(page.units, units, scope.k);
    });
    for (const c of cells) {
      const t = tallyOf(c.key);
      t.visitors = addToTally(t.visitors, shownValue(scope, c.units, c.keySum, NOISE_COLUMN.units), c.visible);
      t.pageviews = addToTally(t.pageviews, shownValue(scope, c.value, c.keySum, NOISE_COLUMN.events), c.visible, c.value > 0 || c.units > 0);
    }
    if (!goal) continue;
    const goalDay = atoms.goalDays.get(goal)?.get(day);
    if (!goalDay || goalDay.units === 0) continue;
    const valueCells = new Map(cells.map((c) => [c.key, c]));
    const goalCells = partition(
      { units: goalDay.units, count: goalDay.conversions, keySum: goalKeySum(atoms, goal, day), visible: goalDay.visible },
      goalCellsByDay.get(day) ?? [],
      scope.k,
      () => true,
    );
    // Inside its value's cell: shown only where that is, with a complement of 0 or at least k.
    const sensitive = new Set<DayCell>();
    for (const c of goalCells) {
      const parent = valueCells.get(c.key);
      if (c.visible && !(parent?.visible && complementSafe(parent.units, c.units, scope.k) && complementSafe(goalDay.units, c.units, scope.k))) {
        c.visible = false;
        sensitive.add(c);
      }
    }
    coverPartition(goalCells, sensitive, scope.k);
    const converted = new Map(goalCells.map((c) => [c.key, c]));
    // A value nobody converted in shows 0 only where the value itself is shown.
    for (const c of cells) if (!converted.has(c.key)) converted.set(c.key, { key: c.key, units: 0, value: 0, keySum: 0, visible: c.visible });
    for (const [key, c] of converted) {
      const t = tallyOf(key);
      const hasData = c.units > 0 || (valueCells.get(key)?.units ?? 0) > 0;
      t.converting = addToTally(t.converting, shownValue(scope, c.units, c.keySum, NOISE_COLUMN.units), c.visible, hasData);
      t.conversions = addToTally(t.conversions, shownValue(scope, c.value, c.keySum, NOISE_COLUMN.events), c.visible, hasData);
    }
  }

  let visitors = EMPTY_TALLY;
  let pageviews = EMPTY_TALLY;
  let converting = EMPTY_TALLY;
  let conversions = EMPTY_TALLY;
  const rows: BreakdownRow[] = [...tallies.entries()].map(([key, t]) => {
    visitors = sumTallies(visitors, t.visitors);
    pageviews = sumTallies(pageviews, t.pageviews);
    converting = sumTallies(converting, t.converting);
    conversions = sumTallies(conversions, t.conversions);
    const row: BreakdownRow = {
      value: key === NONE ? null : key,
      visitors: perturbedFigure(distinctFigure(t.visitors), scope.noise),
      pageviews: perturbedFigure(additiveFigure(t.pageviews), scope.noise),
    };
    if (goal) {
      row.converting_sessions = perturbedFigure(distinctFigure(t.converting), scope.noise);
      row.conversions = perturbedFigure(additiveFigure(t.conversions), scope.noise);
      row.rate = ratio(row.converting_sessions, row.visitors);
    }
    return row;
  });
  const totals: BreakdownReport["totals"] = {
    visitors: perturbedFigure(distinctFigure(visitors), scope.noise),
    pageviews: perturbedFigure(additiveFigure(pageviews), scope.noise),
  };
  if (goal) {
    totals.converting_sessions = perturbedFigure(distinctFigure(converting), scope.noise);
    totals.conversions = perturbedFigure(additiveFigure(conversions), scope.noise);
  }
  return { rows, totals };
}

/** Tallies of rows added up: the totals are sums of the visible cells, never an independent figure. */
function sumTallies(a: AtomTally, b: AtomTally): AtomTally {
  return { sum: a.sum + b.sum, visible: a.visible + b.visible, hidden: a.hidden + b.hidden };
}

function siteKeySum(atoms: DayAtoms, day: string): number {
  return atoms.siteDays.get(day)?.keySum ?? 0;
}

function goalKeySum(atoms: DayAtoms, goal: string, day: string): number {
  return atoms.goalDays.get(goal)?.get(day)?.keySum ?? 0;
}
