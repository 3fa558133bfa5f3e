/** Column helpers the schema files share. */
import { sql } from "drizzle-orm";
import { integer, text } from "drizzle-orm/sqlite-core";

/** Row creation time in ms, filled in by the database when the insert leaves it out. */
export const createdAt = () =>
  integer("created_at", { mode: "number" })
    .notNull()
    .default(sql`(cast(unixepoch('subsec') * 1000 as integer))`);

/**
 * A pageview's dimensions as the collector derives them (collector/dimensions): on `events`, and
 * per session-day in the breakdown rollups (reports/dimensions.ts names them).
 */
export const pageviewDimensionColumns = () => ({
  source: text("source"),
  utmSource: text("utm_source"),
  utmMedium: text("utm_medium"),
  utmCampaign: text("utm_campaign"),
  utmContent: text("utm_content"),
  utmTerm: text("utm_term"),
  browser: text("browser"),
  os: text("os"),
  device: text("device"),
  country: text("country"),
});
