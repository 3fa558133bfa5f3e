/**
 * Custom properties (issue 39, docs/collector.md "Custom properties"): the names a site allows,
 * the props dropped at the edge (counted per reason, never stored), and the per-unit rows the
 * reports group and filter by (reports/explore: `prop:NAME`). The kept props themselves are
 * stored as a JSON object on `events.props` and `conversions.props` (ingest.ts).
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { siteIdColumn } from "./core";

/** Names a site stores props under: anything else is dropped, so a typo or a visitor makes no new grouping. */
export const siteProps = sqliteTable(
  "site_props",
  {
    siteId: siteIdColumn(),
    name: text("name").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.name] })],
);

export const PROP_DROP_REASONS = ["not_allowed", "invalid_name", "invalid_value", "too_many"] as const;
export type PropDropReason = (typeof PROP_DROP_REASONS)[number];

/** Props dropped by the collector, per site, UTC day and reason: counts only, never the name or value. */
export const propDrops = sqliteTable(
  "prop_drops",
  {
    siteId: siteIdColumn(),
    day: text("day").notNull(),
    reason: text("reason", { enum: PROP_DROP_REASONS }).notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.day, t.reason] })],
);

/**
 * Each unit's props on a local day: the unit "has" name = value that day when any of its events
 * carried it, and `events` counts those events. Per-session rows: deleted by retention with the
 * other units rows. WITHOUT ROWID (the migration says so; drizzle cannot): read by ranges of its
 * key (a filtered report's units, day by day), like rollup_session_day.
 */
export const rollupPropDayUnits = sqliteTable(
  "rollup_prop_day_units",
  {
    siteId: text("site_id").notNull(),
    day: text("day").notNull(),
    name: text("name").notNull(),
    value: text("value").notNull(),
    unit: text("unit").notNull(),
    events: integer("events").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.siteId, t.day, t.unit, t.name, t.value] }),
    // A `prop:NAME:value` filter: the value's units over a period's days. Name and value before the
    // day (the design had the day first): an index can take equalities then one range, not a range first.
    index("rollup_prop_day_units_by_value").on(t.siteId, t.name, t.value, t.day),
  ],
);
