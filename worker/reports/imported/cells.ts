/**
 * Reading imported days through the k-filter (docs/reports.md, "Imported days"). An imported day
 * has no units, only its counts per report and value, so its cells are decided per day and per
 * table, on their true counts, in SQL:
 * - a cell of fewer than k visitors is hidden; a shown cell reads its counts perturbed by its own
 *   key (noise.ts, the same cell-key noise and post-processing as collected cells);
 * - complement cover: in a day's table of a dimension that splits the day's visitors (every one
 *   but `page`), when the day's hidden remainder — its hidden cells' visitors, and the visitors
 *   the day's total has beyond all its cells — is 1 … k − 1, the smallest shown cell (ties by
 *   value) is hidden too; one suffices, it holds k;
 * - a period's figure for a value is the sum of its shown day cells, so every imported figure a
 *   reader sees is a sum of shown, perturbed day cells, and no combination of periods says more.
 * The site-day totals (imported_days) the same way: visitors and pageviews, visits and bounces
 * each perturbed with the day's key; a day of fewer than k visitors is hidden whole, and its
 * bounces below k are hidden as the engagement figures hide them.
 * Days with collected data are read as collected only (coverage.ts COLLECTED_DAY_SQL).
 */
import type { ReadOnlyDatabase } from "../../lib/read-only";
import { shownEventsSql, shownUnitsSql } from "../noise";
import type { ReportScope } from "../scope";
import { COLLECTED_DAY_SQL } from "./coverage";
import type { ImportedRule } from "./rule";

/** A value's imported figures over a period: sums of its shown day cells. */
export interface ImportedSum {
  visitors: number;
  pageviews: number;
  /** Days the value's cell is shown on, and hidden on. */
  shownDays: number;
  hiddenDays: number;
}

/** An imported day's site totals as shown (`visible` false: fewer than k visitors, nothing shown). */
export interface ImportedDayTotals {
  visitors: number;
  pageviews: number;
  visible: boolean;
}

/** The imported days' engagement cells, summed over the shown ones. */
export interface ImportedEngagement {
  visits: number;
  /** The pageviews of the shown visits' days (views per visit). */
  visitPageviews: number;
  bounces: number;
  /** Days whose visits are shown, and hidden; days whose bounces are shown. */
  visitDays: number;
  hiddenVisitDays: number;
  bounceDays: number;
}

/** Parameters: ?1 k, ?2 site, ?3 from, ?4 to (and ?5 the dimension). */
const IMPORTED_DAYS = `imported_days d WHERE d.site_id = ?2 AND d.day >= ?3 AND d.day <= ?4 AND NOT ${COLLECTED_DAY_SQL}`;

const shown = (noise: boolean, figure: "units" | "events", units: string, events: string, keySum: string) =>
  !noise
    ? figure === "units"
      ? units
      : events
    : figure === "units"
      ? shownUnitsSql(units, keySum, "?1")
      : shownEventsSql(events, units, keySum, "?1");

/**
 * Per value: the sums of its shown day cells, and its shown and hidden days. With the cover, each
 * day's hidden remainder and smallest shown cell are per-day aggregates (no window function: a
 * sort of every cell by day and count cost a year of pages 470 ms, bench/imported.ts).
 */
function cellsSql(noise: boolean, cover: boolean): string {
  const cells =
    "cells AS (SELECT c.day AS day, c.value AS value, c.visitors AS visitors, c.pageviews AS pageviews, c.key_sum AS key_sum, d.visitors AS day_visitors " +
    `FROM (SELECT d.day AS day, d.visitors AS visitors FROM ${IMPORTED_DAYS}) d ` +
    "JOIN imported_cells c ON c.site_id = ?2 AND c.dimension = ?5 AND c.day = d.day WHERE c.visitors > 0)";
  // Days whose hidden remainder (hidden cells, and visitors in no cell) is 1 … k − 1, with their smallest shown count.
  const short =
    "short AS (SELECT day, min(CASE WHEN visitors >= ?1 THEN visitors END) AS smallest FROM cells GROUP BY day " +
    "HAVING sum(CASE WHEN visitors < ?1 THEN visitors ELSE 0 END) + max(0, max(day_visitors) - sum(visitors)) BETWEEN 1 AND ?1 - 1)";
  // Of the cells with that count, the first by value.
  const covered =
    "covered AS (SELECT c.day AS day, min(c.value) AS value FROM short s JOIN cells c ON c.day = s.day AND c.visitors = s.smallest GROUP BY c.day)";
  const decided = cover
    ? "decided AS (SELECT c.*, c.visitors >= ?1 AND v.value IS NULL AS visible FROM cells c LEFT JOIN covered v ON v.day = c.day AND v.value = c.value)"
    : "decided AS (SELECT *, visitors >= ?1 AS visible FROM cells)";
  return (
    `WITH ${[cells, ...(cover ? [short, covered] : []), decided].join(", ")} ` +
    `SELECT value, sum(CASE WHEN visible THEN ${shown(noise, "units", "visitors", "pageviews", "key_sum")} ELSE 0 END) AS visitors, ` +
    `sum(CASE WHEN visible THEN ${shown(noise, "events", "visitors", "pageviews", "key_sum")} ELSE 0 END) AS pageviews, ` +
    "sum(visible) AS shown_days, count(*) - sum(visible) AS hidden_days FROM decided GROUP BY value"
  );
}

