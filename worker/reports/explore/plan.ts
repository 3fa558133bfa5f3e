/**
 * How a report answers its filters, decided with its period before anything is computed:
 * - none given: the unfiltered report;
 * - over days whose per-session rows are kept (WREN_RAW_RETENTION_DAYS): the filtered units
 *   (units.ts) through rule F — every report, any filters;
 * - one `is` filter on a session dimension over older days, on the daily timeseries and the
 *   conversions report: the breakdown's day cells of that value (filter.ts), as before filters
 *   could be combined, since the breakdown's cells outlive the per-session rows;
 * - otherwise a 422 naming `filter`: older days have no per-session rows to cut.
 * Periods of closed hours (`today`, `24h`) read raw hours and take no filter (a 400).
 */
import { HttpProblem } from "../../lib/problem";
import type { Filter as DayCellFilter } from "../filter";
import type { Period } from "../period";
import { now } from "../../lib/clock";
import { retentionDays, retentionHorizon } from "../retention";
import { canonicalFilters, onSessionDimension, type Filter } from "./filters";

export type FilterPlan = { by: "none" } | { by: "units"; filters: Filter[] } | { by: "day-cells"; filter: DayCellFilter };

export interface PlanContext {
  /** The instant retention is judged by (the service clock). */
  now: number;
  /** WREN_RAW_RETENTION_DAYS. */
  retentionDays: number;
  /** The report can answer one filter from the breakdown's day cells (daily timeseries, conversions). */
  dayCells?: boolean;
}

export function planFilters(filters: readonly Filter[] | undefined, period: Period, context: PlanContext): FilterPlan {
  if (!filters || filters.length === 0) return { by: "none" };
  if (period.hours) {
    throw new HttpProblem(
      400,
      "filter: applies to whole days and their hours, not to the running day's closed hours (today, 24h).",
      {
        field: "filter",
      },
    );
  }
  const [only] = filters;
  if (
    period.from < earliestPerSessionDay(context) &&
    context.dayCells &&
    filters.length === 1 &&
    only &&
    !only.negated &&
    onSessionDimension(only)
  ) {
    return { by: "day-cells", filter: { dimension: only.dimension, value: only.value } };
  }
  requirePerSessionDays(period, context, "filter");
  return { by: "units", filters: canonicalFilters(filters) };
}

/** The first local day whose per-session rows retention still keeps whole. */
function earliestPerSessionDay(context: PlanContext): string {
  return retentionHorizon(context.now, context.retentionDays).funnelsFrom;
}

/** Refuses (422 naming `field`) a period that starts before the days whose per-session rows are kept. */
export function requirePerSessionDays(
  period: { from: string },
  context: PlanContext,
  field: string,
  status: 400 | 422 = 422,
): void {
  const earliest = earliestPerSessionDay(context);
  if (period.from >= earliest) return;
  throw new HttpProblem(
    status,
    `${field}: filtered figures are read from per-session rows, which are kept for WREN_RAW_RETENTION_DAYS (${context.retentionDays} days); the earliest day such a period can start is ${earliest}.`,
    { field },
  );
}

/**
 * A grouping by a custom property (`dimension=prop:NAME`): read from per-session rows like a
 * filter, so whole days within retention only (422 naming `field`), never closed hours (400).
 */
export function requirePropPeriod(period: Period, env: { WREN_RAW_RETENTION_DAYS?: string | null }, field: string): void {
  if (period.hours) {
    throw new HttpProblem(
      400,
      `${field}: a custom property applies to whole days, not to the running day's closed hours (today, 24h).`,
      { field },
    );
  }
  requirePerSessionDays(period, filterContext(env), field);
}

/** The plan's context from a route's bindings and the service clock. */
export function filterContext(env: { WREN_RAW_RETENTION_DAYS?: string | null }, dayCells = false): PlanContext {
  return { now: now(), retentionDays: retentionDays(env.WREN_RAW_RETENTION_DAYS), dayCells };
}

/** A route's filters, planned once its period is known (prepareReport's check): `plan` is read after. */
export function filterPlanner(env: { WREN_RAW_RETENTION_DAYS?: string | null }, filters: readonly Filter[] | undefined) {
  const planner = {
    plan: { by: "none" } as FilterPlan,
    check(period: Period, dayCells = false): void {
      planner.plan = planFilters(filters, period, filterContext(env, dayCells));
    },
    /** A comparison's earlier period (compare.ts): filtered per session, it must start within retention too (a 422 naming `compare`). */
    checkEarlier(earlier: { from: string }): void {
      if (planner.plan.by === "units") requirePerSessionDays(earlier, filterContext(env), "compare");
    },
  };
  return planner;
}
