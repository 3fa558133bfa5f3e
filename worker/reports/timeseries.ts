/**
 * The timeseries report: visitors, pageviews and conversions per day or per local hour. Days
 * are the site-day atoms; hours are cells inside them (shown only inside a visible day, with
 * k units, a safe complement, and the day's hidden remainder covered). Conversions are the
 * sum of visible goal cells (goal-day atoms, or goal-hour cells inside them), the same cells
 * the conversions report shows.
 */
import type { ResultSet } from "@libsql/client/web";
import type { ReadOnlyDatabase } from "../lib/read-only";
import { perturbedFigure, SUPPRESSED, type Figure } from "./figures";
import { loadDayAtoms, shownValue, type GoalDayAtom, type SiteDayAtom } from "./atoms";
import { NOISE_COLUMN } from "./noise";
import { datesOf } from "./period";
import { additiveFigure, addToTally, childCells, distinctFigure, EMPTY_TALLY, type AtomTally } from "./privacy";
import type { ReportScope } from "./scope";
import { addDays, localMinuteLabel, startOfLocalDay } from "./timezone";

export const INTERVALS = ["day", "hour"] as const;
export type Interval = (typeof INTERVALS)[number];

/** Longest period for hourly points, in days. */
export const MAX_HOURLY_DAYS = 31;

export interface TimeseriesPoint {
  /** UTC instant at which the local day or hour starts. */
  start: string;
  /** Local date (day) or local date and hour "YYYY-MM-DDTHH:MM" (hour). */
  local: string;
  visitors: Figure;
  pageviews: Figure;
  conversions: Figure;
}

export interface TimeseriesReport {
  points: TimeseriesPoint[];
  totals: { visitors: Figure; pageviews: Figure; conversions: Figure };
}

const ZERO: Figure = { value: 0, qualifier: "exact" };

/**
 * A single cell's figure: its shown value when visible (estimated when perturbed), suppressed
 * when hidden, 0 without data.
 */
function cellFigure(value: number, units: number, visible: boolean, perturbed: boolean | undefined): Figure {
  if (units === 0) return ZERO;
  return visible ? { value, qualifier: perturbed ? "estimated" : "exact" } : SUPPRESSED;
}

/** Sums visible points into totals (never an independent figure). */
function totalsOf(points: TimeseriesPoint[]): TimeseriesReport["totals"] {
  const sum = (pick: (p: TimeseriesPoint) => Figure, distinct: boolean) => {
    let tally: AtomTally = EMPTY_TALLY;
    let estimated = false;
    for (const p of points) {
      const f = pick(p);
      if (f.qualifier === "estimated") estimated = true;
      if (f.value === 0 && f.qualifier === "exact") continue;
      tally = addToTally(tally, f.value ?? 0, f.value !== null);
    }
    const figure = distinct ? distinctFigure(tally) : additiveFigure(tally);
    return estimated && figure.qualifier === "exact" ? { ...figure, qualifier: "estimated" as const } : figure;
  };
  return {
    visitors: sum((p) => p.visitors, true),
    pageviews: sum((p) => p.pageviews, false),
    conversions: sum((p) => p.conversions, false),
  };
}

export async function timeseriesReport(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  interval: Interval,
  goal?: string,
): Promise<TimeseriesReport> {
  const atoms = await loadDayAtoms(db, scope);
  const goalIds = goal === undefined ? [...atoms.goalDays.keys()] : [goal];
  const points =
    interval === "day"
      ? dailyPoints(scope, atoms.siteDays, atoms.goalDays, goalIds)
      : await hourlyPoints(db, scope, atoms.siteDays, atoms.goalDays, goalIds, atoms.exactGoals);
  // Conversions of perturbed goals are estimated (smoke-test goals alone stay exact).
  const perturbedGoals = scope.noise === true && goalIds.some((id) => !atoms.exactGoals.has(id));
  for (const p of points) p.conversions = perturbedFigure(p.conversions, perturbedGoals);
  return { points, totals: totalsOf(points) };
}

function dailyPoints(
  scope: ReportScope,
  siteDays: Map<string, SiteDayAtom>,
  goalDays: Map<string, Map<string, GoalDayAtom>>,
  goalIds: string[],
): TimeseriesPoint[] {
  return datesOf(scope).map((day) => {
    const site = siteDays.get(day) ?? NO_DAY;
    let conversions: AtomTally = EMPTY_TALLY;
    for (const id of goalIds) {
      const atom = goalDays.get(id)?.get(day);
      if (atom) conversions = addToTally(conversions, atom.shown.conversions, atom.visible, atom.units > 0);
    }
    return {
      start: new Date(startOfLocalDay(scope.timeZone, day)).toISOString(),
      local: day,
      visitors: cellFigure(site.shown.units, site.units, site.visible, scope.noise),
      pageviews: cellFigure(site.shown.pageviews, site.units, site.visible, scope.noise),
      conversions: additiveFigure(conversions),
    };
  });
}

function withHidden(tally: AtomTally, hidden: number): AtomTally {
  return hidden === 0 ? tally : { ...tally, hidden: tally.hidden + hidden };
}

interface HourCell {
  key: string;
  units: number;
  value: number;
  visitors: number;
  /** What the cell shows (perturbed or exact): visitors and value. */
  shown: { visitors: number; value: number };
}

const NO_DAY: SiteDayAtom = { units: 0, pageviews: 0, visible: false, shown: { units: 0, pageviews: 0 } };

const SITE_HOURS_SQL = "SELECT day, hour, visitors, pageviews, key_sum FROM rollup_site_hour WHERE site_id = ? AND day >= ? AND day <= ?";

