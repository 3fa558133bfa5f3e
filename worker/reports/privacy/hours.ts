/**
 * Hours decided as they close (rule "hours" in index.ts; docs/reports.md, "Today"), so that
 * today's closed hours can be shown and never change: closingHours decides each hour, the day's
 * side is hourComplementUnsafeSql, emptyHoursShown says which empty hours show 0, and
 * legacyHours keeps the earlier end-of-day rule for the days published under it.
 */
import { coverHiddenRemainder, type PartitionCell } from "./cover";
import { complementSafe } from "./nesting";
import { enoughUnits } from "./threshold";

/** A day's hour rule (rollup_site_day.hour_rule; lib/schema/rollups.ts). */
export type HourRule = 2 | 3;
/** The day's first hour of k units is held back as its cover while the day runs. */
export const COVER_RULE: HourRule = 2;
/** Every hour of k units is shown as it closes; the day carries the protection. */
export const OPEN_RULE: HourRule = 3;

/**
 * What a day of hour cells (the site's traffic, or one goal's conversions) shows of each hour,
 * decided as the hours close so that a shown hour never changes (docs/reports.md, "Today"):
 *
 * - An hour with data is shown when it holds k units, at once — under the open rule (3), the
 *   first of the day too. Its small hours (1 to k − 1 units) are hidden.
 * - An hour without data shows 0 where `emptyShown` says so (emptyHoursShown, from the site's
 *   hours for the site and every goal alike), else it is suppressed like a small hour.
 * - The day cannot hide an hour shown before it ended, so it hides itself instead
 *   (hourComplementUnsafeSql): when one of its shown hours differs from it by 1 to k − 1 units,
 *   or when its small hours hold 1 to k − 1 units between them, since the day minus its shown
 *   hours would then single those out. Every total the day is a part of (its pages, its
 *   breakdowns) keeps a hidden remainder of k for the same reason (page-atoms.ts).
 *
 * Under the cover rule (2), kept for the days published under it, the day's first hour with k
 * units was held back while the day ran, and shown once it had ended when the day was shown, no
 * other hour with data was hidden and the day's other units were none or at least k.
 *
 * `hours` are the day's hours that have closed, in order, each with its units (0: no data).
 * `day` is null while the day runs; once it has ended, whether its atom is shown, and its units.
 */
export function closingHours(
  hours: readonly { units: number }[],
  k: number,
  day: { visible: boolean; units: number } | null,
  emptyShown: readonly boolean[],
  rule: HourRule = OPEN_RULE,
): HourDecision[] {
  const cover = rule === COVER_RULE ? hours.findIndex((h) => enoughUnits(h.units, k)) : -1;
  const smallHidden = hours.some((h) => h.units > 0 && !enoughUnits(h.units, k));
  return hours.map((h, i): HourDecision => {
    if (h.units === 0) return emptyShown[i] ? "zero" : "hidden";
    if (!enoughUnits(h.units, k)) return "hidden";
    if (i !== cover) return "shown";
    return day?.visible && !smallHidden && complementSafe(day.units, h.units, k) ? "shown" : "hidden";
  });
}

/**
 * Which hours without data show 0, from the site's hours (the same for the site and every
 * goal): those from the site's cover on, since by then the day has had k visitors in one hour;
 * and every one once the day has ended shown or without data. Before that an empty hour is
 * suppressed, so that which hours a day's first few visitors (or converters) came in is not
 * told apart from the hours nobody came.
 */
export function emptyHoursShown(
  siteHours: readonly { units: number }[],
  k: number,
  siteDay: { visible: boolean; units: number } | null,
): boolean[] {
  const cover = siteHours.findIndex((h) => enoughUnits(h.units, k));
  const all = siteDay !== null && (siteDay.visible || siteDay.units === 0);
  return siteHours.map((_, i) => all || (cover >= 0 && cover <= i));
}

/**
 * The earlier hour rule, kept for the days published under it (publication.ts legacyDays), so
 * that an upgrade changes no published figure: a day's hours were decided when it ended, shown
 * only inside a shown day, each with k units and a complement of 0 or at least k in the day,
 * and the hidden remainder covered by hiding the smallest shown hour (coverHiddenRemainder).
 * Inside a hidden day every hour was suppressed; inside a shown one an empty hour was 0.
 */
export function legacyHours(
  hours: readonly { units: number; value: number }[],
  k: number,
  day: { visible: boolean; units: number },
): HourDecision[] {
  if (day.units > 0 && !day.visible) return hours.map(() => "hidden");
  const cells: PartitionCell[] = hours.map((h, i) => ({
    key: String(i).padStart(3, "0"),
    units: h.units,
    value: h.value,
    visible: day.visible && enoughUnits(h.units, k) && complementSafe(day.units, h.units, k),
  }));
  if (day.visible) coverHiddenRemainder(cells, k);
  return cells.map((c) => (c.units === 0 ? "zero" : c.visible ? "shown" : "hidden"));
}

