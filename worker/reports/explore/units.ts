/**
 * The units a filtered report counts: the session-days of the period (rollup_session_day, one
 * row per unit and local day with a pageview) that match every filter. A filter on a session
 * dimension reads the session-day's own value (its first pageview's; the exit page its last
 * one's); a page filter, whether the unit viewed the path that day (rollup_page_day_units); a
 * goal filter, whether it completed the goal that day (rollup_goal_day_units); a property filter,
 * whether any of its events that day carried the value (rollup_prop_day_units). These per-session
 * rows are kept for WREN_RAW_RETENTION_DAYS only, so filters reach back that far (explore/window.ts).
 *
 * Units with no pageview that day (a conversion posted by a backend, an engagement ping) have no
 * session-day and are in no filtered report: a filter reads what the visitor's pages say.
 */
import type { InValue } from "@libsql/client/web";
import { DIMENSIONS } from "../dimensions";
import type { ReportScope } from "../scope";
import { isPropKey, propName, type PropKey } from "./cells";
import { onSessionDimension, type Filter } from "./filters";

/** An SQL subquery and its arguments, in order. */
export interface Statement {
  sql: string;
  args: InValue[];
}

/**
 * The columns every unit row carries: what the cells group and sum by, and what the engagement
 * figures read (engagement.ts: the first and last pageview's instants). The unit's cell key
 * (noise.ts) is stored with it by the fold: the same in every cell it is in.
 */
const COLUMNS = [
  "s.day AS day",
  "s.unit AS unit",
  "s.pageviews AS pageviews",
  "s.unit_key AS unit_key",
  "s.first_ts AS first_ts",
  "s.last_ts AS last_ts",
  ...DIMENSIONS.map((d) => `s.${d} AS ${d}`),
];

/** One filter as a condition on the session-day `s` (also read from the goals' side: reports/revenue.ts). */
export function condition(filter: Filter, siteId: string): Statement {
  const not = filter.negated ? "NOT " : "";
  if (onSessionDimension(filter)) {
    // `is not` keeps the session-days without any value: they do not have this one.
    return { sql: filter.negated ? `s.${filter.dimension} IS NOT ?` : `s.${filter.dimension} = ?`, args: [filter.value] };
  }
  if (isPropKey(filter.dimension)) {
    return {
      sql: `${not}EXISTS (SELECT 1 FROM rollup_prop_day_units pr WHERE pr.site_id = ? AND pr.day = s.day AND pr.unit = s.unit AND pr.name = ? AND pr.value = ?)`,
      args: [siteId, propName(filter.dimension), filter.value],
    };
  }
  if (filter.dimension === "page") {
    return {
      sql: `${not}EXISTS (SELECT 1 FROM rollup_page_day_units p WHERE p.site_id = ? AND p.day = s.day AND p.path = ? AND p.unit = s.unit)`,
      args: [siteId, filter.value],
    };
  }
  return {
    sql: `${not}EXISTS (SELECT 1 FROM rollup_goal_day_units g WHERE g.site_id = ? AND g.goal_id = ? AND g.day = s.day AND g.unit = s.unit)`,
    args: [siteId, filter.value],
  };
}

/** The session-days of the scope's days matching every filter (none: all of them). */
export function filteredUnits(scope: ReportScope, filters: readonly Filter[]): Statement {
  // An `is` filter on a property leads: its value's units, read by (site, day, name, value), each
  // find its session-day by key. Probing every session-day of the period for the value instead
  // cost a key lookup each (pages under a property filter: 330 ms at 1 M events, `npm run bench explore`).
  const lead = filters.find((f) => isPropKey(f.dimension) && !f.negated);
  const conditions = filters.filter((f) => f !== lead).map((f) => condition(f, scope.siteId));
  const from = lead
    ? "rollup_prop_day_units lp INDEXED BY rollup_prop_day_units_by_value CROSS JOIN rollup_session_day s ON s.site_id = lp.site_id AND s.day = lp.day AND s.unit = lp.unit"
    : "rollup_session_day s";
  const leadWhere = lead ? " AND lp.site_id = ? AND lp.day >= ? AND lp.day <= ? AND lp.name = ? AND lp.value = ?" : "";
  const leadArgs = lead ? [scope.siteId, scope.from, scope.to, propName(lead.dimension as PropKey), lead.value] : [];
  return {
    sql:
      `SELECT ${COLUMNS.join(", ")} FROM ${from} WHERE s.site_id = ? AND s.day >= ? AND s.day <= ?${leadWhere}` +
      conditions.map((c) => ` AND ${c.sql}`).join(""),
    args: [scope.siteId, scope.from, scope.to, ...leadArgs, ...conditions.flatMap((c) => c.args)],
  };
}
