/**
 * The hour cells of a window of closed local hours, decided by the one hour rule
 * (privacy/hours.ts closingHours): the site's traffic (units = visitors, value = pageviews) and each
 * goal's conversions (units = converting units, value = conversions). A day that has ended
 * decides its hours beside its day atom (atoms.ts); the running day (today) decides each of
 * its closed hours from the hours before it alone, so what it shows now is what it will show
 * for good, by the day's hour rule (rollup_site_day.hour_rule). The timeseries, the conversions
 * report and the Overview sum these cells.
 */
import type { ResultSet } from "@libsql/client/web";
import type { ReadOnlyDatabase } from "../lib/read-only";
import { loadDayAtoms, shownCell, type DayAtoms } from "./atoms";
import { SUPPRESSED, type Figure } from "./figures";
import {
  addToTally,
  closingHours,
  emptyHoursShown,
  hiddenHourReason,
  legacyHours,
  OPEN_RULE,
  type AtomTally,
  type HiddenReason,
  type HourDecision,
  type HourRule,
} from "./privacy";
import type { HourWindow, ReportScope } from "./scope";
import { addDays, HOUR_MS, localDate, startOfLocalDay } from "./timezone";

export interface HourCell {
  /** UTC instant at which the local hour starts. */
  start: number;
  decision: HourDecision;
  /** Why a hidden cell is hidden (privacy/hours.ts hiddenHourReason); absent when it is not. */
  reason?: HiddenReason;
  /** True counts (for the rules) and what the cell shows (perturbed or exact). */
  units: number;
  value: number;
  shown: { units: number; value: number };
}

export interface WindowCells {
  /** Every local hour start of the window, in order. */
  hours: number[];
  site: Map<number, HourCell>;
  /** goal id → hour start → cell, for the goals asked for. */
  goals: Map<string, Map<number, HourCell>>;
  /** The day atoms of the window's days that have ended, and the site's goals. */
  atoms: DayAtoms;
}

interface RawCell {
  units: number;
  value: number;
  keySum: number;
}

/**
 * Decides the hours of `scope.hours.window` for the scope's site. Days up to `lastEndedDay`
 * have ended and are published; a later day is running, and only its hours in the window
 * (which ends at the last closed hour) are read. `goalIds` null: every goal of the site.
 */
export async function windowCells(
  db: ReadOnlyDatabase,
  scope: ReportScope & Required<Pick<ReportScope, "hours">>,
  goalIds: string[] | null,
  /** The day atoms of the window's ended days, when the caller has them already. */
  knownAtoms?: DayAtoms,
): Promise<WindowCells> {
  const { window, lastEndedDay } = scope.hours;
  const zone = scope.timeZone;
  const firstDay = localDate(zone, window.fromMs);
  const lastDay = localDate(zone, window.toMs - 1);
  const endedTo = lastDay <= lastEndedDay ? lastDay : lastEndedDay;
  const atomScope = { ...scope, from: firstDay, to: endedTo, hours: undefined };
  // An ended day's hours are all read, the running day's up to the window's end: a day's
  // decisions depend on every one of its hours that has closed.
  const readUntil = lastDay <= lastEndedDay ? startOfLocalDay(zone, addDays(lastDay, 1)) : window.toMs;
  // Whole days are decided: an hour's fate depends on the hours before it that day (its cover).
  const dayStart = startOfLocalDay(zone, firstDay);
  const [atoms, [siteRows, goalRows, siteRules, goalRules]] = await Promise.all([
    knownAtoms ?? (firstDay <= endedTo ? loadDayAtoms(db, atomScope) : emptyAtoms(db, scope)),
    db.queryAll([
      {
        sql: "SELECT hour, visitors AS units, pageviews AS value, key_sum FROM rollup_site_hour WHERE site_id = ? AND day >= ? AND day <= ? AND hour < ?",
        args: [scope.siteId, firstDay, lastDay, readUntil],
      },
      {
        sql: "SELECT goal_id, hour, units, conversions AS value, key_sum FROM rollup_goal_hour WHERE site_id = ? AND day >= ? AND day <= ? AND hour < ?",
        args: [scope.siteId, firstDay, lastDay, readUntil],
      },
      // Each day's hour rule: the running day's too, since its closed hours are decided by it.
      { sql: "SELECT day, hour_rule FROM rollup_site_day WHERE site_id = ? AND day >= ? AND day <= ?", args: [scope.siteId, firstDay, lastDay] },
      { sql: "SELECT goal_id, day, hour_rule FROM rollup_goal_day WHERE site_id = ? AND day >= ? AND day <= ?", args: [scope.siteId, firstDay, lastDay] },
    ]),
  ]);
  const siteRule = new Map(siteRules!.rows.map((r) => [String(r.day), Number(r.hour_rule) as HourRule]));
  const goalRule = new Map(goalRules!.rows.map((r) => [`${String(r.goal_id)}\u0000${String(r.day)}`, Number(r.hour_rule) as HourRule]));
  const wanted = new Set(goalIds ?? atoms.goals.map((g) => g.id));
  const known = new Set(atoms.goals.map((g) => g.id));
  const siteRaw = rawCells(siteRows!.rows);
  const goalRaw = new Map<string, Map<number, RawCell>>();
  for (const r of goalRows!.rows) {
    const goal = String(r.goal_id);
    if (!wanted.has(goal) || !known.has(goal)) continue;
    if (!goalRaw.has(goal)) goalRaw.set(goal, new Map());
    goalRaw.get(goal)!.set(Number(r.hour), rawOf(r));
  }

  const hours: number[] = [];
  for (let h = window.fromMs; h < window.toMs; h += HOUR_MS) hours.push(h);
  const inWindow = (h: number) => h >= window.fromMs && h < window.toMs;
  const site = new Map<number, HourCell>();
  const goals = new Map<string, Map<number, HourCell>>([...wanted].filter((g) => known.has(g)).map((g) => [g, new Map()]));
  for (let day = firstDay, start = dayStart; day <= lastDay; day = addDays(day, 1)) {
    const ended = day <= lastEndedDay;
    const next = startOfLocalDay(zone, addDays(day, 1));
    const slots: number[] = [];
    for (let h = start; h < (ended ? next : Math.min(next, window.toMs)); h += HOUR_MS) slots.push(h);
    const siteDay = atoms.siteDays.get(day);
    const siteFate = ended ? { visible: siteDay?.visible ?? false, units: siteDay?.units ?? 0 } : null;
    const emptyShown = emptyHoursShown(slots.map((h) => siteRaw.get(h) ?? NO_DATA), scope.k, siteFate);
    const legacy = ended && day <= (scope.legacyDays ?? "");
    // A site-hour's sessions may have no pageview there; a goal-hour's converters each have a conversion.
    const rule = siteRule.get(day) ?? OPEN_RULE;
    decideDay(scope, slots, siteRaw, siteFate, emptyShown, legacy ? null : rule, inWindow, site, false);
    for (const [goal, cells] of goals) {
      const goalDay = atoms.goalDays.get(goal)?.get(day);
      const goalFate = ended ? { visible: goalDay?.visible ?? false, units: goalDay?.units ?? 0 } : null;
      const rule = goalRule.get(`${goal}\u0000${day}`) ?? OPEN_RULE;
      decideDay(scope, slots, goalRaw.get(goal) ?? new Map(), goalFate, emptyShown, legacy ? null : rule, inWindow, cells, true);
    }
    start = next;
  }
  return { hours, site, goals, atoms };
}

