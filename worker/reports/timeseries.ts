/**
 * The timeseries report: visitors, pageviews and conversions per day or per local hour. Days
 * are the site-day atoms; hours are the hour cells as they were decided when they closed
 * (hour-cells.ts, privacy/hours.ts closingHours), so a period of closed hours (`today`, `24h`) shows
 * the same figure for an hour as every later report. Conversions are the sum of visible goal
 * cells (goal-day atoms, or goal-hour cells), the same cells the conversions report shows.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { perturbedFigure, SUPPRESSED, type Figure } from "./figures";
import { loadDayAtoms, type DayAtoms, type GoalDayAtom, type SiteDayAtom } from "./atoms";
import { guardedDaySums, type GuardedSums } from "./guarded-days";
import { importedDayTotals, type ImportedDayTotals } from "./imported/cells";
import { hourFigure, tallyHour, wholeDays, windowCells, type WindowCells } from "./hour-cells";
import { filteredAtoms, type Filter } from "./filter";
import { datesOf } from "./period";
import { addPartial, additiveFigure, addToTally, distinctFigure, EMPTY_TALLY, enoughUnits, type AtomTally, type HiddenReason } from "./privacy";
import type { ReportScope } from "./scope";
import { localDate, localMinuteLabel, startOfLocalDay } from "./timezone";

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
  /** Why visitors and pageviews are suppressed (privacy/hours.ts HiddenReason); absent when they are not. */
  hidden?: HiddenReason;
  /** A day point whose own total is withheld (day_protection): visitors and pageviews are the sum of its shown hours. */
  from_hours?: true;
  /** An imported day (imported/cells.ts): visitors and pageviews are its imported totals. */
  imported?: true;
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
function dayFigure(value: number, units: number, visible: boolean, perturbed: boolean | undefined): Figure {
  if (units === 0) return ZERO;
  return visible ? { value, qualifier: perturbed ? "estimated" : "exact" } : SUPPRESSED;
}

/**
 * Sums visible points into totals (never an independent figure). A day without data adds
 * nothing; an hour's shown 0 counts as shown, as in every sum of hours (hour-cells.ts tallyHour).
 */