/** An hour's fate: its figure shown, an exact 0 (no data), or suppressed. */
export type HourDecision = "shown" | "zero" | "hidden";

/**
 * Why a figure is suppressed, as a reader may be told (docs/reports.md, "Figures"):
 * `quiet_hours`, an hour before the day's first hour of k, empty or not — the two are not told
 * apart, which is the point; `small_group`, fewer than k sessions; `day_protection`, k or more
 * hidden so that a total minus what is shown does not single a small group out.
 */
export const HIDDEN_REASONS = ["quiet_hours", "small_group", "day_protection"] as const;
export type HiddenReason = (typeof HIDDEN_REASONS)[number];

/** The reason told for a hidden hour with `units`, where `emptyShown` says whether an empty hour there would read 0. */
export function hiddenHourReason(units: number, emptyShown: boolean, k: number): HiddenReason {
  if (!emptyShown) return "quiet_hours";
  return units > 0 && !enoughUnits(units, k) ? "small_group" : "day_protection";
}

/** Where a day's hour cells are: the site's (units: visitors) or one goal's (units: units). */
export interface HourCellsSql {
  hours: "rollup_site_hour" | "rollup_goal_hour";
  units: "rollup_site_hour_units" | "rollup_goal_hour_units";
  /** The hour cell's units column. */
  count: "visitors" | "units";
  /** Columns besides site_id that tie an hour (and its units) to the day row, e.g. goal_id. */
  keys: readonly string[];
}

export const SITE_HOURS_SQL: HourCellsSql = { hours: "rollup_site_hour", units: "rollup_site_hour_units", count: "visitors", keys: [] };
export const GOAL_HOURS_SQL: HourCellsSql = { hours: "rollup_goal_hour", units: "rollup_goal_hour_units", count: "units", keys: ["goal_id"] };

const ofDaySql = (cells: HourCellsSql, alias: string, day: string) =>
  [`${alias}.site_id = ${day}.site_id`, `${alias}.day = ${day}.day`, ...cells.keys.map((c) => `${alias}.${c} = ${day}.${c}`)].join(" AND ");

/**
 * SQL: the units of the day row `day`'s small hours (1 to k − 1 units each), counted once.
 * Retention stores it in `hour_remainder` before it deletes the hour units; until then it is
 * counted from them. Parameter ?1: k.
 */
export function hourRemainderSql(cells: HourCellsSql, day: string): string {
  const unitOf = ["site_id", ...cells.keys].map((c) => `u.${c} = h.${c}`).join(" AND ");
  return (
    // CROSS JOIN keeps the day's few small hours as the outer loop (else SQLite may scan every unit of the site).
    `coalesce(${day}.hour_remainder, (SELECT count(DISTINCT u.unit) FROM ${cells.hours} h CROSS JOIN ${cells.units} u ON ${unitOf} AND u.hour = h.hour ` +
    `WHERE ${ofDaySql(cells, "h", day)} AND h.${cells.count} BETWEEN 1 AND ?1 - 1))`
  );
}

/**
 * The day's side of closingHours, in SQL: 1 when the day row `day` (with site_id, day, the
 * `keys`, hour_rule, hour_remainder and its units in `dayUnits`) must hide beside its hours:
 * some hour cell with k units differs from it by 1 to k − 1 units (under the cover rule: some
 * hour other than the day's cover), or (open rule) its small hours hold 1 to k − 1 units.
 * Parameter ?1: k.
 */
export function hourComplementUnsafeSql(cells: HourCellsSql, day: string, dayUnits: string): string {
  const ofDay = (alias: string) => ofDaySql(cells, alias, day);
  const differs = `EXISTS (SELECT 1 FROM ${cells.hours} h WHERE ${ofDay("h")} AND h.${cells.count} >= ?1 AND ${day}.${dayUnits} - h.${cells.count} BETWEEN 1 AND ?1 - 1`;
  // "Not the cover": an earlier hour of the same day has k units. The hour bounds (a day is at
  // most 25 hours long) keep that lookup a short range of the primary key.
  const notCover = `EXISTS (SELECT 1 FROM ${cells.hours} c WHERE ${ofDay("c")} AND c.hour < h.hour AND c.hour > h.hour - 90000000 AND c.${cells.count} >= ?1)`;
  return (
    `(CASE WHEN ${day}.hour_rule = ${COVER_RULE} THEN ${differs} AND ${notCover}) ` +
    `ELSE (${differs}) OR ${hourRemainderSql(cells, day)} BETWEEN 1 AND ?1 - 1) END)`
  );
}
