/**
 * Answers a query (schema.ts) from the filter engine: the filtered units grouped by the query's
 * dimensions (explore/cells.ts), each group a cell through rule F like every filtered figure
 * (explore/shown.ts), rates over shown cells. Groups hidden below k are one `other` row.
 */
import { HttpProblem } from "../../lib/problem";
import type { ReadOnlyDatabase } from "../../lib/read-only";
import { delta } from "../compare";
import { round, SUPPRESSED, weakest, type Figure } from "../figures";
import { isPropKey, readCellGroupings, type Cell, type CellKey, type Grouping } from "../explore/cells";
import { cellFigures, daysWithData, type CellFigures, type ExploreOptions } from "../explore/shown";
import { readDurationMedians, type GroupMedians } from "../explore/medians";
import { filteredUnits } from "../explore/units";
import type { ReportScope } from "../scope";
import { durationMedianAt } from "../histogram";
import { localMinuteLabel } from "../timezone";
import { cellKeyOf, type QueryBody, type QueryMetric } from "./schema";
import { engineRevenueCell, revenueFigures, revenueGoals, type RevenueOptions } from "../revenue";

export interface QueryRow {
  dimensions: (string | null)[];
  metrics: (number | null)[];
  qualifiers: Figure["qualifier"][];
  other: boolean;
  /** With a revenue metric: the row's goal's currency, null for a plain goal. */
  currency?: string | null;
  /** With `include.comparisons`: the same group's figures in the earlier period, and the change. */
  comparison?: { metrics: (number | null)[]; qualifiers: Figure["qualifier"][]; change: (number | null)[] };
}

/** A query's groups, sorted, and whether some were hidden (the `other` row). */
export interface QueryResult {
  rows: QueryRow[];
  hidden: boolean;
}

/** The metrics a grouping cannot give, and why (a 422 naming `metrics`). */
function refuse(metrics: readonly QueryMetric[], keys: readonly CellKey[]): void {
  const byGoal = keys.includes("goal");
  const byPage = keys.includes("page");
  const byProp = keys.some(isPropKey);
  const need = (metric: QueryMetric, ok: boolean, why: string) => {
    if (metrics.includes(metric) && !ok) throw new HttpProblem(422, `metrics: ${metric} ${why}`, { field: "metrics" });
  };
  need(
    "events",
    byGoal || byProp,
    "counts a goal's conversions (group by event:goal) or the events that carried a property's value (group by event:props:NAME).",
  );
  need("conversion_rate", byGoal, "is a goal's converting visitors over all visitors: group by event:goal.");
  need(
    "pageviews",
    !byGoal && !byProp,
    "is not counted per goal or property value (group by event:page instead; a property's value counts events).",
  );
  need("views_per_visit", !byGoal && !byPage && !byProp, "is per visit, not per page, goal or property value.");
  need("bounce_rate", !byGoal, "is per visit, not per goal.");
  need("visit_duration", !byGoal, "is per visit, not per goal.");
  need("total_revenue", byGoal, "is a revenue goal's: group by event:goal.");
  need("average_revenue", byGoal, "is a revenue goal's: group by event:goal.");
}

const key = (cell: Cell, drop = -1) => JSON.stringify(cell.keys.filter((_, i) => i !== drop));

/** A rate in percent of two shown figures, as Plausible gives it (bounce_rate: whole percent). */
function percent(numerator: Figure, denominator: Figure, decimals: number): Figure {
  if (numerator.value === null || denominator.value === null) return SUPPRESSED;
  if (denominator.value === 0) return { value: 0, qualifier: weakest(numerator.qualifier, denominator.qualifier) };
  const value = round(Math.min(1, numerator.value / denominator.value) * 100, decimals);
  return {
    value,
    qualifier:
      numerator.qualifier === "exact" &&
      denominator.qualifier === "exact" &&
      value === (numerator.value / denominator.value) * 100
        ? "exact"
        : "estimated",
  };
}