/** A site's hour cells (SITE_HOURS_SQL rows), per day. */
function siteHourCells(scope: ReportScope, rows: ResultSet["rows"]): Map<string, HourCell[]> {
  const traffic = new Map<string, HourCell[]>();
  for (const r of rows) {
    const day = String(r.day);
    const units = Number(r.visitors);
    const pageviews = Number(r.pageviews);
    const keySum = Number(r.key_sum);
    (traffic.get(day) ?? traffic.set(day, []).get(day)!).push({
      key: String(r.hour),
      units,
      value: pageviews,
      visitors: units,
      shown: {
        visitors: shownValue(scope, units, keySum, NOISE_COLUMN.units),
        value: shownValue(scope, pageviews, keySum, NOISE_COLUMN.events),
      },
    });
  }
  return traffic;
}

/**
 * The hours of one day as the timeseries decides them, by start instant: shown only inside a
 * visible day, with k units, a safe complement, and the day's hidden remainder covered.
 */
function dayHours(site: SiteDayAtom, cells: HourCell[], k: number): Map<number, HourCell & { visible: boolean }> {
  return new Map(childCells(site, cells, k).map((c) => [Number(c.key), c]));
}

/**
 * The hours the hourly timeseries shows, per day of the scope it shows (a hidden day has no
 * entry): the start instants of the site-hour cells with data that it does not suppress. The
 * sessions list names a session's hour only where this report shows it.
 */
export async function shownSiteHours(db: ReadOnlyDatabase, scope: ReportScope): Promise<Map<string, Set<number>>> {
  const [atoms, rows] = await Promise.all([
    loadDayAtoms(db, scope),
    db.query({ sql: SITE_HOURS_SQL, args: [scope.siteId, scope.from, scope.to] }),
  ]);
  const traffic = siteHourCells(scope, rows.rows);
  const shown = new Map<string, Set<number>>();
  for (const day of datesOf(scope)) {
    const site = atoms.siteDays.get(day);
    if (!site?.visible) continue;
    const hours = new Set<number>();
    for (const [hour, cell] of dayHours(site, traffic.get(day) ?? [], scope.k)) if (cell.visible && cell.units > 0) hours.add(hour);
    shown.set(day, hours);
  }
  return shown;
}

async function hourlyPoints(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  siteDays: Map<string, SiteDayAtom>,
  goalDays: Map<string, Map<string, GoalDayAtom>>,
  goalIds: string[],
  exactGoals: Set<string>,
): Promise<TimeseriesPoint[]> {
  const range = [scope.siteId, scope.from, scope.to];
  const [siteHours, goalHours] = await db.queryAll(
    [
      { sql: SITE_HOURS_SQL, args: range },
      {
        sql: "SELECT goal_id, day, hour, units, conversions, key_sum FROM rollup_goal_hour WHERE site_id = ? AND day >= ? AND day <= ?",
        args: range,
      },
    ],
  );
  const traffic = siteHourCells(scope, siteHours!.rows);
  const wanted = new Set(goalIds);
  const conversionsByGoalDay = new Map<string, HourCell[]>();
  for (const r of goalHours!.rows) {
    const goal = String(r.goal_id);
    if (!wanted.has(goal) || !goalDays.has(goal)) continue;
    const key = `${goal}\u0000${String(r.day)}`;
    const units = Number(r.units);
    const conversions = Number(r.conversions);
    const keySum = Number(r.key_sum);
    const exact = exactGoals.has(goal);
    (conversionsByGoalDay.get(key) ?? conversionsByGoalDay.set(key, []).get(key)!).push({
      key: String(r.hour),
      units,
      value: conversions,
      visitors: units,
      shown: {
        visitors: shownValue(scope, units, keySum, NOISE_COLUMN.units, exact),
        value: shownValue(scope, conversions, keySum, NOISE_COLUMN.events, exact),
      },
    });
  }

  const points: TimeseriesPoint[] = [];
  for (const day of datesOf(scope)) {
    const site = siteDays.get(day) ?? NO_DAY;
    const hours = dayHours(site, traffic.get(day) ?? [], scope.k);
    const conversions = new Map<number, AtomTally>();
    let hiddenGoalDays = 0;
    for (const goal of goalIds) {
      const atom = goalDays.get(goal)?.get(day);
      if (!atom) continue;
      // A hidden goal-day shows none of its hours, and every hour of the day counts it as hidden.
      if (atom.units > 0 && !atom.visible) {
        hiddenGoalDays++;
        continue;
      }
      for (const cell of childCells(atom, conversionsByGoalDay.get(`${goal}\u0000${day}`) ?? [], scope.k)) {
        const hour = Number(cell.key);
        conversions.set(hour, addToTally(conversions.get(hour) ?? EMPTY_TALLY, cell.shown.value, cell.visible, cell.units > 0));
      }
    }
    const start = startOfLocalDay(scope.timeZone, day);
    const end = startOfLocalDay(scope.timeZone, addDays(day, 1));
    // Local hours start at the zone's offset from the UTC hour (e.g. :30 in India).
    for (let hour = start; hour < end; hour += 3_600_000) {
      const cell = hours.get(hour);
      // Inside a hidden day every hour is suppressed: which hours had anyone is itself information.
      const hidden = site.units > 0 && !site.visible;
      points.push({
        start: new Date(hour).toISOString(),
        local: localMinuteLabel(scope.timeZone, hour),
        visitors: hidden ? SUPPRESSED : cell ? cellFigure(cell.shown.visitors, cell.units, cell.visible, scope.noise) : ZERO,
        pageviews: hidden ? SUPPRESSED : cell ? cellFigure(cell.shown.value, cell.units, cell.visible, scope.noise) : ZERO,
        conversions: additiveFigure(withHidden(conversions.get(hour) ?? EMPTY_TALLY, hiddenGoalDays)),
      });
    }
  }
  return points;
}
