/**
 * Pair cells of nesting dimensions (reports/dimension-pairs.ts, docs/reports.md rule 9 "Nested
 * dimensions"): per site-day, the units whose session-day has value `parent_value` of one
 * dimension and `child_value` of another, for a fixed list of dimension pairs. They tell on
 * which values one dimension nests in the other that day (every macOS session is desktop), so
 * the breakdowns decide nested values together. Aggregates without unit ids: kept after raw
 * retention like the dimension-day cells, so a published day's decisions never change.
 */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const rollupDimensionPairDay = sqliteTable(
  "rollup_dimension_pair_day",
  {
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    parentDimension: text("parent_dimension").notNull(),
    parentValue: text("parent_value").notNull(),
    childDimension: text("child_dimension").notNull(),
    childValue: text("child_value").notNull(),
    units: integer("units").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.parentDimension, t.childDimension, t.day, t.parentValue, t.childValue] })],
);
