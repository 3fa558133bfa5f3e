/**
 * The cells of a filtered report: the filtered units (units.ts) grouped by up to two keys — a
 * session dimension, the page viewed, the goal completed, a custom property's value, the day or the hour — each group one
 * cell with its distinct units, their events and their key sum, read in one query. What is
 * counted as events follows the keys: pageviews of the page with `page`, conversions of the goal
 * with `goal`, the events that carried the value with `prop:NAME`, the session-day's pageviews otherwise.
 *
 * Units are session-days, so a unit seen on two days of the period is two units: a visitor count
 * over days is a count of daily visits, as everywhere in Wren (salts rotate daily).
 */
import type { ReadOnlyDatabase } from "../../lib/read-only";
import { isDimension, type Dimension } from "../dimensions";
import { durationBucketSql } from "../histogram";
import type { ReportScope } from "../scope";
import type { Statement } from "./units";

/** What cells are grouped by; `duration`: the visit duration's bucket (histogram.ts; −1 without a span), for medians; `prop:NAME`: the values of a custom property. */
export type CellKey = Dimension | "page" | "goal" | "day" | "hour" | "duration" | PropKey;

/** A custom property as a key (rollup_prop_day_units): a unit has each value any of its events that day carried. */
export type PropKey = `prop:${string}`;
export const PROP_KEY_PREFIX = "prop:";
export const isPropKey = (key: string): key is PropKey => key.startsWith(PROP_KEY_PREFIX) && key.length > PROP_KEY_PREFIX.length;
export const propName = (key: PropKey): string => key.slice(PROP_KEY_PREFIX.length);

export interface Cell {
  /** The keys' values, in the order asked; null where a unit has no value of a dimension. */
  keys: (string | number | null)[];
  units: number;
  events: number;
  keySum: number;
  /** With a grouping's `bounces`: its units of a single pageview that day, and their key sum (engagement.ts). */
  bounces?: { units: number; keySum: number };
  /** With a grouping's `revenue` (keys include `goal`): the units' revenue in cents, the largest, and their shares (privacy/revenue.ts). */
  revenue?: { cents: number; largest: number; shares: number; trueLargest: number };
}

/**
 * How one key joins and selects. The joins are CROSS JOINs: SQLite then keeps the filtered units
 * as the outer loop and reads each unit's rows by index; left to choose, it walked the site's goal
 * units in goal order to spare a sort and probed the units for each (23 s instead of 20 ms at 1 M).
 * Each unit's pages and goals are read by the index made for it (INDEXED BY): after the hours'
 * join SQLite chose the goals' primary index by site alone (1.5 s for one filtered day's hours).
 */
export interface KeyPart {
  join?: string;
  joinArgs?: Statement["args"];
  select: string;
  events?: string;
  /** These events yield to another key's (a property's events under a goal: its conversions). */
  weakEvents?: boolean;
}

export function keyPart(key: CellKey, scope: ReportScope, at = 0): KeyPart {
  if (isDimension(key)) return { select: `u.${key}` };
  if (isPropKey(key)) {
    // The primary key (site, day, unit, name, value) finds a unit's values of the name; units without one are in no cell.
    const alias = `pr${at}`;
    return {
      join: `CROSS JOIN rollup_prop_day_units ${alias} ON ${alias}.site_id = ? AND ${alias}.day = u.day AND ${alias}.unit = u.unit AND ${alias}.name = ?`,
      joinArgs: [scope.siteId, propName(key)],
      select: `${alias}.value`,
      events: `${alias}.events`,
      weakEvents: true,
    };
  }
  switch (key) {
    case "day":
      return { select: "u.day" };
    case "duration":
      return {
        select: `CASE WHEN u.first_ts IS NULL THEN -1 ELSE ${durationBucketSql("((u.last_ts - u.first_ts) / 1000.0)")} END`,
      };
    case "page":
      return {
        join: "CROSS JOIN rollup_page_day_units p INDEXED BY rollup_page_day_units_by_unit ON p.site_id = ? AND p.day = u.day AND p.unit = u.unit",
        joinArgs: [scope.siteId],
        select: "p.path",
        events: "p.pageviews",
      };
    case "goal":
      return {
        join: "CROSS JOIN rollup_goal_day_units g INDEXED BY rollup_goal_day_units_by_unit ON g.site_id = ? AND g.day = u.day AND g.unit = u.unit",
        joinArgs: [scope.siteId],
        select: "g.goal_id",
        events: "g.conversions",
      };
    case "hour":
      // The hours of the unit's day it had an event in (rollup_site_hour carries each hour's local day).
      return {
        join:
          "CROSS JOIN rollup_site_hour sh ON sh.site_id = ? AND sh.day = u.day " +
          "CROSS JOIN rollup_site_hour_units h ON h.site_id = sh.site_id AND h.hour = sh.hour AND h.unit = u.unit",
        joinArgs: [scope.siteId],
        select: "h.hour",
        events: "h.pageviews",
      };
  }
}

/**
 * The units with only the columns the groupings read: what is materialized is copied once per
 * unit, and a session-day row carries a dozen dimensions no grouping may need.
 */
