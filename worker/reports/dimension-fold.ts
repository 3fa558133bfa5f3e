/**
 * Folding pageviews into the dimension cells (docs/reports.md, "Breakdowns"). A unit's
 * dimensions on a local day are those of its first pageview that day (the exit page: of its
 * last), kept per session-day in rollup_session_day. A dimension-day cell counts the session-days
 * with its value, their pageviews, and — per goal — their converting units and conversions.
 *
 * A later pageview can change a session-day's exit page, so each fold moves the session-days
 * it touches: their contributions as they were (copied to a scratch table first) leave the
 * cells, their contributions as they are now join them. The cells of a day change only while
 * it is unpublished, like every cell (rollup/raw-rows.ts foldInstant). Units with no pageview that day, or
 * no value (no UTM, an unknown country, rows from before dimensions), are in no cell: reports
 * read them as the day's total minus its cells. The pair cells of nesting dimensions
 * (dimension-pairs.ts) take each new session-day in the same statements (their values are
 * entry dimensions, which a later pageview does not move). The site-days' engagement rows move
 * with them too (engagement-fold.ts).
 */
import type { InStatement } from "@libsql/client/web";
import { DIMENSIONS, ENTRY_DIMENSIONS, PAGEVIEW_DIMENSIONS } from "./dimensions";
import { addPairs } from "./dimension-pairs";
import { emptiedBuckets, moveEngagement } from "./engagement-fold";
import { unitKeySql } from "./noise";

/** A statement over the fold's raw rows (rollup/raw-rows.ts rawRows): `WITH raw AS (…)` is prefixed. */
type WithRaw = (sql: string) => InStatement;

const KEY = "site_id, day, unit";
/** The session-days (of `s`) with a pageview among the fold's raw rows. */
const TOUCHED = "(s.site_id, s.day, s.unit) IN (SELECT site_id, day, unit FROM raw WHERE kind = 'pageview')";

/** One row per session-day of `table` and dimension, with the session-day's value of it. */
function expanded(table: string, where: string): string {
  const names = DIMENSIONS.map((d) => `SELECT '${d}' AS name`).join(" UNION ALL ");
  const value = `CASE d.name ${DIMENSIONS.map((d) => `WHEN '${d}' THEN s.${d}`).join(" ")} END`;
  return `SELECT s.site_id AS site_id, s.day AS day, s.unit AS unit, s.pageviews AS pageviews, d.name AS dimension, ${value} AS value FROM ${table} s CROSS JOIN (${names}) AS d WHERE ${where}`;
}

/** Adds (sign 1) or removes (sign -1) the session-days' contributions to the site's dimension cells. */
function moveVisitors(withRaw: WithRaw, table: string, sign: 1 | -1): InStatement {
  return withRaw(
    `, e AS (${expanded(table, TOUCHED)}) ` +
      "INSERT INTO rollup_dimension_day (site_id, day, dimension, value, visitors, pageviews, key_sum) " +
      `SELECT site_id, day, dimension, value, ${sign} * count(*), ${sign} * sum(pageviews), ${sign} * sum(${unitKeySql("unit")}) FROM e WHERE value IS NOT NULL GROUP BY site_id, day, dimension, value ` +
      "ON CONFLICT (site_id, dimension, day, value) DO UPDATE SET visitors = rollup_dimension_day.visitors + excluded.visitors, " +
      "pageviews = rollup_dimension_day.pageviews + excluded.pageviews, key_sum = rollup_dimension_day.key_sum + excluded.key_sum",
  );
}