export async function runQuery(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  body: QueryBody,
  options: ExploreOptions & { revenue?: RevenueOptions } = {},
): Promise<QueryResult> {
  const keys = body.dimensions.map(cellKeyOf);
  refuse(body.metrics, keys);
  const units = filteredUnits(scope, body.filters);
  const goalAt = keys.indexOf("goal");
  const wanted = (metric: QueryMetric) => body.metrics.includes(metric);
  const wantsRevenue = wanted("total_revenue") || wanted("average_revenue");
  // One statement for every grouping the metrics need: the units are cut once.
  const groupings: Grouping[] = [
    { keys, bounces: wanted("bounce_rate"), revenue: wantsRevenue },
    ...(goalAt >= 0 ? [{ keys: keys.filter((k) => k !== "goal") }] : []),
  ];
  // The medians are reduced per group in SQL (explore/medians.ts): a statement of their own.
  const [read, days, medians, currencies] = await Promise.all([
    readCellGroupings(db, scope, units, groupings),
    daysWithData(db, scope),
    wanted("visit_duration") ? readDurationMedians(db, scope, units, keys) : (new Map() as GroupMedians),
    wantsRevenue ? revenueGoals(db, scope.siteId) : new Map<string, string>(),
  ]);
  const [cells, denominators = []] = read as [Cell[], Cell[]?];
  const denominatorOf = new Map(denominators.map((c) => [key(c), c]));
  const shown = (cell: Cell | undefined): CellFigures => cellFigures(cell, scope, true, days.size > 0, options);
  const rows: QueryRow[] = [];
  let hidden = false;
  for (const cell of cells) {
    const main = shown(cell);
    if (main.units.value === null) {
      hidden = true;
      continue;
    }
    const currency = wantsRevenue ? (currencies.get(String(cell.keys[goalAt])) ?? null) : undefined;
    const revenue = currency ? revenueFigures(engineRevenueCell(cell), currency, scope, main.units, options.revenue) : null;
    const figure = (metric: QueryMetric): Figure => {
      switch (metric) {
        case "total_revenue":
          return revenue ? revenue.total_revenue : SUPPRESSED;
        case "average_revenue":
          return revenue ? revenue.average_revenue : SUPPRESSED;
        case "visitors":
        case "visits":
          return main.units;
        case "pageviews":
        case "events":
          return main.events;
        case "views_per_visit":
          return main.events.value === null || !main.units.value
            ? SUPPRESSED
            : { value: round(main.events.value / main.units.value, 2), qualifier: "estimated" };
        case "bounce_rate":
          return percent(
            shown(
              cell.bounces?.units ? { keys: [], units: cell.bounces.units, events: 0, keySum: cell.bounces.keySum } : undefined,
            ).units,
            main.units,
            0,
          );
        case "visit_duration": {
          const median = medians.get(key(cell));
          return median ? durationMedianAt(median.rank, median.blocks, scope.k).value : SUPPRESSED;
        }
        case "conversion_rate":
          return percent(main.units, shown(denominatorOf.get(key(cell, goalAt))).units, 2);
      }
    };
    const figures = body.metrics.map(figure);
    rows.push({
      dimensions: cell.keys.map((v, i) => label(keys[i]!, v, scope)),
      metrics: figures.map((f) => f.value),
      qualifiers: figures.map((f) => f.qualifier),
      other: false,
      ...(currency !== undefined ? { currency } : {}),
    });
  }
  sortRows(rows, body);
  return { rows, hidden };
}

/** A page of the result; the `other` row closes the last page, as in the reports. */
export function pageOf(result: QueryResult, body: QueryBody): { rows: QueryRow[]; total: number } {
  const { offset, limit } = body.pagination;
  const page = result.rows.slice(offset, offset + limit);
  if (result.hidden && offset + limit >= result.rows.length) {
    page.push({
      dimensions: body.dimensions.map(() => null),
      metrics: body.metrics.map(() => null),
      qualifiers: body.metrics.map(() => "suppressed"),
      other: true,
    });
  }
  return { rows: page, total: result.rows.length + (result.hidden ? 1 : 0) };
}

/** Rates change by their difference, counts by their relative change in percent, as Plausible gives `change`. */
const RATES: readonly QueryMetric[] = ["bounce_rate", "conversion_rate", "views_per_visit", "visit_duration"];

/**
 * Each current group beside the same group of the earlier period's own result (compare.ts: a
 * group that result does not list reads `absent`: hidden there, or 0 when it had no visitors).
 */
export function compareQuery(current: QueryResult, previous: QueryResult, absent: Figure, body: QueryBody): QueryResult {
  const before = new Map(previous.rows.map((r) => [JSON.stringify(r.dimensions), r]));
  const rows = current.rows.map((row): QueryRow => {
    const earlier = before.get(JSON.stringify(row.dimensions));
    const figures = body.metrics.map((_, i): Figure =>
      earlier ? { value: earlier.metrics[i]!, qualifier: earlier.qualifiers[i]! } : absent,
    );
    const change = body.metrics.map((metric, i) => {
      const d = delta({ value: row.metrics[i]!, qualifier: row.qualifiers[i]! }, figures[i]!);
      if (RATES.includes(metric)) return d.absolute.value;
      return d.relative === null || d.relative.value === null ? null : round(d.relative.value * 100, 1);
    });
    return { ...row, comparison: { metrics: figures.map((f) => f.value), qualifiers: figures.map((f) => f.qualifier), change } };
  });
  return { rows, hidden: current.hidden };
}

/** A group's value as the query names it: an hour as Plausible writes it ("2026-11-20 10:00:00", local). */
function label(key: CellKey, value: string | number | null, scope: ReportScope): string | null {
  if (value === null) return null;
  if (key === "hour") return `${localMinuteLabel(scope.timeZone, Number(value)).replace("T", " ")}:00`;
  return String(value);
}

/** Sorts by `order_by` (metrics by value, missing last; dimensions by label), default the first metric descending. */
function sortRows(rows: QueryRow[], body: QueryBody): void {
  const order = body.order_by ?? [[body.metrics[0]!, "desc"]];
  for (const [name] of order) {
    if (!(body.metrics as string[]).includes(name) && !body.dimensions.includes(name)) {
      throw new HttpProblem(422, `order_by: ${name} is neither a metric nor a dimension of the query.`, { field: "order_by" });
    }
  }
  rows.sort((a, b) => {
    for (const [name, direction] of order) {
      const m = (body.metrics as string[]).indexOf(name);
      const x = m >= 0 ? a.metrics[m] : a.dimensions[body.dimensions.indexOf(name)];
      const y = m >= 0 ? b.metrics[m] : b.dimensions[body.dimensions.indexOf(name)];
      if (x === y) continue;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      const c = x < y ? -1 : 1;
      return direction === "asc" ? c : -c;
    }
    return JSON.stringify(a.dimensions).localeCompare(JSON.stringify(b.dimensions));
  });
}
