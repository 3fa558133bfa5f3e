/**
 * The statements that fold one source's raw rows into its cell tables: totals with
 * `INSERT … SELECT … GROUP BY … ON CONFLICT DO UPDATE`, and distinct units through
 * insert-or-ignore "units" tables — a fold notes the highest units id first (a "mark:" row),
 * inserts, and adds the number of rows above the mark to the cell's count.
 */
import type { InStatement } from "@libsql/client/web";
import { dimensionFoldStatements, goalDimensionFoldStatements } from "../dimension-fold";
import { bandSql, bucketSql } from "../histogram";
import { unitKeySql } from "../noise";
import { unitShareSql } from "../privacy/revenue";
import { rawRows, type Range } from "./raw-rows";
import { mark, setMark, type Source } from "./sources";
import type { ZoneGroup } from "./zones";

/** The primary keys of the counted cell tables: their ON CONFLICT targets. */
const SITE_DAY = "site_id, day";
const SITE_HOUR = "site_id, hour";
const PAGE_DAY = "site_id, day, path";
const GOAL_DAY = "site_id, day, goal_id";
const GOAL_HOUR = "site_id, goal_id, hour";
const VITAL_DAY = "site_id, day, path, metric";

/**
 * The statements that fold one source's rows of one zone into the rollups. Order matters
 * within a cell family: totals (which create the cells), mark, units, unit counts.
 */