/** The same for their goals' cells: each converting unit of the day, with its conversions. */
function moveGoals(withRaw: WithRaw, table: string, sign: 1 | -1): InStatement {
  return withRaw(
    `, e AS (${expanded(table, TOUCHED)}) ` +
      "INSERT INTO rollup_goal_dimension_day (site_id, goal_id, day, dimension, value, units, conversions, key_sum) " +
      `SELECT e.site_id, g.goal_id, e.day, e.dimension, e.value, ${sign} * count(*), ${sign} * sum(g.conversions), ${sign} * sum(${unitKeySql("e.unit")}) ` +
      "FROM e JOIN rollup_goal_day_units g ON g.site_id = e.site_id AND g.day = e.day AND g.unit = e.unit WHERE e.value IS NOT NULL " +
      "GROUP BY e.site_id, g.goal_id, e.day, e.dimension, e.value " +
      "ON CONFLICT (site_id, dimension, day, goal_id, value) DO UPDATE SET units = rollup_goal_dimension_day.units + excluded.units, " +
      "conversions = rollup_goal_dimension_day.conversions + excluded.conversions, key_sum = rollup_goal_dimension_day.key_sum + excluded.key_sum",
  );
}

function emptiedCells(withRaw: WithRaw, table: string, empty: string): InStatement {
  return withRaw(
    `, e AS (${expanded("rollup_dimension_scratch", "true")}) ` +
      `DELETE FROM ${table} WHERE ${empty} AND (site_id, dimension, day) IN (SELECT DISTINCT site_id, dimension, day FROM e)`,
  );
}

/** After the events fold's cell statements: the session-days and dimension cells of its pageviews. */
export function dimensionFoldStatements(withRaw: WithRaw): InStatement[] {
  const columns = DIMENSIONS.join(", ");
  const keep = (d: string) =>
    `${d} = CASE WHEN rollup_session_day.first_pageview_id IS NULL THEN excluded.${d} ELSE rollup_session_day.${d} END`;
  return [
    "DELETE FROM rollup_dimension_scratch",
    withRaw(
      `INSERT INTO rollup_dimension_scratch (${KEY}, first_pageview_id, first_ts, last_ts, pageviews, ${columns}) ` +
        `SELECT ${KEY}, first_pageview_id, first_ts, last_ts, pageviews, ${columns} FROM rollup_session_day s WHERE ${TOUCHED}`,
    ),
    moveVisitors(withRaw, "rollup_dimension_scratch", -1),
    ...moveEngagement(withRaw, "rollup_dimension_scratch", TOUCHED, -1),
    moveGoals(withRaw, "rollup_dimension_scratch", -1),
    // SQLite's min()/max() aggregates take the other (bare) columns from the row they pick.
    withRaw(
      `, firsts AS (SELECT ${KEY}, min(id) AS first_id, count(*) AS pageviews, path AS entry_page, ${PAGEVIEW_DIMENSIONS.join(", ")} ` +
        `FROM raw WHERE kind = 'pageview' GROUP BY ${KEY}), ` +
        `lasts AS (SELECT ${KEY}, max(id) AS last_id, path AS exit_page FROM raw WHERE kind = 'pageview' GROUP BY ${KEY}), ` +
        // Its own CTE: a second min()/max() beside min(id) would make SQLite pick the bare columns' row arbitrarily.
        `times AS (SELECT ${KEY}, min(ts) AS first_ts, max(ts) AS last_ts FROM raw WHERE kind = 'pageview' GROUP BY ${KEY}) ` +
        `INSERT INTO rollup_session_day (${KEY}, first_pageview_id, last_pageview_id, first_ts, last_ts, unit_key, pageviews, ${columns}) ` +
        `SELECT f.site_id, f.day, f.unit, f.first_id, l.last_id, t.first_ts, t.last_ts, ${unitKeySql("f.unit")}, f.pageviews, ${DIMENSIONS.map((d) => (d === "exit_page" ? "l.exit_page" : `f.${d}`)).join(", ")} ` +
        "FROM firsts f JOIN lasts l ON l.site_id = f.site_id AND l.day = f.day AND l.unit = f.unit " +
        "JOIN times t ON t.site_id = f.site_id AND t.day = f.day AND t.unit = f.unit WHERE true " +
        `ON CONFLICT (${KEY}) DO UPDATE SET pageviews = rollup_session_day.pageviews + excluded.pageviews, ` +
        `${ENTRY_DIMENSIONS.map(keep).join(", ")}, ` +
        "first_pageview_id = coalesce(rollup_session_day.first_pageview_id, excluded.first_pageview_id), " +
        "exit_page = excluded.exit_page, last_pageview_id = excluded.last_pageview_id, " +
        // The visit's span, whatever order its pageviews arrive in (a beacon retried late, an earlier-stamped one folded after).
        "first_ts = CASE WHEN rollup_session_day.first_ts IS NULL THEN excluded.first_ts ELSE min(rollup_session_day.first_ts, excluded.first_ts) END, " +
        "last_ts = CASE WHEN rollup_session_day.last_ts IS NULL THEN excluded.last_ts ELSE max(rollup_session_day.last_ts, excluded.last_ts) END",
    ),
    moveVisitors(withRaw, "rollup_session_day", 1),
    moveGoals(withRaw, "rollup_session_day", 1),
    ...moveEngagement(withRaw, "rollup_session_day", TOUCHED, 1),
    emptiedBuckets(withRaw),
    ...addPairs(withRaw, TOUCHED, "rollup_dimension_scratch"),
    // Cells every session-day has left (an exit page moved on) go, so a fold split anywhere leaves the same cells.
    emptiedCells(withRaw, "rollup_dimension_day", "visitors = 0"),
    emptiedCells(withRaw, "rollup_goal_dimension_day", "units = 0 AND conversions = 0"),
  ];
}