function narrowed(units: Statement, groupings: readonly Grouping[]): Statement {
  const keys = new Set(groupings.flatMap((g) => g.keys));
  const columns = [
    "day",
    "unit",
    "pageviews",
    "unit_key",
    ...(keys.has("duration") ? ["first_ts", "last_ts"] : []),
    ...[...keys].filter(isDimension),
  ];
  return { sql: `SELECT ${columns.join(", ")} FROM (${units.sql})`, args: units.args };
}

/**
 * One grouping of a report's cells: its keys; `bounces`: also each cell's bounces (a cell inside
 * it, read in the same pass); `revenue`: also each cell's revenue (its keys must include `goal`).
 */
export interface Grouping {
  keys: readonly CellKey[];
  bounces?: boolean;
  revenue?: boolean;
}

const BOUNCES = [
  "sum(u.pageviews = 1) AS bounce_units",
  "sum(CASE WHEN u.pageviews = 1 THEN u.unit_key ELSE 0 END) AS bounce_key_sum",
];
const NO_BOUNCES = ["0 AS bounce_units", "0 AS bounce_key_sum"];
const REVENUE = [
  "sum(g.revenue) AS rev_cents",
  "max(g.revenue_moved) AS rev_largest",
  "total(g.revenue_moved - g.revenue) AS rev_shares",
  "max(g.revenue) AS rev_true_largest",
];
const NO_REVENUE = ["0 AS rev_cents", "0 AS rev_largest", "0 AS rev_shares", "0 AS rev_true_largest"];

/** The cells of `units` grouped by `keys` (none: the one cell of all of them). */
export async function readCells(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  units: Statement,
  keys: readonly CellKey[],
): Promise<Cell[]> {
  const [cells] = await readCellGroupings(db, scope, units, [{ keys }]);
  return cells!;
}

/**
 * The cells of several groupings of the same units, in one statement: the units are cut once
 * (a materialized CTE is computed once per statement) and each grouping is one branch of a UNION
 * ALL, where one query per grouping cut them again each time.
 */
export async function readCellGroupings(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  units: Statement,
  groupings: readonly (Grouping | readonly CellKey[])[],
): Promise<Cell[][]> {
  const all = groupings.map((g): Grouping => (Array.isArray(g) ? { keys: g as readonly CellKey[] } : (g as Grouping)));
  const width = Math.max(0, ...all.map((g) => g.keys.length));
  const args: Statement["args"] = [...units.args];
  const branches = all.map((grouping, index) => {
    const parts = grouping.keys.map((key, at) => keyPart(key, scope, at));
    args.push(...parts.flatMap((p) => p.joinArgs ?? []));
    const events =
      (parts.find((p) => p.events !== undefined && !p.weakEvents) ?? parts.find((p) => p.events !== undefined))?.events ??
      "u.pageviews";
    const selects = Array.from({ length: width }, (_, i) => `${parts[i]?.select ?? "NULL"} AS k${i}`);
    return (
      `SELECT ${[`${index} AS grouping`, ...selects, "count(*) AS units", `sum(${events}) AS events`, "sum(u.unit_key) AS key_sum", ...(grouping.bounces ? BOUNCES : NO_BOUNCES), ...(grouping.revenue ? REVENUE : NO_REVENUE)].join(", ")} FROM u ` +
      parts.map((p) => p.join ?? "").join(" ") +
      (parts.length > 0 ? ` GROUP BY ${parts.map((_, i) => `k${i}`).join(", ")}` : "")
    );
  });
  const rs = await db.query({
    sql: `WITH u AS MATERIALIZED (${narrowed(units, all).sql}) ${branches.join(" UNION ALL ")}`,
    args,
  });
  const out: Cell[][] = all.map(() => []);
  for (const r of rs.rows) {
    if (!(Number(r.units) > 0)) continue;
    const index = Number(r.grouping);
    out[index]!.push({
      keys: all[index]!.keys.map((_, i) => {
        const v = r[`k${i}`];
        return v === null || v === undefined ? null : typeof v === "number" || typeof v === "bigint" ? Number(v) : String(v);
      }),
      units: Number(r.units),
      events: Number(r.events ?? 0),
      keySum: Number(r.key_sum ?? 0),
      ...(all[index]!.bounces ? { bounces: { units: Number(r.bounce_units), keySum: Number(r.bounce_key_sum) } } : {}),
      ...(all[index]!.revenue
        ? {
            revenue: {
              cents: Number(r.rev_cents ?? 0),
              largest: Number(r.rev_largest ?? 0),
              shares: Number(r.rev_shares ?? 0),
              trueLargest: Number(r.rev_true_largest ?? 0),
            },
          }
        : {}),
    });
  }
  return out;
}

/**
 * The cells of a grouping without key `drop`, added up from the grouping with it — exact when
 * every unit has exactly one value of that key: the day (a unit is a session-day). Spares the
 * statement a branch, a second pass over the units and their joins.
 */
export function summedOver(cells: readonly Cell[], drop: number): Cell[] {
  const sums = new Map<string, Cell>();
  for (const cell of cells) {
    const keys = cell.keys.filter((_, i) => i !== drop);
    const id = JSON.stringify(keys);
    const sum = sums.get(id) ?? { keys, units: 0, events: 0, keySum: 0 };
    sums.set(id, { keys, units: sum.units + cell.units, events: sum.events + cell.events, keySum: sum.keySum + cell.keySum });
  }
  return [...sums.values()];
}