function totalsOf(points: TimeseriesPoint[], hourly: boolean): TimeseriesReport["totals"] {
  const sum = (pick: (p: TimeseriesPoint) => Figure, distinct: boolean) => {
    let tally: AtomTally = EMPTY_TALLY;
    let estimated = false;
    for (const p of points) {
      const f = pick(p);
      if (f.qualifier === "estimated") estimated = true;
      if (!hourly && f.value === 0 && f.qualifier === "exact") continue;
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
  filter?: Filter,
): Promise<TimeseriesReport> {
  let points: TimeseriesPoint[];
  let atoms: DayAtoms;
  if (interval === "day" && !scope.hours) {
    atoms = await loadDayAtoms(db, scope);
    if (filter) atoms = await filteredAtoms(db, scope, filter, atoms);
    // A filtered day's hidden value is told apart from an absent one by nothing, its reason included.
    const sums = filter ? NO_SUMS : await guardedDaySums(db, scope, atoms);
    points = dailyPoints(scope, atoms.siteDays, atoms.goalDays, goal === undefined ? [...atoms.goalDays.keys()] : [goal], sums, !filter);
    if (scope.imported && !filter) points = withImportedDays(points, await importedDayTotals(db, scope));
  } else {
    if (filter) throw new Error("filters apply to days only"); // refused by the route first (a 400)
    const cells = await windowCells(db, wholeDays(scope), goal === undefined ? null : [goal]);
    atoms = cells.atoms;
    points = hourlyPoints(scope, cells);
  }
  for (const p of points) p.conversions = perturbedFigure(p.conversions, scope.noise);
  return { points, totals: totalsOf(points, interval === "hour" || scope.hours !== undefined) };
}

function dailyPoints(
  scope: ReportScope,
  siteDays: Map<string, SiteDayAtom>,
  goalDays: Map<string, Map<string, GoalDayAtom>>,
  goalIds: string[],
  sums: GuardedSums,
  tellReasons: boolean,
): TimeseriesPoint[] {
  return datesOf(scope).map((day) => {
    const site = siteDays.get(day) ?? { units: 0, pageviews: 0, keySum: 0, visible: false, guarded: false, shown: { units: 0, pageviews: 0 } };
    let conversions: AtomTally = EMPTY_TALLY;
    for (const id of goalIds) {
      const atom = goalDays.get(id)?.get(day);
      const partial = atom?.guarded ? sums.goals.get(id)?.get(day) : undefined;
      if (partial) conversions = addPartial(conversions, partial.value);
      else if (atom) conversions = addToTally(conversions, atom.shown.conversions, atom.visible, atom.units > 0);
    }
    const point = {
      start: new Date(startOfLocalDay(scope.timeZone, day)).toISOString(),
      local: day,
      conversions: additiveFigure(conversions),
    };
    // A day hidden beside its hours reads as the sum of its shown hours, a lower bound.
    const partial = site.guarded ? sums.site.get(day) : undefined;
    if (partial) return { ...point, visitors: estimated(partial.units), pageviews: estimated(partial.value), from_hours: true };
    return {
      ...point,
      visitors: dayFigure(site.shown.units, site.units, site.visible, scope.noise),
      pageviews: dayFigure(site.shown.pageviews, site.units, site.visible, scope.noise),
      ...(tellReasons && site.units > 0 && !site.visible ? { hidden: dayReason(site, scope.k) } : {}),
    };
  });
}

/** Imported days' points: their totals as shown, or suppressed below k (they have no collected data). */
function withImportedDays(points: TimeseriesPoint[], days: Map<string, ImportedDayTotals>): TimeseriesPoint[] {
  if (days.size === 0) return points;
  return points.map((p) => {
    const day = days.get(p.local);
    if (!day) return p;
    if (!day.visible) return { ...p, visitors: SUPPRESSED, pageviews: SUPPRESSED, hidden: "small_group", imported: true };
    return { ...p, visitors: estimated(day.visitors), pageviews: estimated(day.pageviews), imported: true };
  });
}

const NO_SUMS: GuardedSums = { site: new Map(), goals: new Map() };
const estimated = (value: number): Figure => ({ value, qualifier: "estimated" });

/** Why a hidden site-day is hidden: fewer than k sessions, or k and more hidden beside its hours. */
function dayReason(site: SiteDayAtom, k: number): HiddenReason {
  return site.guarded || enoughUnits(site.units, k) ? "day_protection" : "small_group";
}

/**
 * The hours the hourly timeseries shows, per day of the scope it shows (a hidden day has no
 * entry): the start instants of the site-hour cells with data that it does not suppress. The
 * sessions list names a session's hour only where this report shows it.
 */
export async function shownSiteHours(db: ReadOnlyDatabase, scope: ReportScope): Promise<Map<string, Set<number>>> {
  const cells = await windowCells(db, wholeDays(scope), []);
  const shown = new Map<string, Set<number>>();
  for (const day of datesOf(scope)) {
    if (!cells.atoms.siteDays.get(day)?.visible) continue;
    shown.set(day, new Set());
  }
  for (const cell of cells.site.values()) {
    if (cell.decision !== "shown") continue;
    shown.get(localDate(scope.timeZone, cell.start))?.add(cell.start);
  }
  return shown;
}

function hourlyPoints(scope: ReportScope, cells: WindowCells): TimeseriesPoint[] {
  return cells.hours.map((hour) => {
    const site = cells.site.get(hour)!;
    let conversions: AtomTally = EMPTY_TALLY;
    for (const goalCells of cells.goals.values()) conversions = tallyHour(conversions, goalCells.get(hour), "value");
    return {
      start: new Date(hour).toISOString(),
      local: localMinuteLabel(scope.timeZone, hour),
      visitors: hourFigure(site, "units", scope.noise),
      pageviews: hourFigure(site, "value", scope.noise),
      conversions: additiveFigure(conversions),
      ...(site.reason ? { hidden: site.reason } : {}),
    };
  });
}
