/**
 * Revenue figures: `total_revenue` and `average_revenue` of a revenue goal (one with a currency),
 * per goal in the conversions report, per row of a breakdown with `goal`, under filters, and as
 * query metrics. Each is the sum of a cell of converting units' revenue (rollup_goal_day_units,
 * cents per unit and day) through the revenue rule (privacy/revenue.ts): shown only where the
 * units' cell is, hidden when one unit dominates, perturbed. Every figure carries its currency.
 *
 * Cells are read from the per-session rows, which retention keeps for WREN_RAW_RETENTION_DAYS: a
 * period that starts earlier reads its revenue `suppressed` (the rest of the report is
 * unchanged). Unfiltered, a goal's cell holds all its converting units, those without a session
 * (a backend's purchase) included; filtered or broken down, the session-days matching (a unit
 * without a pageview that day has no dimensions: explore/units.ts).
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import type { Row } from "@libsql/client";
import type { Cell } from "./explore/cells";
import type { Filter } from "./explore/filters";
import { condition } from "./explore/units";
import type { Dimension } from "./dimensions";
import { round, SUPPRESSED, type Figure, type Qualifier } from "./figures";
import { unitKeySql } from "./noise";
import { revenueRule, type RevenueCell, type RevenueRule } from "./privacy";
import type { ReportScope } from "./scope";
import { retentionDays, retentionHorizon } from "./retention";
import { now } from "../lib/clock";

/** A revenue figure: in the goal's currency (whole units for totals, 2 decimals for averages). */
export interface RevenueFigure {
  value: number | null;
  qualifier: Qualifier;
  currency: string;
}

export interface RevenueFigures {
  total_revenue: RevenueFigure;
  average_revenue: RevenueFigure;
}

export interface RevenueOptions {
  /** The rule (the attack test takes it out: exactRevenue, cellOnlyRevenue). */
  rule?: RevenueRule;
  /** The first day whose per-session rows are kept whole: an earlier period reads suppressed. */
  perSessionFrom?: string;
}

/** The goals of a site that are revenue goals, with their currency. */
export async function revenueGoals(db: ReadOnlyDatabase, siteId: string): Promise<Map<string, string>> {
  const rs = await db.query({ sql: "SELECT id, currency FROM goals WHERE site_id = ? AND currency IS NOT NULL", args: [siteId] });
  return new Map(rs.rows.map((r) => [String(r.id), String(r.currency)]));
}

/**
 * A cell's figures. `converting`: the converting units as the reader's row shows them, the
 * average's denominator (design: shown total / shown converting units); suppressed hides both.
 */
export function revenueFigures(
  cell: RevenueCell | undefined,
  currency: string,
  scope: ReportScope,
  converting: Figure | undefined,
  options: RevenueOptions = {},
): RevenueFigures {
  const hidden: RevenueFigures = {
    total_revenue: { ...SUPPRESSED, currency },
    average_revenue: { ...SUPPRESSED, currency },
  };
  if (options.perSessionFrom && scope.from < options.perSessionFrom) return hidden;
  if (!cell) {
    // Nobody converted: an exact 0 only where the row itself reads an exact 0.
    return converting?.value === 0
      ? { total_revenue: { value: 0, qualifier: converting.qualifier, currency }, average_revenue: hidden.average_revenue }
      : hidden;
  }
  if (converting && converting.value === null) return hidden;
  const rule = options.rule ?? revenueRule;
  if (rule.perturbs && !scope.noiseKey) throw new Error("revenue figures need the noise key");
  const total = rule.shown(cell, scope.noiseKey!, scope.k);
  if (total === null) return hidden;
  const qualifier: Qualifier = rule.perturbs ? "estimated" : "exact";
  const units = converting?.value ?? cell.units;
  return {
    total_revenue: { value: total, qualifier, currency },
    average_revenue:
      units > 0 ? { value: round(total / units, 2), qualifier: "estimated", currency } : { ...SUPPRESSED, currency },
  };
}

/** A revenue cell from a row of the cell queries below (their columns are named alike). */
function revenueCellOf(r: Row): RevenueCell {
  return {
    units: Number(r.units),
    conversions: Number(r.conversions),
    keySum: Number(r.key_sum),
    cents: Number(r.cents ?? 0),
    largest: Number(r.largest ?? 0),
    shares: Number(r.shares ?? 0),
    trueLargest: Number(r.true_largest ?? 0),
  };
}

/** An engine cell with its revenue as the rule reads it. */
export function engineRevenueCell(cell: Cell): RevenueCell {
  return {
    units: cell.units,
    conversions: cell.events,
    keySum: cell.keySum,
    cents: cell.revenue?.cents ?? 0,
    largest: cell.revenue?.largest ?? 0,
    shares: cell.revenue?.shares ?? 0,
    trueLargest: cell.revenue?.trueLargest ?? 0,
  };
}

/**
 * Every revenue goal's cell over the period with all its converting units, sessionless ones
 * included (the unfiltered conversions report), read from rollup_goal_day_units.
 */
