/**
 * Revenue amounts a beacon carried that the collector could not keep: the conversion is
 * stored without its amount, and the drop is counted here per site, local UTC day and reason,
 * so an operator sees that a shop's currency or amounts are wrong (docs/collector.md, Revenue).
 * Reasons: `revenue_amount` (not a finite number in 0…1e9 with at most 2 decimals, or not an
 * object), `revenue_currency` (another currency than the goal's, or a goal without one).
 */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { siteIdColumn } from "./core";

export const REVENUE_DROP_REASONS = ["revenue_amount", "revenue_currency"] as const;
export type RevenueDropReason = (typeof REVENUE_DROP_REASONS)[number];

export const revenueDrops = sqliteTable(
  "revenue_drops",
  {
    siteId: siteIdColumn(),
    /** UTC day of the beacon (YYYY-MM-DD). */
    day: text("day").notNull(),
    reason: text("reason", { enum: REVENUE_DROP_REASONS }).notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.day, t.reason] })],
);