/** The window of whole days of a scope of days, for its hour cells. */
export function wholeDays(scope: ReportScope): ReportScope & Required<Pick<ReportScope, "hours">> {
  if (scope.hours) return { ...scope, hours: scope.hours };
  const window = { fromMs: startOfLocalDay(scope.timeZone, scope.from), toMs: startOfLocalDay(scope.timeZone, addDays(scope.to, 1)) };
  return { ...scope, hours: { window, lastEndedDay: scope.to } };
}

/** The cells of the hours of `window`, a part of the window they were decided for. */
export function cellsWithin(cells: WindowCells, window: HourWindow): WindowCells {
  const inside = <T>(map: Map<number, T>) => new Map([...map].filter(([h]) => h >= window.fromMs && h < window.toMs));
  return {
    hours: cells.hours.filter((h) => h >= window.fromMs && h < window.toMs),
    site: inside(cells.site),
    goals: new Map([...cells.goals].map(([goal, hours]) => [goal, inside(hours)])),
    atoms: cells.atoms,
  };
}

function decideDay(
  scope: ReportScope,
  slots: number[],
  raw: Map<number, RawCell>,
  day: { visible: boolean; units: number } | null,
  emptyShown: boolean[],
  /** The day's hour rule; null for a day published under the earliest rule (publication.ts legacyDays). */
  rule: HourRule | null,
  inWindow: (h: number) => boolean,
  out: Map<number, HourCell>,
  eventsCoverUnits: boolean,
): void {
  const cells = slots.map((h) => raw.get(h) ?? NO_DATA);
  // A day published under an earlier rule keeps its decisions.
  const decisions = rule === null && day ? legacyHours(cells, scope.k, day) : closingHours(cells, scope.k, day, emptyShown, rule ?? OPEN_RULE);
  slots.forEach((h, i) => {
    if (!inWindow(h)) return;
    const c = cells[i]!;
    const shown = shownCell(scope, { units: c.units, events: c.value, keySum: c.keySum }, eventsCoverUnits);
    out.set(h, {
      start: h,
      decision: decisions[i]!,
      ...(decisions[i] === "hidden" ? { reason: hiddenHourReason(c.units, emptyShown[i]!, scope.k) } : {}),
      units: c.units,
      value: c.value,
      shown: { units: shown.units, value: shown.events },
    });
  });
}

/** A decided hour cell's figure of units or value. */
export function hourFigure(cell: HourCell, field: "units" | "value", noise: boolean | undefined): Figure {
  if (cell.decision === "zero") return { value: 0, qualifier: "exact" };
  if (cell.decision === "hidden") return SUPPRESSED;
  return { value: cell.shown[field], qualifier: noise ? "estimated" : "exact" };
}

/**
 * Adds a decided cell to a tally: a shown cell adds its value, a shown 0 counts as a visible
 * zero (so a sum of zeros and hidden hours is an estimated 0, not suppressed), a hidden cell
 * counts as hidden.
 */
export function tallyHour(tally: AtomTally, cell: HourCell | undefined, field: "units" | "value"): AtomTally {
  if (!cell) return tally;
  return addToTally(tally, cell.decision === "zero" ? 0 : cell.shown[field], cell.decision !== "hidden");
}

const NO_DATA: RawCell = { units: 0, value: 0, keySum: 0 };

function rawOf(r: ResultSet["rows"][number]): RawCell {
  return { units: Number(r.units), value: Number(r.value), keySum: Number(r.key_sum) };
}

function rawCells(rows: ResultSet["rows"]): Map<number, RawCell> {
  return new Map(rows.map((r) => [Number(r.hour), rawOf(r)]));
}

/** The goals of the site without any day atom: a window of the running day alone. */
async function emptyAtoms(db: ReadOnlyDatabase, scope: ReportScope): Promise<DayAtoms> {
  // An empty date range (to < from) reads the goal list and no atoms.
  return loadDayAtoms(db, { ...scope, from: "9999-12-31", to: "0000-01-01" });
}