export function foldStatements(source: Source, zone: ZoneGroup, range: Range): InStatement[] {
  const raw = rawRows(source, zone, range);
  const withRaw = (sql: string): InStatement => ({ sql: `WITH raw AS (${raw.sql}) ${sql}`, args: raw.args });
  const units = (name: string, table: string, keyColumns: string, filter = ""): InStatement[] => [
    setMark(name, table),
    withRaw(
      `INSERT OR IGNORE INTO ${table} (${keyColumns}, unit) SELECT ${keyColumns}, unit FROM raw ${filter} GROUP BY ${keyColumns}, unit`,
    ),
  ];
  // Adds the units a family gained since its mark to its cells' count, and their keys to the
  // cells' key sums (noise.ts). The cells already
  // exist (made by the totals statement from the same raw rows), so only the DO UPDATE branch
  // runs and `placeholder` values (for NOT NULL columns outside the key) are never stored.
  const countNew = (
    name: string,
    unitsTable: string,
    target: string,
    key: string,
    counter: string,
    conflict: string,
    placeholder?: [string, string],
  ): InStatement =>
    `INSERT INTO ${target} (${key}${placeholder ? `, ${placeholder[0]}` : ""}, ${counter}, key_sum) ` +
    `SELECT ${key}${placeholder ? `, ${placeholder[1]}` : ""}, count(*), sum(${unitKeySql("unit")}) FROM ${unitsTable} WHERE id > ${mark(name)} GROUP BY ${key} ` +
    `ON CONFLICT (${conflict}) DO UPDATE SET ${counter} = ${target}.${counter} + excluded.${counter}, key_sum = ${target}.key_sum + excluded.key_sum`;

  switch (source) {
    case "events":
      return [
        withRaw(
          "INSERT INTO rollup_site_day (site_id, day, visitors, pageviews) SELECT site_id, day, 0, sum(kind = 'pageview') FROM raw WHERE true GROUP BY site_id, day " +
            `ON CONFLICT (${SITE_DAY}) DO UPDATE SET pageviews = rollup_site_day.pageviews + excluded.pageviews`,
        ),
        ...units("site_day", "rollup_site_day_units", "site_id, day"),
        countNew("site_day", "rollup_site_day_units", "rollup_site_day", "site_id, day", "visitors", SITE_DAY),

        withRaw(
          "INSERT INTO rollup_site_hour (site_id, hour, day, visitors, pageviews) SELECT site_id, hour, day, 0, sum(kind = 'pageview') FROM raw WHERE true GROUP BY site_id, hour, day " +
            `ON CONFLICT (${SITE_HOUR}) DO UPDATE SET pageviews = rollup_site_hour.pageviews + excluded.pageviews`,
        ),
        // Each unit with its pageviews of the hour: a filtered report's hourly pageviews (reports/explore).
        setMark("site_hour", "rollup_site_hour_units"),
        withRaw(
          "INSERT INTO rollup_site_hour_units (site_id, hour, unit, pageviews) SELECT site_id, hour, unit, sum(kind = 'pageview') FROM raw WHERE true " +
            "GROUP BY site_id, hour, unit ON CONFLICT (site_id, hour, unit) DO UPDATE SET pageviews = rollup_site_hour_units.pageviews + excluded.pageviews",
        ),
        countNew("site_hour", "rollup_site_hour_units", "rollup_site_hour", "site_id, hour", "visitors", SITE_HOUR, [
          "day",
          "''",
        ]),

        withRaw(
          "INSERT INTO rollup_page_day (site_id, day, path, visitors, pageviews) SELECT site_id, day, path, 0, count(*) FROM raw WHERE kind = 'pageview' GROUP BY site_id, day, path " +
            `ON CONFLICT (${PAGE_DAY}) DO UPDATE SET pageviews = rollup_page_day.pageviews + excluded.pageviews`,
        ),
        // Each unit with its pageviews of the path: a filtered report's pageviews (reports/explore).
        setMark("page_day", "rollup_page_day_units"),
        withRaw(
          "INSERT INTO rollup_page_day_units (site_id, day, path, unit, pageviews) SELECT site_id, day, path, unit, count(*) FROM raw WHERE kind = 'pageview' " +
            "GROUP BY site_id, day, path, unit ON CONFLICT (site_id, day, path, unit) DO UPDATE SET pageviews = rollup_page_day_units.pageviews + excluded.pageviews",
        ),
        countNew("page_day", "rollup_page_day_units", "rollup_page_day", "site_id, day, path", "visitors", PAGE_DAY),
        // Each unit's custom props of the day, with the events that carried them (reports/explore `prop:NAME`).
        // Added up per key, so rows arriving late or split across folds give the same rows.
        withRaw(
          "INSERT INTO rollup_prop_day_units (site_id, day, name, value, unit, events) " +
            "SELECT r.site_id, r.day, j.key, j.value, r.unit, count(*) FROM raw r CROSS JOIN json_each(r.props) j " +
            "WHERE r.props IS NOT NULL AND json_valid(r.props) AND j.type = 'text' GROUP BY r.site_id, r.day, r.unit, j.key, j.value " +
            "ON CONFLICT (site_id, day, unit, name, value) DO UPDATE SET events = rollup_prop_day_units.events + excluded.events",
        ),
        ...dimensionFoldStatements(withRaw),
      ];
    case "conversions":
      return [
        withRaw(
          "INSERT INTO rollup_goal_day (site_id, goal_id, day, units, conversions) SELECT site_id, goal_id, day, 0, count(*) FROM raw WHERE true GROUP BY site_id, goal_id, day " +
            `ON CONFLICT (${GOAL_DAY}) DO UPDATE SET conversions = rollup_goal_day.conversions + excluded.conversions`,
        ),
        // Units with their conversions that day: moved with them between dimension cells (dimension-fold.ts),
        // and their revenue in cents, as sent and moved by the unit's own fraction (privacy/revenue.ts), which
        // the revenue figures sum and max per cell: the fraction is computed once per unit and fold, not per read.
        setMark("goal_day", "rollup_goal_day_units"),
        withRaw(
          "INSERT INTO rollup_goal_day_units (site_id, goal_id, day, unit, conversions, revenue, revenue_moved) " +
            `SELECT site_id, goal_id, day, unit, count(*), sum(revenue), sum(revenue) * (1 + ${unitShareSql(unitKeySql("unit"))}) FROM raw WHERE true ` +
            "GROUP BY site_id, goal_id, day, unit ON CONFLICT (site_id, goal_id, day, unit) DO UPDATE SET conversions = rollup_goal_day_units.conversions + excluded.conversions, " +
            "revenue = rollup_goal_day_units.revenue + excluded.revenue, revenue_moved = rollup_goal_day_units.revenue_moved + excluded.revenue_moved",
        ),
        countNew("goal_day", "rollup_goal_day_units", "rollup_goal_day", "site_id, goal_id, day", "units", GOAL_DAY),
        ...goalDimensionFoldStatements(withRaw, mark("goal_day")),
        // A server-to-server conversion's props are its unit's, as a beacon event's are (the plan a
        // backend knows). A beacon's conversion carries its event's props, which the events fold counts.
        withRaw(
          "INSERT INTO rollup_prop_day_units (site_id, day, name, value, unit, events) " +
            "SELECT r.site_id, r.day, j.key, j.value, r.unit, count(*) FROM raw r CROSS JOIN json_each(r.props) j " +
            "WHERE r.source = 's2s' AND r.props IS NOT NULL AND json_valid(r.props) AND j.type = 'text' GROUP BY r.site_id, r.day, r.unit, j.key, j.value " +
            "ON CONFLICT (site_id, day, unit, name, value) DO UPDATE SET events = rollup_prop_day_units.events + excluded.events",
        ),

        withRaw(
          "INSERT INTO rollup_goal_hour (site_id, goal_id, hour, day, units, conversions) SELECT site_id, goal_id, hour, day, 0, count(*) FROM raw WHERE true GROUP BY site_id, goal_id, hour, day " +
            `ON CONFLICT (${GOAL_HOUR}) DO UPDATE SET conversions = rollup_goal_hour.conversions + excluded.conversions`,
        ),
        ...units("goal_hour", "rollup_goal_hour_units", "site_id, goal_id, hour"),
        countNew("goal_hour", "rollup_goal_hour_units", "rollup_goal_hour", "site_id, goal_id, hour", "units", GOAL_HOUR, [
          "day",
          "''",
        ]),

        withRaw(
          "INSERT INTO rollup_session_goals (site_id, session_id, goal_id, first_ts) SELECT site_id, session_id, goal_id, min(ts) FROM raw WHERE session_id IS NOT NULL " +
            "GROUP BY site_id, session_id, goal_id ON CONFLICT (site_id, session_id, goal_id) DO UPDATE SET first_ts = min(rollup_session_goals.first_ts, excluded.first_ts)",
        ),
      ];
    case "vitals":
      return [
        withRaw(
          "INSERT INTO rollup_vital_day (site_id, day, path, metric, units, samples, good, needs_improvement, poor) " +
            `SELECT site_id, day, path, metric, 0, count(*), sum(${bandSql("good", "metric", "value")}), sum(${bandSql("ni", "metric", "value")}), sum(${bandSql("poor", "metric", "value")}) ` +
            `FROM raw WHERE true GROUP BY site_id, day, path, metric ON CONFLICT (${VITAL_DAY}) DO UPDATE SET samples = rollup_vital_day.samples + excluded.samples, ` +
            "good = rollup_vital_day.good + excluded.good, needs_improvement = rollup_vital_day.needs_improvement + excluded.needs_improvement, " +
            "poor = rollup_vital_day.poor + excluded.poor",
        ),
        ...units("vital_day", "rollup_vital_day_units", "site_id, day, path, metric"),
        countNew("vital_day", "rollup_vital_day_units", "rollup_vital_day", "site_id, day, path, metric", "units", VITAL_DAY),
        withRaw(
          "INSERT INTO rollup_vital_histogram (site_id, day, path, metric, bucket, samples) " +
            `SELECT site_id, day, path, metric, bucket, count(*) FROM (SELECT site_id, day, path, metric, ${bucketSql("metric", "value")} AS bucket FROM raw) AS b ` +
            "WHERE true GROUP BY site_id, path, metric, day, bucket ON CONFLICT (site_id, path, metric, day, bucket) DO UPDATE SET samples = rollup_vital_histogram.samples + excluded.samples",
        ),
      ];
  }
}
