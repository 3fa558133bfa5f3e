/**
 * Comparisons (`compare=previous|year`): a report beside the same report of an earlier period.
 *
 * The earlier period is just another period: its figures come from the same report code, the
 * same rules and the same cache as its own report, so a comparison publishes nothing a reader
 * could not already read by asking for that period; a delta of two shown figures adds nothing
 * (docs/reports.md, Comparisons). What this file adds is only how the two are put side by side:
 * - the period: `previous` is as many whole local days before, moved back further so that the
 *   weekdays match (a whole number of weeks: ceil(days / 7) × 7); `year` the same dates a year
 *   earlier (29 Feb → 28 Feb);
 * - each figure becomes `{value, qualifier, previous, delta}` (suppressed where either side is);
 * - table rows are matched by key, a row the earlier table does not list reads `suppressed`
 *   there (it may be hidden, fewer than k), never 0 — unless that whole period had no visitors;
 * - timeseries points by date: each point carries its counterpart's figures and date.
 * Periods of closed hours (`today`, `24h`) are refused (compareRefusal).
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { HttpProblem } from "../lib/problem";
import { exact, round, SUPPRESSED, weakest, type Figure } from "./figures";
import type { ImportedMeta } from "./imported/coverage";
import type { PreparedReport } from "./request";
import type { ReportScope } from "./scope";
import { addDays, daysBetween } from "./timezone";

export const COMPARE_MODES = ["previous", "year"] as const;
export type CompareMode = (typeof COMPARE_MODES)[number];

export interface Delta {
  /** current − previous. */
  absolute: Figure;
  /** (current − previous) / previous, rounded to 4 decimals; null when previous is 0. */
  relative: Figure | null;
}

export interface Comparison {
  current: Figure;
  previous: Figure;
  delta: Delta;
}

/** A report figure compared: the current figure itself, with its counterpart and the delta. */
export type Compared<F extends Figure = Figure> = F & { previous: Figure; delta: Delta };

/**
 * A figure against its previous value. A delta involving a suppressed side is suppressed, one
 * involving an estimated side estimated; a relative change that rounding changed is estimated.
 */
export function compare(current: Figure, previous: Figure): Comparison {
  return { current, previous, delta: delta(current, previous) };
}

export function delta(current: Figure, previous: Figure): Delta {
  if (current.value === null || previous.value === null)
    return { absolute: SUPPRESSED, relative: previous.value === 0 ? null : SUPPRESSED };
  const qualifier = weakest(current.qualifier, previous.qualifier);
  const absolute: Figure = { value: round(current.value - previous.value, 4), qualifier };
  if (previous.value === 0) return { absolute, relative: null };
  const exactChange = (current.value - previous.value) / previous.value;
  const relative = round(exactChange, 4);
  return { absolute, relative: { value: relative, qualifier: relative === exactChange ? qualifier : "estimated" } };
}

/** The figure with its counterpart: only value and qualifier of the earlier side are kept. */
export function compared<F extends Figure>(current: F, previous: Figure): Compared<F> {
  const before: Figure = { value: previous.value, qualifier: previous.qualifier };
  return { ...current, previous: before, delta: delta(current, before) };
}

/** The same date a year earlier; 29 February becomes 28 February. */
export function yearEarlier(date: string): string {
  const year = String(Number(date.slice(0, 4)) - 1).padStart(4, "0");
  const monthDay = date.slice(5);
  return monthDay === "02-29" ? `${year}-02-28` : `${year}-${monthDay}`;
}

/** Days `previous` moves back: the period's length rounded up to whole weeks (weekdays align). */
export function previousShift(days: number): number {
  return Math.ceil(days / 7) * 7;
}

/** The date of the earlier period a date of the current one is compared with. */
export function counterpartDate(date: string, mode: CompareMode, days: number): string {
  return mode === "year" ? yearEarlier(date) : addDays(date, -previousShift(days));
}

/**
 * The period a report of whole local days from..to is compared with. `previous`: the same
 * number of days, ending before `from`, moved back to start a whole number of weeks earlier
 * (7d: the 7 days before; a day: the same weekday a week earlier; 30d: 35 days earlier).
 * `year`: the same dates a year earlier.
 */
export function comparisonPeriod(
  period: { from: string; to: string },
  mode: CompareMode,
): { from: string; to: string; days: number } {
  const days = daysBetween(period.from, period.to);
  const from = counterpartDate(period.from, mode, days);
  const to = counterpartDate(period.to, mode, days);
  return { from, to, days: daysBetween(from, to) };
}

/**
 * Refuses a comparison the report cannot make: periods of closed hours (`today`, `24h`). Their
 * earlier counterpart would be a slice of a past day that no report shows as such (pages and
 * breakdowns read today only as bands of a growing total), so it could not be "that period's
 * own report"; the Overview compares closed hours instead.
 */
export function compareRefusal(scope: ReportScope, period: string | undefined): void {
  if (scope.hours) {
    throw new HttpProblem(
      400,
      `compare: not with period=${period}; compare whole days (day, 7d, 30d, from/to), or see the Overview for closed hours.`,
      {
        field: "compare",
      },
    );
  }
}

/** What a compared report answers besides its figures: the earlier period. */
export interface ComparisonHead {
  mode: CompareMode;
  from: string;
  to: string;
  days: number;
  /** The earlier period's imported days (imported/head.ts), when it has any. */
  imported?: ImportedMeta;
}

