/**
 * Today's pages and breakdowns (`period=today`, docs/reports.md "Today"): per path, or per value
 * of a dimension, the units of the site's local day up to its last closed hour, through today's
 * rule (privacy/today.ts: hidden below k, else bands of perturbed counts).
 *
 * Why these read raw rows: the rollups cut by whole days (rollup_page_day, rollup_dimension_day
 * fold each row as it comes, whatever its hour), and a reading must hold exactly the closed
 * hours. Pageview rows are stamped by the collector when received, and an hour is closed once
 * it has ended plus the publisher's grace, so the rows of closed hours no longer change and a
 * reading never does either. It is one index range of events_site_ts per reading; readings are
 * kept per (site, dimension, hour) in the isolate, so dashboards cost one query an hour each.
 */
import { HttpProblem } from "../lib/problem";
import type { ReadOnlyDatabase } from "../lib/read-only";
import type { Dimension } from "./dimensions";
import { ReportCache } from "./cache";
import type { BreakdownReport } from "./breakdown";
import { band, estimated, exact, SUPPRESSED, type Figure } from "./figures";
import type { PagesReport } from "./pages";
import { pathFilter } from "./pattern";
import { unitKeySql } from "./noise";
import { bandedToday, type TodayCell, type TodayRule } from "./privacy";
import type { HourWindow, ReportScope } from "./scope";

/** What today is read by: its pages, or one dimension (not the exit page: see TODAY_NO_EXIT_PAGES). */
export type TodayDimension = "page" | Exclude<Dimension, "exit_page">;

/** Why exit pages have no today: a session's last page so far is not its exit page. */
export const TODAY_NO_EXIT_PAGES =
  "a session's exit page is its last page of the day, which is not known while the day runs; a reading of the closed hours would show sessions moving from one exit page to the next.";

/** Why today's breakdown has no goal. */
export const TODAY_NO_GOAL =
  "today's conversions are in the conversions report, by the hour (GET /api/v1/conversions?period=today); per value of a dimension they are read by whole days.";

/** What today's breakdown does not offer, and why (docs/reports.md, Today): a 400 naming the field. */
export function refuseTodayBreakdown(dimension: Dimension, goal: string | undefined): void {
  if (dimension === "exit_page")
    throw new HttpProblem(400, `dimension: exit_page is not offered for today: ${TODAY_NO_EXIT_PAGES}`, { field: "dimension" });
  if (goal !== undefined) throw new HttpProblem(400, `goal: not offered for today: ${TODAY_NO_GOAL}`, { field: "goal" });
}

export interface TodayRow {
  /** The path or value; null for units without a value, and in the `other` row. */
  value: string | null;
  other: boolean;
  visitors: Figure;
  pageviews: Figure;
}

export interface TodayTable {
  rows: TodayRow[];
  /** Sums of the shown rows (bands add up to a band). */
  totals: { visitors: Figure; pageviews: Figure };
}

/** The pageviews of the window, one row per unit and path (a session, or an event without one). */
const PAGEVIEWS = (columns: string) =>
  `SELECT id, ts, coalesce(session_id, 'e:' || id) AS unit, path${columns} FROM events WHERE site_id = ?1 AND kind = 'pageview' AND ts >= ?2 AND ts < ?3`;

/** Per path: units that viewed it, their pageviews of it, their key sum. */
const PAGES_SQL =
  `WITH pv AS (${PAGEVIEWS("")}), u AS (SELECT path, unit, count(*) AS views FROM pv GROUP BY path, unit) ` +
  `SELECT path AS value, count(*) AS units, sum(views) AS events, sum(${unitKeySql("unit")}) AS key_sum FROM u GROUP BY path ORDER BY units DESC, value`;

/**
 * Per value of a dimension: each unit counts once, under the value of its first pageview of the
 * day (the entry page: its path), with all its pageviews, as whole-day breakdowns count it
 * (dimension-fold.ts). First by time, then id: two writers may commit a session's rows out of
 * time order, and a later reading, holding one more hour, must not move the unit to another value.
 */
function dimensionSql(dimension: Exclude<TodayDimension, "page">): string {
  const column = dimension === "entry_page" ? "path" : dimension;
  return (
    `WITH pv AS (${PAGEVIEWS(dimension === "entry_page" ? "" : `, ${column}`)}), ` +
    `ranked AS (SELECT unit, ${column} AS value, count(*) OVER (PARTITION BY unit) AS views, row_number() OVER (PARTITION BY unit ORDER BY ts, id) AS n FROM pv), ` +
    "u AS (SELECT unit, value, views FROM ranked WHERE n = 1) " +
    `SELECT value, count(*) AS units, sum(views) AS events, sum(${unitKeySql("unit")}) AS key_sum FROM u GROUP BY value ORDER BY units DESC, value`
  );
}

