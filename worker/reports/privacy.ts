/**
 * The k-anonymity post-filter: the one place that decides which cells of data a report may
 * show, and what every figure built from them is worth. Every report (and so the dashboard,
 * which reads the API) goes through here. The design, and why it resists differencing, is in
 * docs/reports.md; in short:
 *
 * - The unit of suppression is an atom: a (dimension value, day) cell, days in the site's
 *   time zone. An atom is visible when at least k distinct units (sessions) are in it.
 * - Suppress, then aggregate: a figure over several days sums visible atoms only, so any
 *   difference of periods is a sum of visible atoms.
 * - Nested cells (a page inside its site-day, an hour inside its day, a funnel step inside
 *   the steps it refines, converting sessions inside the sessions of the day): when
 *   parent − child is between 1 and k − 1, the child is hidden, since that complement is
 *   itself a small group.
 * - Partitions of a published total (pages and hours split the day's pageviews; hours split a
 *   goal's conversions): the hidden cells must together hold a group of at least k units, or
 *   the total minus the visible cells would single a small group out. If they do not, the
 *   smallest visible cell is hidden too (complementary suppression).
 */
import { SUPPRESSED, type Figure } from "./figures";

export const DEFAULT_K = 5;
export const MIN_K = 2;

/** k from WREN_K_ANONYMITY: default 5, never below 2 (smaller values are raised to 2). */
export function kAnonymity(setting: string | null | undefined): number {
  if (setting === undefined || setting === null || setting.trim() === "") return DEFAULT_K;
  const k = Number(setting);
  if (!Number.isInteger(k)) return DEFAULT_K;
  return Math.max(MIN_K, k);
}

/** An atom or cell is shown only when at least k units are in it. */
export function enoughUnits(units: number, k: number): boolean {
  return units >= k;
}

/** A child may be shown beside its parent only when their difference is 0 or at least k. */
export function complementSafe(parentUnits: number, childUnits: number, k: number): boolean {
  const rest = parentUnits - childUnits;
  return rest <= 0 || rest >= k;
}

/** A site-day atom (the units seen that day) is the root of its day. */
export function siteDayVisible(units: number, k: number): boolean {
  return enoughUnits(units, k);
}

/** A goal-day atom: its converting units sit inside the day's units (the rate's denominator). */
export function goalDayVisible(units: number, dayUnits: number, k: number): boolean {
  return enoughUnits(units, k) && complementSafe(dayUnits, units, k);
}

/** A cell of a partition: `value` is its share of the parent's additive total. */
export interface PartitionCell {
  key: string;
  units: number;
  value: number;
  visible: boolean;
}

/**
 * Complementary suppression for a partition of a published total: unless the hidden cells
 * (with data) are none or include one of at least k units, hide the smallest visible cell
 * (by units, then value, then key), which has at least k units. Mutates `cells`.
 */
export function coverHiddenRemainder(cells: PartitionCell[], k: number): void {
  const hidden = cells.filter((c) => !c.visible && c.units > 0);
  if (hidden.length === 0 || hidden.some((c) => c.units >= k)) return;
  let smallest: PartitionCell | undefined;
  for (const c of cells) {
    if (!c.visible) continue;
    if (
      !smallest ||
      c.units < smallest.units ||
      (c.units === smallest.units && (c.value < smallest.value || (c.value === smallest.value && c.key < smallest.key)))
    ) {
      smallest = c;
    }
  }
  if (smallest) smallest.visible = false;
}

/**
 * Which children of one parent cell may be shown: the parent must be visible, each child
 * needs k units and a safe complement, and the hidden remainder of the partition is covered.
 * Used for hours inside a day (site traffic, a goal's conversions).
 */
export function childCells<T extends { key: string; units: number; value: number }>(
  parent: { units: number; visible: boolean },
  children: T[],
  k: number,
): Array<T & { visible: boolean }> {
  const cells = children.map((c) => ({
    ...c,
    visible: parent.visible && enoughUnits(c.units, k) && complementSafe(parent.units, c.units, k),
  }));
  if (parent.visible) coverHiddenRemainder(cells, k);
  return cells;
}

/**
 * Funnel steps of one day. `units[mask]` is the number of units that completed the goals in
 * `mask` (bit i = step i) in order on that day. Step i is shown when step i − 1 is, it has k
 * units, and for every coarser grouping a key could also read — any proper subsequence of
 * steps 0..i, as a funnel of its own or (a single step) as that goal's converting sessions in
 * the conversions report — the difference is 0 or at least k: each of those holds every unit
 * of step i. (Checkout converting 8, pricing → checkout 6: 2 checked out without pricing.)
 * `step0Visible` is the first goal's day atom as the conversions report shows it.
 */
export function funnelStepsVisible(units: (mask: number) => number, steps: number, step0Visible: boolean, k: number): boolean[] {
  const visible: boolean[] = [step0Visible];
  for (let i = 1; i < steps; i++) {
    const full = (1 << (i + 1)) - 1;
    const count = units(full);
    let ok = visible[i - 1]! && enoughUnits(count, k);
    for (let mask = 1; ok && mask < full; mask++) {
      if (!complementSafe(units(mask), count, k)) ok = false;
    }
    visible.push(ok);
  }
  return visible;
}