/**
 * After the conversions fold's goal-day units: the converting units new to a goal-day (ids above
 * `newUnitsAbove`, the fold's mark) and the conversions folded now, under their session-day's
 * dimensions. Units without a session-day (no pageview that day, no session) stay out.
 */
export function goalDimensionFoldStatements(withRaw: WithRaw, newUnitsAbove: string): InStatement[] {
  const sessionDays = (from: string) =>
    `${expanded("rollup_session_day", "true")} AND (s.site_id, s.day, s.unit) IN (SELECT site_id, day, unit FROM ${from})`;
  const upsert = (select: string): string =>
    "INSERT INTO rollup_goal_dimension_day (site_id, goal_id, day, dimension, value, units, conversions, key_sum) " +
    select +
    " ON CONFLICT (site_id, dimension, day, goal_id, value) DO UPDATE SET units = rollup_goal_dimension_day.units + excluded.units, " +
    "conversions = rollup_goal_dimension_day.conversions + excluded.conversions, key_sum = rollup_goal_dimension_day.key_sum + excluded.key_sum";
  const fresh = `(SELECT site_id, day, unit FROM rollup_goal_day_units WHERE id > ${newUnitsAbove})`;
  return [
    withRaw(
      `, e AS (${sessionDays(fresh)}) ` +
        upsert(
          `SELECT e.site_id, g.goal_id, e.day, e.dimension, e.value, count(*), 0, sum(${unitKeySql("e.unit")}) ` +
            `FROM e JOIN rollup_goal_day_units g ON g.site_id = e.site_id AND g.day = e.day AND g.unit = e.unit AND g.id > ${newUnitsAbove} ` +
            "WHERE e.value IS NOT NULL GROUP BY e.site_id, g.goal_id, e.day, e.dimension, e.value",
        ),
    ),
    withRaw(
      `, c AS (SELECT site_id, goal_id, day, unit, count(*) AS n FROM raw GROUP BY site_id, goal_id, day, unit), ` +
        `e AS (${sessionDays("c")}) ` +
        upsert(
          "SELECT e.site_id, c.goal_id, e.day, e.dimension, e.value, 0, sum(c.n), 0 " +
            "FROM e JOIN c ON c.site_id = e.site_id AND c.day = e.day AND c.unit = e.unit " +
            "WHERE e.value IS NOT NULL GROUP BY e.site_id, c.goal_id, e.day, e.dimension, e.value",
        ),
    ),
  ];
}
