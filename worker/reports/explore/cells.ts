/**
 * The cells of a filtered report: the filtered units (units.ts) grouped by up to two keys — a
 * session dimension, the page viewed, the goal completed, the day or the hour — each group one
 * cell with its distinct units, their events and their key sum, read in one query. What is
 * counted as events follows the keys: pageviews of the page with `page`, conversions of the goal
 * with `goal`, the session-day's pageviews otherwise.
 *
 * Units are session-days, so a unit seen on two days of the period is two units: a visitor count
 * over days is a count of daily visits, as everywhere in Wren (salts rotate daily).
 */
import type { ReadOnlyDatabase } from "../../lib/read-only";
import { isDimension, type Dimension } from "../dimensions";
import { durationBucketSql } from "../histogram";
import type { ReportScope } from "../scope";
import type { Statement } from "./units";

/** What cells are grouped by; `duration`: the visit duration's bucket (histogram.ts; −1 without a span), for medians. */
export type CellKey = Dimension | "page" | "goal" | "day" | "hour" | "duration";

export interface Cell {
  /** The keys' values, in the order asked; null where a unit has no value of a dimension. */
  keys: (string | number | null)[];
  units: number;
  events: number;
  keySum: number;
}

/** How one key joins and selects. */
interface KeyPart {
  join?: string;
  joinArgs?: Statement["args"];
  select: string;
  events?: string;
}

function keyPart(key: CellKey, scope: ReportScope): KeyPart {
  if (isDimension(key)) return { select: `u.${key}` };
  switch (key) {
    case "day":
      return { select: "u.day" };
    case "duration":
      return {
        select: `CASE WHEN u.first_ts IS NULL THEN -1 ELSE ${durationBucketSql("((u.last_ts - u.first_ts) / 1000.0)")} END`,
      };
    case "page":
      return {
        join: "JOIN rollup_page_day_units p ON p.site_id = ? AND p.day = u.day AND p.unit = u.unit",
        joinArgs: [scope.siteId],
        select: "p.path",
        events: "p.pageviews",
      };
    case "goal":
      return {
        join: "JOIN rollup_goal_day_units g ON g.site_id = ? AND g.day = u.day AND g.unit = u.unit",
        joinArgs: [scope.siteId],
        select: "g.goal_id",
        events: "g.conversions",
      };
    case "hour":
      // The hours of the unit's day it had an event in (rollup_site_hour carries each hour's local day).
      return {
        join:
          "JOIN rollup_site_hour sh ON sh.site_id = ? AND sh.day = u.day " +
          "JOIN rollup_site_hour_units h ON h.site_id = sh.site_id AND h.hour = sh.hour AND h.unit = u.unit",
        joinArgs: [scope.siteId],
        select: "h.hour",
        events: "h.pageviews",
      };
  }
}

/** The cells of `units` grouped by `keys` (none: the one cell of all of them). */
export async function readCells(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  units: Statement,
  keys: readonly CellKey[],
): Promise<Cell[]> {
  const parts = keys.map((key) => keyPart(key, scope));
  const events = parts.find((p) => p.events !== undefined)?.events ?? "u.pageviews";
  const selects = parts.map((p, i) => `${p.select} AS k${i}`);
  const sql =
    `WITH u AS MATERIALIZED (${units.sql}) ` +
    `SELECT ${[...selects, "count(*) AS units", `sum(${events}) AS events`, "sum(u.unit_key) AS key_sum"].join(", ")} FROM u ` +
    parts.map((p) => p.join ?? "").join(" ") +
    (keys.length > 0 ? ` GROUP BY ${keys.map((_, i) => `k${i}`).join(", ")}` : "");
  const args = [...units.args, ...parts.flatMap((p) => p.joinArgs ?? [])];
  const rs = await db.query({ sql, args });
  return rs.rows
    .filter((r) => Number(r.units) > 0)
    .map((r) => ({
      keys: keys.map((_, i) => {
        const v = r[`k${i}`];
        return v === null || v === undefined ? null : typeof v === "number" || typeof v === "bigint" ? Number(v) : String(v);
      }),
      units: Number(r.units),
      events: Number(r.events ?? 0),
      keySum: Number(r.key_sum ?? 0),
    }));
}
