/**
 * The days hidden beside their hours only (atoms.ts SiteDayAtom.guarded, GoalDayAtom.guarded):
 * their own totals are withheld, since the total minus the shown hours would single out the
 * small hours' few sessions — but the shown hours themselves are public. So such a day's figure
 * is the sum of its shown hours: a lower bound (`estimated`), which tells nothing the hourly
 * timeseries does not (docs/reports.md, "Today"). The timeseries and the conversions report use
 * it for their day points and totals.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import type { DayAtoms } from "./atoms";
import { wholeDays, windowCells, type HourCell } from "./hour-cells";
import type { ReportScope } from "./scope";
import { localDate } from "./timezone";

/** A guarded day's shown hours, summed: their shown units (visitors, converting units) and values (pageviews, conversions). */
export interface HourSum {
  units: number;
  value: number;
}

export interface GuardedSums {
  /** day → the site's shown hours that day */
  site: Map<string, HourSum>;
  /** goal id → day → the goal's shown hours that day */
  goals: Map<string, Map<string, HourSum>>;
}

/** The sums of the shown hours of every guarded site-day and goal-day of `atoms` (read only when there is one). */
export async function guardedDaySums(db: ReadOnlyDatabase, scope: ReportScope, atoms: DayAtoms): Promise<GuardedSums> {
  const sums: GuardedSums = { site: new Map(), goals: new Map() };
  const siteDays = new Set([...atoms.siteDays].filter(([, atom]) => atom.guarded).map(([day]) => day));
  const goalDays = new Map([...atoms.goalDays].map(([goal, days]) => [goal, new Set([...days].filter(([, atom]) => atom.guarded).map(([day]) => day))]));
  if (siteDays.size === 0 && [...goalDays.values()].every((days) => days.size === 0)) return sums;
  // The atoms are the window's own (the same whole days): the cells reuse them.
  const cells = await windowCells(db, wholeDays({ ...scope, hours: undefined }), null, atoms);
  const add = (into: Map<string, HourSum>, days: Set<string>, cell: HourCell) => {
    const day = localDate(scope.timeZone, cell.start);
    if (!days.has(day) || cell.decision !== "shown") return;
    const sum = into.get(day) ?? { units: 0, value: 0 };
    into.set(day, { units: sum.units + cell.shown.units, value: sum.value + cell.shown.value });
  };
  for (const cell of cells.site.values()) add(sums.site, siteDays, cell);
  for (const [goal, hours] of cells.goals) {
    const days = goalDays.get(goal);
    if (!days || days.size === 0) continue;
    const into = new Map<string, HourSum>();
    for (const cell of hours.values()) add(into, days, cell);
    sums.goals.set(goal, into);
  }
  return sums;
}