/**
 * The earlier period's prepared report: the same scope (site, k, noise, filters: every field)
 * with its days moved, its own head and its own cache entries — the very ones a request for
 * that period uses.
 */
export function previousReport(p: PreparedReport, mode: CompareMode): { report: PreparedReport; head: ComparisonHead } {
  const period = comparisonPeriod(p.scope, mode);
  return { report: p.shifted(period.from, period.to), head: { mode, ...period } };
}

/** Whether the site had any visitor in the scope's days (what its timeseries shows as all exact 0s otherwise). */
export async function periodHasVisitors(db: ReadOnlyDatabase, scope: ReportScope): Promise<boolean> {
  const rs = await db.query({
    sql:
      "SELECT EXISTS (SELECT 1 FROM rollup_site_day WHERE site_id = ?1 AND day >= ?2 AND day <= ?3 AND visitors > 0) " +
      // Imported visitors too, read or not: a row absent there may be hidden, never a sure 0.
      "OR EXISTS (SELECT 1 FROM imported_days WHERE site_id = ?1 AND day >= ?2 AND day <= ?3 AND visitors > 0) " +
      "AS any_visitor",
    args: [scope.siteId, scope.from, scope.to],
  });
  return Number(rs.rows[0]?.any_visitor ?? 0) === 1;
}

/** The figure a row reads in a period whose table does not list it: 0 when the period had no visitor, else maybe hidden. */
export const absentFigure = (hasVisitors: boolean): Figure => (hasVisitors ? SUPPRESSED : exact(0));

type FigureKeys<R> = { [K in keyof R]: R[K] extends Figure | undefined ? K : never }[keyof R];

/** One row or totals object with each named figure compared with `before`'s (or with `absent` where `before` lacks it). */
export function compareFigures<R extends object>(
  row: R,
  before: Partial<R> | undefined,
  names: readonly FigureKeys<R>[],
  absent: Figure,
): R {
  const out = { ...row } as Record<string, unknown>;
  for (const name of names) {
    const current = row[name] as Figure | undefined;
    if (current === undefined) continue;
    const previous = (before?.[name] as Figure | undefined) ?? absent;
    out[name as string] = compared(current, previous);
  }
  return out as R;
}

/**
 * The current table's rows, each compared with the earlier table's row of the same key (the
 * `other` row with the `other` row). A row the earlier table does not list reads `absent` there.
 * Rows only the earlier table lists are not added: the table is the current period's.
 */
export function compareRows<R extends object>(
  rows: R[],
  previousRows: R[],
  key: (row: R) => string,
  names: readonly FigureKeys<R>[],
  absent: Figure,
): R[] {
  const before = new Map(previousRows.map((r) => [key(r), r]));
  return rows.map((row) => compareFigures(row, before.get(key(row)), names, absent));
}

/**
 * Timeseries points compared by date: point i (local date, or date and hour) with the earlier
 * period's point of the counterpart date (and the same local hour). `previous_date` names it;
 * a point without one (an hour a clock change skipped) reads an exact 0 there, with null.
 */
export function comparePoints<P extends { local: string }>(
  points: P[],
  previousPoints: P[],
  mode: CompareMode,
  days: number,
  names: readonly FigureKeys<P>[],
): (P & { previous_date: string | null })[] {
  const before = new Map<string, P>();
  for (const p of previousPoints) if (!before.has(p.local)) before.set(p.local, p);
  return points.map((point) => {
    const local = counterpartDate(point.local.slice(0, 10), mode, days) + point.local.slice(10);
    const match = before.get(local);
    return { ...compareFigures(point, match, names, exact(0)), previous_date: match ? local : null };
  });
}

/** Both sides of a compared report, and the earlier period for the body's head. */
export interface ComparedReport<T> {
  report: T;
  comparison?: ComparisonHead;
}

/**
 * A report, compared when `mode` is given: `compute` runs for the request's period and for the
 * earlier one (each through its own cache entry: `compute` must read the scope and cache of the
 * prepared report it gets, never the outer one), and `merge` puts them side by side given the
 * figure a row the earlier table does not list reads (absentFigure). `check` may refuse the
 * earlier period as the report would refuse it asked directly (funnels' retention).
 */
export async function comparedReport<T>(
  p: PreparedReport,
  mode: CompareMode | undefined,
  period: string | undefined,
  compute: (q: PreparedReport) => Promise<T>,
  merge: (current: T, previous: T, absent: Figure) => T,
  check?: (earlier: ComparisonHead) => void,
): Promise<ComparedReport<T>> {
  if (mode === undefined) return { report: await compute(p) };
  compareRefusal(p.scope, period);
  const { report: q, head } = previousReport(p, mode);
  check?.(head);
  const [current, previous, hasVisitors] = await Promise.all([
    compute(p),
    compute(q),
    q.cached("has-visitors", [], () => periodHasVisitors(q.db, q.scope)),
  ]);
  return { report: merge(current, previous, absentFigure(hasVisitors)), comparison: head };
}

/** The head of a compared report's body: its own, and the earlier period. */
export function comparedHead<H extends object>(
  head: H,
  comparison: ComparisonHead | undefined,
): H & { comparison?: ComparisonHead } {
  return comparison ? { ...head, comparison } : head;
}