export async function goalRevenueCells(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  goalIds: readonly string[],
): Promise<Map<string, RevenueCell>> {
  if (goalIds.length === 0) return new Map();
  const key = unitKeySql("g.unit");
  const rs = await db.query({
    sql:
      `SELECT g.goal_id AS goal, count(*) AS units, sum(g.conversions) AS conversions, sum(${key}) AS key_sum, sum(g.revenue) AS cents, ` +
      "max(g.revenue_moved) AS largest, total(g.revenue_moved - g.revenue) AS shares, max(g.revenue) AS true_largest FROM rollup_goal_day_units g " +
      `WHERE g.site_id = ? AND g.day >= ? AND g.day <= ? AND g.goal_id IN (${goalIds.map(() => "?").join(", ")}) GROUP BY g.goal_id`,
    args: [scope.siteId, scope.from, scope.to, ...goalIds],
  });
  return new Map(rs.rows.map((r) => [String(r.goal), revenueCellOf(r)]));
}

/**
 * The filtered units' revenue cells, grouped by goal and optionally a session dimension: keyed by
 * JSON [goal] or [value, goal]. The same cells as the engine's (explore/cells.ts, grouped by the
 * dimension and `goal` with `revenue`): the session-days matching the filters that converted, their
 * key sum the session-days' unit keys. Read from the goals' side — each converting unit's
 * session-day found by its primary key — since a goal's converting units are a small part of the
 * period's session-days, which the engine would scan (bench/revenue.ts).
 */
export async function filteredRevenueCells(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  goalIds: readonly string[],
  filters: readonly Filter[],
  by?: Dimension,
): Promise<Map<string, RevenueCell>> {
  if (goalIds.length === 0) return new Map();
  const conditions = filters.map((f) => condition(f, scope.siteId));
  const rs = await db.query({
    sql:
      `SELECT g.goal_id AS goal, ${by ? `s.${by}` : "NULL"} AS value, count(*) AS units, sum(g.conversions) AS conversions, sum(s.unit_key) AS key_sum, ` +
      "sum(g.revenue) AS cents, max(g.revenue_moved) AS largest, total(g.revenue_moved - g.revenue) AS shares, max(g.revenue) AS true_largest " +
      "FROM rollup_goal_day_units g CROSS JOIN rollup_session_day s ON s.site_id = g.site_id AND s.day = g.day AND s.unit = g.unit " +
      `WHERE g.site_id = ? AND g.day >= ? AND g.day <= ? AND g.goal_id IN (${goalIds.map(() => "?").join(", ")})` +
      conditions.map((c) => ` AND ${c.sql}`).join("") +
      " GROUP BY g.goal_id, value",
    args: [scope.siteId, scope.from, scope.to, ...goalIds, ...conditions.flatMap((c) => c.args)],
  });
  return new Map(
    rs.rows.map((r) => [
      JSON.stringify(by ? [r.value === null ? null : String(r.value), String(r.goal)] : [String(r.goal)]),
      revenueCellOf(r),
    ]),
  );
}

/** The conversions report's rows with their revenue figures (revenue goals only). */
export async function withConversionsRevenue<R extends { goal: { id: string }; converting_sessions: Figure }>(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  rows: R[],
  filters: readonly Filter[] | null,
  options: RevenueOptions = {},
): Promise<(R & Partial<RevenueFigures>)[]> {
  // Closed hours (`today`, `24h`) are read again every hour: no revenue there, as no filter (explore/plan.ts).
  if (scope.hours) return rows;
  const currencies = await revenueGoals(db, scope.siteId);
  const ids = rows.map((r) => r.goal.id).filter((id) => currencies.has(id));
  if (ids.length === 0) return rows;
  const cells = filters
    ? new Map([...(await filteredRevenueCells(db, scope, ids, filters))].map(([k, c]) => [(JSON.parse(k) as string[])[0]!, c]))
    : await goalRevenueCells(db, scope, ids);
  return rows.map((row) => {
    const currency = currencies.get(row.goal.id);
    if (!currency) return row;
    return { ...row, ...revenueFigures(cells.get(row.goal.id), currency, scope, row.converting_sessions, options) };
  });
}

/** A breakdown's rows with a revenue goal's figures: the row's value's units that converted on it. */
export async function withBreakdownRevenue<R extends { value: string | null; other: boolean; converting_sessions?: Figure }>(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  rows: R[],
  dimension: Dimension,
  goal: string,
  filters: readonly Filter[],
  options: RevenueOptions = {},
): Promise<(R & Partial<RevenueFigures>)[]> {
  const currency = scope.hours ? undefined : (await revenueGoals(db, scope.siteId)).get(goal);
  if (!currency) return rows;
  const cells = await filteredRevenueCells(db, scope, [goal], filters, dimension);
  return rows.map((row) => {
    if (row.other) return { ...row, ...revenueFigures(undefined, currency, scope, SUPPRESSED, options) };
    return {
      ...row,
      ...revenueFigures(cells.get(JSON.stringify([row.value, goal])), currency, scope, row.converting_sessions, options),
    };
  });
}

/** The first day whose per-session rows WREN_RAW_RETENTION_DAYS keeps whole (explore/plan.ts). */
export function perSessionFrom(env: { WREN_RAW_RETENTION_DAYS?: string | null }): string {
  return retentionHorizon(now(), retentionDays(env.WREN_RAW_RETENTION_DAYS)).funnelsFrom;
}