/** What a figure over several atoms is built from: the sum over visible atoms and the atom counts. */
export interface AtomTally {
  /** Sum of the figure over visible atoms. */
  sum: number;
  /** Visible atoms (with data) in the period. */
  visible: number;
  /** Hidden atoms with data in the period. */
  hidden: number;
}

export const EMPTY_TALLY: AtomTally = Object.freeze({ sum: 0, visible: 0, hidden: 0 });

export function addToTally(tally: AtomTally, value: number, visible: boolean, hasData = true): AtomTally {
  if (!hasData) return tally;
  return visible
    ? { sum: tally.sum + value, visible: tally.visible + 1, hidden: tally.hidden }
    : { ...tally, hidden: tally.hidden + 1 };
}

/**
 * An additive figure (pageviews, conversions, samples): the sum of visible atoms; suppressed
 * when every atom with data is hidden; estimated when some are (a lower bound); exact else.
 * No data at all is an exact 0.
 */
export function additiveFigure(t: AtomTally): Figure {
  if (t.visible === 0) return t.hidden > 0 ? SUPPRESSED : { value: 0, qualifier: "exact" };
  return { value: t.sum, qualifier: t.hidden > 0 ? "estimated" : "exact" };
}

/**
 * A distinct-unit figure (visitors, sessions): like additiveFigure, and estimated as soon as it
 * adds more than one day, because sessions are counted per salt period (a day) and a visitor
 * of two days is two sessions.
 */
export function distinctFigure(t: AtomTally): Figure {
  const f = additiveFigure(t);
  if (f.qualifier === "exact" && t.visible > 1) return { value: f.value, qualifier: "estimated" };
  return f;
}

/**
 * SQL: 1 when the page-day atom `p` (a rollup_page_day row, possibly absent) of the day `d`
 * (a page_days row) is visible, else 0. Shared by every query that needs page atoms.
 */
export function pageAtomVisibleSql(p: string, d: string): string {
  return (
    `(CASE WHEN ${p}.visitors >= ?1 AND (${d}.day_units - ${p}.visitors <= 0 OR ${d}.day_units - ${p}.visitors >= ?1) ` +
    `AND NOT (${d}.any_hidden AND NOT ${d}.covered AND ${p}.path = ${d}.smallest) THEN 1 ELSE 0 END)`
  );
}

/**
 * SQL over the rollups: every page-day atom of a site in a date range with its `visible`
 * flag, by the same rules as above (k units; complement against the site-day; the smallest
 * visible page of a day is hidden too when the hidden pages of that day hold no group of k
 * units). The page atoms partition the day's pageviews, which the timeseries shows.
 * Per day, the decisions are index seeks on rollup_page_day_by_size (atoms in size order);
 * page_days is materialised so they run once per day, not once per atom.
 * Parameters: ?1 k, ?2 site, ?3 from, ?4 to. Columns: day, path, visitors, pageviews, key_sum, visible.
 */
export const PAGE_ATOMS_SQL = `
  page_days AS MATERIALIZED (
    SELECT s.site_id AS site_id, s.day AS day, s.visitors AS day_units,
      -- the smallest page that passes on its own: the cover, if the day needs one
      (SELECT p.path FROM rollup_page_day p WHERE p.site_id = s.site_id AND p.day = s.day AND p.visitors >= ?1
        AND (s.visitors - p.visitors <= 0 OR s.visitors - p.visitors >= ?1) ORDER BY p.visitors, p.pageviews, p.path LIMIT 1) AS smallest,
      -- any page hidden on its own: fewer than k units, or a complement of 1 to k − 1
      ((SELECT min(p.visitors) FROM rollup_page_day p WHERE p.site_id = s.site_id AND p.day = s.day) < ?1
        OR EXISTS (SELECT 1 FROM rollup_page_day p WHERE p.site_id = s.site_id AND p.day = s.day AND p.visitors > s.visitors - ?1 AND p.visitors < s.visitors)) AS any_hidden,
      -- a hidden page of k units or more already covers the day's hidden remainder
      EXISTS (SELECT 1 FROM rollup_page_day p WHERE p.site_id = s.site_id AND p.day = s.day AND p.visitors >= ?1
        AND p.visitors > s.visitors - ?1 AND p.visitors < s.visitors) AS covered
    FROM rollup_site_day s WHERE s.site_id = ?2 AND s.day >= ?3 AND s.day <= ?4
  ),
  page_atoms AS (
    SELECT p.day AS day, p.path AS path, p.visitors AS visitors, p.pageviews AS pageviews, p.key_sum AS key_sum, ${pageAtomVisibleSql("p", "d")} AS visible
    FROM page_days d CROSS JOIN rollup_page_day p ON p.site_id = d.site_id AND p.day = d.day
  )`;
