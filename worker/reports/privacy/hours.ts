/**
 * Hours decided as they close (rule "hours" in index.ts; docs/reports.md, "Today"), so that
 * today's closed hours can be shown and never change: closingHours decides each hour, the day's
 * side is hourComplementUnsafeSql, emptyHoursShown says which empty hours show 0, and
 * legacyHours keeps the earlier end-of-day rule for the days published under it.
 */
import { coverHiddenRemainder, type PartitionCell } from "./cover";
import { complementSafe } from "./nesting";
import { enoughUnits } from "./threshold";

/**
 * What a day of hour cells (the site's traffic, or one goal's conversions) shows of each hour,
 * decided as the hours close so that a shown hour never changes (docs/reports.md, "Today"):
 *
 * - An hour with data is shown when it holds k units — except the day's first hour with k
 *   units, its cover, which is held back while the day runs. Once the day has ended, the cover
 *   is shown too when the day is shown, no other hour with data is hidden and the day's other
 *   units are none or at least k; otherwise it stays hidden, and the hidden hours together hold
 *   at least its k units, so the day minus the shown hours never singles out a small group.
 * - An hour without data shows 0 where `emptyShown` says so (emptyHoursShown, from the site's
 *   hours for the site and every goal alike), else it is suppressed like a small hour.
 * - The day cannot hide an hour shown before it ended, so it hides itself instead: a day is
 *   hidden when one of its hours of k units other than the cover differs from it by 1 to k − 1
 *   units (hourComplementUnsafeSql).
 *
 * `hours` are the day's hours that have closed, in order, each with its units (0: no data).
 * `day` is null while the day runs; once it has ended, whether its atom is shown, and its units.
 */
export function closingHours(
  hours: readonly { units: number }[],
  k: number,
  day: { visible: boolean; units: number } | null,
  emptyShown: readonly boolean[],
): HourDecision[] {
  const cover = hours.findIndex((h) => enoughUnits(h.units, k));
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
 * The day's side of closingHours, in SQL: 1 when some hour cell of `hourTable` in the day `day`
 * (a row with site_id, day and the units in `dayUnits`) other than the day's cover has k units
 * and differs from the day by 1 to k − 1. `match(alias)` adds conditions tying an hour row to
 * the day (e.g. the goal). Parameter ?1: k.
 */
export function hourComplementUnsafeSql(
  hourTable: string,
  hourUnits: string,
  day: string,
  dayUnits: string,
  match: (alias: string) => string = () => "",
): string {
  const ofDay = (alias: string) => `${alias}.site_id = ${day}.site_id AND ${alias}.day = ${day}.day${match(alias)}`;
  // "Not the cover": an earlier hour of the same day has k units. The hour bounds (a day is at
  // most 25 hours long) keep that lookup a short range of the primary key.
  return (
    `EXISTS (SELECT 1 FROM ${hourTable} h WHERE ${ofDay("h")} AND h.${hourUnits} >= ?1 AND ${day}.${dayUnits} - h.${hourUnits} BETWEEN 1 AND ?1 - 1 ` +
    `AND EXISTS (SELECT 1 FROM ${hourTable} c WHERE ${ofDay("c")} AND c.hour < h.hour AND c.hour > h.hour - 90000000 AND c.${hourUnits} >= ?1))`
  );
}