const CELLS_SQL = new Map<string, string>();
for (const noise of [false, true]) for (const cover of [false, true]) CELLS_SQL.set(`${noise}/${cover}`, cellsSql(noise, cover));

/** Every value of `dimension` (a breakdown dimension, or `page`) over the scope's imported days. */
export async function importedCells(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  rule: ImportedRule,
  dimension: string,
): Promise<Map<string, ImportedSum>> {
  const rs = await db.query({
    // Pages do not split the day's visitors (a visitor views several): no cover there.
    sql: CELLS_SQL.get(`${!!scope.noise}/${rule.cover && dimension !== "page"}`)!,
    args: [scope.k, scope.siteId, scope.from, scope.to, dimension],
  });
  return new Map(
    rs.rows.map((r) => [
      String(r.value),
      {
        visitors: Number(r.visitors),
        pageviews: Number(r.pageviews),
        shownDays: Number(r.shown_days),
        hiddenDays: Number(r.hidden_days),
      },
    ]),
  );
}

function daysSql(noise: boolean): string {
  return (
    `SELECT d.day AS day, d.visitors >= ?1 AS visible, ${shown(noise, "units", "d.visitors", "d.pageviews", "d.key_sum")} AS visitors, ` +
    `${shown(noise, "events", "d.visitors", "d.pageviews", "d.key_sum")} AS pageviews FROM ${IMPORTED_DAYS} AND d.visitors > 0`
  );
}

const DAYS_SQL = { exact: daysSql(false), perturbed: daysSql(true) };

/** The scope's imported days with visitors, each with its totals as shown. */
export async function importedDayTotals(db: ReadOnlyDatabase, scope: ReportScope): Promise<Map<string, ImportedDayTotals>> {
  const rs = await db.query({
    sql: scope.noise ? DAYS_SQL.perturbed : DAYS_SQL.exact,
    args: [scope.k, scope.siteId, scope.from, scope.to],
  });
  return new Map(
    rs.rows.map((r) => {
      const visible = Number(r.visible) === 1;
      return [
        String(r.day),
        { visible, visitors: visible ? Number(r.visitors) : 0, pageviews: visible ? Number(r.pageviews) : 0 },
      ];
    }),
  );
}

function engagementSql(noise: boolean): string {
  const visitsShown = "(d.visitors >= ?1 AND d.visits >= ?1)";
  const bouncesShown = `(${visitsShown} AND d.bounces >= ?1)`;
  return (
    `SELECT sum(CASE WHEN ${visitsShown} THEN ${shown(noise, "units", "d.visits", "d.pageviews", "d.key_sum")} ELSE 0 END) AS visits, ` +
    `sum(CASE WHEN ${visitsShown} THEN ${shown(noise, "events", "d.visits", "d.pageviews", "d.key_sum")} ELSE 0 END) AS visit_pageviews, ` +
    `sum(CASE WHEN ${bouncesShown} THEN ${shown(noise, "units", "d.bounces", "0", "d.key_sum")} ELSE 0 END) AS bounces, ` +
    `sum(${visitsShown}) AS visit_days, sum(NOT ${visitsShown}) AS hidden_visit_days, sum(${bouncesShown}) AS bounce_days ` +
    `FROM ${IMPORTED_DAYS} AND d.visits > 0`
  );
}

const ENGAGEMENT_SQL = { exact: engagementSql(false), perturbed: engagementSql(true) };

/** The scope's imported days' visits and bounces, summed over their shown cells. */
export async function importedEngagement(db: ReadOnlyDatabase, scope: ReportScope): Promise<ImportedEngagement> {
  const rs = await db.query({
    sql: scope.noise ? ENGAGEMENT_SQL.perturbed : ENGAGEMENT_SQL.exact,
    args: [scope.k, scope.siteId, scope.from, scope.to],
  });
  const r = rs.rows[0];
  return {
    visits: Number(r?.visits ?? 0),
    visitPageviews: Number(r?.visit_pageviews ?? 0),
    bounces: Number(r?.bounces ?? 0),
    visitDays: Number(r?.visit_days ?? 0),
    hiddenVisitDays: Number(r?.hidden_visit_days ?? 0),
    bounceDays: Number(r?.bounce_days ?? 0),
  };
}