/** Readings are fixed once their hour has closed: shared by every request of the isolate. */
const todayCache = new ReportCache();

export interface TodayOptions {
  /** The rule (the attack test takes parts of it out: privacy/today.ts exactToday, bandedOnTrueCounts). */
  rule?: TodayRule;
  /** Where readings are kept (tests give each run its own). */
  cache?: ReportCache;
}

/** Today's table of `dimension` over the scope's closed hours. */
export function readToday(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  dimension: TodayDimension,
  options: TodayOptions = {},
): Promise<TodayTable> {
  const window = scope.hours?.window;
  if (!window) throw new Error("readToday needs a window of closed hours");
  const rule = options.rule ?? bandedToday;
  const key = JSON.stringify(["today", scope.siteId, dimension, window, scope.k, rule === bandedToday]);
  return (options.cache ?? todayCache).remember(key, () => computeToday(db, scope, dimension, window, rule));
}

async function computeToday(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  dimension: TodayDimension,
  window: HourWindow,
  rule: TodayRule,
): Promise<TodayTable> {
  if (window.toMs <= window.fromMs) return { rows: [], totals: { visitors: exact(0), pageviews: exact(0) } };
  if (!scope.noiseKey) throw new Error("readToday needs the noise key");
  const sql = dimension === "page" ? PAGES_SQL : dimensionSql(dimension);
  const rs = await db.query({ sql, args: [scope.siteId, window.fromMs, window.toMs] });
  const rows: TodayRow[] = [];
  let hidden = false;
  for (const r of rs.rows) {
    const cell: TodayCell = { units: Number(r.units), events: Number(r.events), keySum: Number(r.key_sum) };
    const figures = rule.figures(cell, scope.noiseKey, scope.k);
    if (!figures) hidden = true;
    else rows.push({ value: r.value === null ? null : String(r.value), other: false, ...figures });
  }
  const totals = {
    visitors: sumOf(
      rows.map((r) => r.visitors),
      hidden,
    ),
    pageviews: sumOf(
      rows.map((r) => r.pageviews),
      hidden,
    ),
  };
  // Hidden rows are one `other` row, as on whole days (hidden-rows.ts): no label, no count.
  if (hidden) rows.push({ value: null, other: true, visitors: SUPPRESSED, pageviews: SUPPRESSED });
  return { rows, totals };
}

/** The sum of shown figures: a band from the lows to the highs; exact 0 with no rows, suppressed when all are hidden. */
function sumOf(figures: (Figure & { high?: number })[], anyHidden: boolean): Figure {
  if (figures.length === 0) return anyHidden ? SUPPRESSED : exact(0);
  const low = figures.reduce((n, f) => n + (f.value ?? 0), 0);
  const high = figures.reduce((n, f) => n + (f.high ?? f.value ?? 0), 0);
  if (figures.some((f) => f.high !== undefined)) return band(low, high);
  return figures.every((f) => f.qualifier === "exact") ? exact(low) : estimated(low);
}

/** Today's pages report, in the pages report's shape; `page` matches shown paths only (hidden-rows.ts). */
export async function todayPagesReport(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  page?: string,
  options?: TodayOptions,
): Promise<PagesReport> {
  const table = await readToday(db, scope, "page", options);
  const keep = page === undefined ? () => true : pathFilter(page);
  const rows = table.rows
    .filter((r) => r.other || keep(r.value!))
    .map((r) => ({ path: r.value, other: r.other, visitors: r.visitors, pageviews: r.pageviews }));
  const shown = rows.filter((r) => !r.other);
  return {
    rows,
    totals: {
      pageviews: sumOf(
        shown.map((r) => r.pageviews),
        shown.length < rows.length,
      ),
    },
  };
}

/** Today's breakdown of a dimension, in the breakdown's shape (no goal: conversions today are in the conversions report). */
export async function todayBreakdownReport(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  dimension: TodayDimension,
  options?: TodayOptions,
): Promise<BreakdownReport> {
  const table = await readToday(db, scope, dimension, options);
  return { rows: table.rows, totals: table.totals };
}
