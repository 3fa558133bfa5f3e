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
import { loadDayAtoms, shownCell, type DayAtoms } from "./atoms";
import { coverPartition, NONE, partition, SMALL, type DayCell, type Rows } from "./day-partition";
import { perturbedFigure, ratio, SUPPRESSED, type Figure } from "./figures";
import { importedCells, type ImportedSum } from "./imported/cells";
import { mergeRows, plusImportedTotal } from "./imported/merge";
import type { Dimension } from "./dimensions";
import { splitHidden, suppressedLike } from "./hidden-rows";
import { decideNestedDay, loadNesting } from "./nested-cells";
import {
  additiveFigure,
  addToTally,
  complementSafe,
  distinctFigure,
  EMPTY_TALLY,
  PAGE_ATOMS_SQL,
  smallestVisible,
  type AtomTally,
} from "./privacy";
import type { ReportScope } from "./scope";

export interface BreakdownRow {
  /** The dimension's value; null for visitors without one, and in the `other` row. */
  value: string | null;
  /** The one row standing for every value hidden over the period (hidden-rows.ts): no label, no count. */
  other: boolean;
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


/** Parameters: ?1 site, ?2 dimension, ?3 from, ?4 to, ?5 k (PAGE_CELLS_SQL names its own). */
const range = (site = "?1", dimension = "?2") => `site_id = ${site} AND dimension = ${dimension} AND day >= ?3 AND day <= ?4`;
const smallCells = (site = "?1", dimension = "?2", k = "?5") =>
  "SELECT day, NULL AS value, sum(visitors) AS units, sum(pageviews) AS count, sum(key_sum) AS key_sum FROM rollup_dimension_day " +
  `WHERE ${range(site, dimension)} AND visitors > 0 AND visitors < ${k} GROUP BY day`;
const CELLS_SQL = `SELECT day, value, visitors AS units, pageviews AS count, key_sum FROM rollup_dimension_day WHERE ${range()} AND visitors >= ?5 UNION ALL ${smallCells()}`;
const SMALL_VALUES_SQL = `SELECT value, count(*) AS days FROM rollup_dimension_day WHERE ${range()} AND visitors > 0 AND visitors < ?5 GROUP BY value`;
/** A goal's cells in values of k visitors one by one, those in smaller values summed per day. */
/** ?6: the goal. */
const GOAL_CELLS_SQL =
  "SELECT g.goal_id AS goal_id, g.day AS day, CASE WHEN v.visitors >= ?5 THEN g.value END AS value, sum(g.units) AS units, sum(g.conversions) AS count, sum(g.key_sum) AS key_sum " +
  "FROM rollup_goal_dimension_day g JOIN rollup_dimension_day v ON v.site_id = g.site_id AND v.dimension = g.dimension AND v.day = g.day AND v.value = g.value " +
  "WHERE g.site_id = ?1 AND g.dimension = ?2 AND g.day >= ?3 AND g.day <= ?4 AND g.goal_id = ?6 AND g.units > 0 " +
  "GROUP BY g.goal_id, g.day, CASE WHEN v.visitors >= ?5 THEN g.value END";
/**
 * Entry or exit page cells with their page-day atoms as the pages report decides them (only for
 * cells of k visitors: the atoms are index lookups). Parameters as PAGE_ATOMS_SQL's (?1 k,
 * ?2 site, ?3 from, ?4 to) and ?5 the dimension.
 */
const PAGE_CELLS_SQL =
  `WITH ${PAGE_ATOMS_SQL} SELECT c.day AS day, c.value AS value, c.visitors AS units, c.pageviews AS count, c.key_sum AS key_sum, ` +
  "p.visitors AS page_units, p.visible AS page_visible FROM rollup_dimension_day c LEFT JOIN page_atoms p ON p.day = c.day AND p.path = c.value " +
  "WHERE c.site_id = ?2 AND c.dimension = ?5 AND c.day >= ?3 AND c.day <= ?4 AND c.visitors >= ?1 " +
  `UNION ALL SELECT *, NULL, NULL FROM (${smallCells("?2", "?5", "?1")})`;



const byDay = (rows: Rows) => {
  const days = new Map<string, Rows>();
  for (const r of rows) {
    const day = String(r.day);
    if (!days.has(day)) days.set(day, []);
    days.get(day)!.push(r);
  }
  return days;
};

/** A day's decided cells of one dimension: the value partition, and each goal's partition of its goal-day. */
export interface DimensionDay {
  values: Map<string, DayCell>;
  /** goal id → value key → cell (a value nobody converted in: 0 units, shown only where the value is). */
  goals: Map<string, Map<string, DayCell>>;
}

/**
 * Every day of the scope, decided for `dimension`: the site-day split into its values and, for
 * each of `goals`, the goal-day split the same way, with the privacy rules applied (file comment).
 * The values are decided first and alone, and each goal beside them alone, so whichever goals a
 * report asks for, a cell reads the same. The breakdown and the filtered reports (filter.ts)
 * read the same cells.
 */
export async function dimensionDays(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  dimension: Dimension,
  goals: readonly string[],
  atoms?: DayAtoms,
): Promise<{ atoms: DayAtoms; days: Map<string, DimensionDay>; smallDays: Map<string, number> }> {
  const args = [scope.siteId, dimension, scope.from, scope.to, scope.k];
  const pageDimension = dimension === "entry_page" || dimension === "exit_page";
  const [dayAtoms, nesting, cellRows, smallRows, ...goalRows] = await Promise.all([
    atoms ?? loadDayAtoms(db, scope),
    loadNesting(db, scope, dimension, CELLS_SQL),
    pageDimension
      ? db.query({ sql: PAGE_CELLS_SQL, args: [scope.k, scope.siteId, scope.from, scope.to, dimension] })
      : db.query({ sql: CELLS_SQL, args }),
    db.query({ sql: SMALL_VALUES_SQL, args }),
    // One goal per query: a long tail of values times every goal would be one very long answer.
    ...goals.map((goal) => db.query({ sql: GOAL_CELLS_SQL, args: [...args, goal] })),
  ]);
  const smallDays = new Map(smallRows.rows.map((r) => [String(r.value), Number(r.days)]));
  const pages = new Map<string, { units: number; visible: boolean }>();
  if (pageDimension) {
    for (const r of cellRows.rows) {
      if (r.page_units !== null)
        pages.set(`${r.day}\u0000${r.value}`, { units: Number(r.page_units), visible: Number(r.page_visible) === 1 });
    }
  }
  const cellsByDay = byDay(cellRows.rows as unknown as Rows);
  const goalCellsByDay = new Map<string, Map<string, Rows>>();
  for (const r of goalRows.flatMap((rs) => rs.rows) as unknown as (Rows[number] & { goal_id: unknown })[]) {
    const goal = String(r.goal_id);
    if (!goalCellsByDay.has(goal)) goalCellsByDay.set(goal, new Map());
    const days = goalCellsByDay.get(goal)!;
    if (!days.has(String(r.day))) days.set(String(r.day), []);
    days.get(String(r.day))!.push(r);
  }

  const days = new Map<string, DimensionDay>();
  for (const [day, site] of dayAtoms.siteDays) {
    if (site.units === 0) continue;
    const total = { units: site.units, count: site.pageviews, keySum: site.keySum, visible: site.visible, guarded: site.guarded };
    const cells = partition(total, cellsByDay.get(day) ?? [], scope.k, (value, units) => {
      if (!pageDimension) return true;
      // An entry (exit) page's visitors are among its page-day's: their difference is a group too.
      const page = pages.get(`${day}\u0000${value}`);
      return !page?.visible || complementSafe(page.units, units, scope.k);
    });
    // Dimensions that nest (device ⊃ os) are decided together, the same whichever is asked.
    if (nesting)
      decideNestedDay(
        nesting,
        day,
        dimension,
        cells,
        scope.k,
        (rows) => partition(total, rows, scope.k, () => true),
        (cs) => coverPartition(cs, new Set(cs.filter((c) => c.sensitive)), scope.k),
      );
    const values = new Map(cells.map((c) => [c.key, c]));
    const decided: DimensionDay = { values, goals: new Map() };
    for (const goal of goals) {
      const goalDay = dayAtoms.goalDays.get(goal)?.get(day);
      const split =
        goalDay && goalDay.units > 0
          ? goalPartition(
              { units: goalDay.units, count: goalDay.conversions, keySum: goalDay.keySum, visible: goalDay.visible, guarded: goalDay.guarded },
              goalCellsByDay.get(goal)?.get(day) ?? [],
              values,
              scope.k,
            )
          : [];
      const converted = new Map(split.map((c) => [c.key, c]));
      for (const c of cells)
        if (!converted.has(c.key)) converted.set(c.key, { key: c.key, units: 0, value: 0, keySum: 0, visible: c.visible });
      decided.goals.set(goal, converted);
    }
    days.set(day, decided);
  }
  return { atoms: dayAtoms, days, smallDays };
}

/**
 * A goal-day split by the dimension, one cell per value (0 units where nobody with it converted):
 * inside its value's cell, each goal cell is shown only where that is, with k units and
 * complements of 0 or at least k against the value and the goal-day; then complementary
 * suppression over the goal-day; then the complement between the two partitions' hidden parts —
 * the values whose goal cells are hidden, minus their converters (the goal-day minus the shown
 * goal cells), is who did not convert there.
 */
function goalPartition(goalDay: Parameters<typeof partition>[0], rows: Rows, values: Map<string, DayCell>, k: number): DayCell[] {
  const cells = partition(goalDay, rows, k, () => true);
  const present = new Set(cells.map((c) => c.key));
  for (const v of values.values())
    if (!present.has(v.key)) cells.push({ key: v.key, units: 0, value: 0, keySum: 0, visible: (goalDay.visible || !!goalDay.guarded) && v.visible });
  const sensitive = new Set<DayCell>(cells.filter((c) => c.key === SMALL));
  for (const c of cells) {
    const parent = values.get(c.key);
    if (
      c.visible &&
      !(parent?.visible && complementSafe(parent.units, c.units, k) && complementSafe(goalDay.units, c.units, k))
    ) {
      c.visible = false;
      sensitive.add(c);
    }
  }
  coverPartition(cells, sensitive, k, goalDay.guarded);
  while (goalDay.visible || goalDay.guarded) {
    const hidden = cells.filter((c) => !c.visible);
    const hiddenValues = hidden.reduce((n, c) => n + (values.get(c.key)?.units ?? 0), 0);
    if (
      complementSafe(
        hiddenValues,
        hidden.reduce((n, c) => n + c.units, 0),
        k,
      )
    )
      break;
    // Never runs out: with every goal cell hidden the two are the day and the goal-day, whose
    // complement the goal-day's own rule already checked (goalDayVisible).
    const smallest = smallestVisible(cells);
    if (!smallest) break;
    smallest.visible = false;
  }
  return cells;
}

interface ValueTallies {
  visitors: AtomTally;
  pageviews: AtomTally;
  converting: AtomTally;
  conversions: AtomTally;
}

export async function breakdownReport(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  dimension: Dimension,
  goal?: string,
): Promise<BreakdownReport> {
  const { days, smallDays } = await dimensionDays(db, scope, dimension, goal ? [goal] : []);
  const tallies = new Map<string, ValueTallies>();
  const tallyOf = (key: string) => {
    if (!tallies.has(key))
      tallies.set(key, { visitors: EMPTY_TALLY, pageviews: EMPTY_TALLY, converting: EMPTY_TALLY, conversions: EMPTY_TALLY });
    return tallies.get(key)!;
  };
  for (const day of days.values()) {
    for (const c of day.values.values()) {
      if (c.key === SMALL) continue;
      const t = tallyOf(c.key);
      // A value's session-days each have a pageview (dimension-fold.ts); the rest (NONE) need not.
      const shown = shownCell(scope, { units: c.units, events: c.value, keySum: c.keySum }, c.key !== NONE);
      t.visitors = addToTally(t.visitors, shown.units, c.visible);
      t.pageviews = addToTally(t.pageviews, shown.events, c.visible);
    }
    if (!goal) continue;
    for (const [key, c] of day.goals.get(goal) ?? []) {
      if (key === SMALL) continue;
      const t = tallyOf(key);
      const hasData = c.units > 0 || (day.values.get(key)?.units ?? 0) > 0;
      const shown = shownCell(scope, { units: c.units, events: c.value, keySum: c.keySum }, true);
      t.converting = addToTally(t.converting, shown.units, c.visible, hasData);
      t.conversions = addToTally(t.conversions, shown.events, c.visible, hasData);
    }
  }

  // A value's days with fewer than k visitors: hidden, its goal figures too.
  for (const [key, n] of smallDays) {
    const t = tallyOf(key);
    const hidden = (tally: AtomTally) => ({ ...tally, hidden: tally.hidden + n });
    t.visitors = hidden(t.visitors);
    t.pageviews = hidden(t.pageviews);
    if (goal) {
      t.converting = hidden(t.converting);
      t.conversions = hidden(t.conversions);
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
      other: false,
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
  // Values hidden over the whole period are listed as one `other` row; the null value names no one.
  const { shown, hidden } = splitHidden(rows, (r) => r.value === null);
  if (hidden.length > 0) shown.push({ ...suppressedLike(hidden[0]!), value: null, other: true });
  if (!scope.imported || goal) return { rows: shown, totals };
  return withImportedCells({ rows: shown, totals }, await importedCells(db, scope, scope.imported, dimension));
}

/** The breakdown with the imported days' shown cells added (imported/merge.ts); never with a goal. */
function withImportedCells(report: BreakdownReport, imported: Map<string, ImportedSum>): BreakdownReport {
  if (imported.size === 0) return report;
  const merged = mergeRows(
    report.rows,
    imported,
    (r) => r.value,
    () => true,
    (value, visitors, pageviews) => ({ value, other: false, visitors, pageviews }),
    () => ({ value: null, other: true, visitors: SUPPRESSED, pageviews: SUPPRESSED }),
  );
  const any = merged.added.rows > 0;
  return {
    rows: merged.rows,
    totals: {
      visitors: plusImportedTotal(report.totals.visitors, merged.added.visitors, any),
      pageviews: plusImportedTotal(report.totals.pageviews, merged.added.pageviews, any),
    },
  };
}

/** Tallies of rows added up: the totals are sums of the visible cells, never an independent figure. */
function sumTallies(a: AtomTally, b: AtomTally): AtomTally {
  return { sum: a.sum + b.sum, visible: a.visible + b.visible, hidden: a.hidden + b.hidden };
}
