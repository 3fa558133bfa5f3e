/**
 * The conversions report: per goal, conversions, converting sessions, the session
 * denominator (the visible site-day atoms' units, the same for every goal and the same as the
 * timeseries' visitors) and the rate. A conversion not attached to a session counts as a
 * session of its own, since nothing tells two of them apart.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { perturbedFigure, ratio, type Figure } from "./figures";
import { loadDayAtoms } from "./atoms";
import { filteredAtoms, type Filter } from "./filter";
import { guardedDaySums } from "./guarded-days";
import { tallyHour, windowCells, type WindowCells } from "./hour-cells";
import { addPartial, additiveFigure, addToTally, distinctFigure, EMPTY_TALLY, type AtomTally } from "./privacy";
import type { ReportScope } from "./scope";

export interface ConversionRow {
  goal: { id: string; name: string; kind: string };
  conversions: Figure;
  converting_sessions: Figure;
  sessions: Figure;
  rate: Figure;
}

export interface ConversionsReport {
  rows: ConversionRow[];
  totals: { conversions: Figure; sessions: Figure };
}

export async function conversionsReport(db: ReadOnlyDatabase, scope: ReportScope, filter?: Filter): Promise<ConversionsReport> {
  if (scope.hours) {
    if (filter) throw new Error("filters apply to days only"); // refused by the route first (a 400)
    return windowConversions(scope, await windowCells(db, { ...scope, hours: scope.hours }, null));
  }
  const atoms = await loadDayAtoms(db, scope);
  const { siteDays, goalDays, goals } = filter ? await filteredAtoms(db, scope, filter, atoms) : atoms;
  // A day hidden beside its hours counts the sum of its shown hours (guarded-days.ts), as the timeseries does.
  const sums = filter ? undefined : await guardedDaySums(db, scope, atoms);
  let sessions: AtomTally = EMPTY_TALLY;
  for (const [day, atom] of siteDays) {
    const partial = atom.guarded ? sums?.site.get(day) : undefined;
    sessions = partial ? addPartial(sessions, partial.units) : addToTally(sessions, atom.shown.units, atom.visible, atom.units > 0);
  }
  return assemble(scope, goals, sessions, (goal) => {
    let conversions: AtomTally = EMPTY_TALLY;
    let converting: AtomTally = EMPTY_TALLY;
    for (const [day, atom] of goalDays.get(goal)!) {
      const partial = atom.guarded ? sums?.goals.get(goal)?.get(day) : undefined;
      if (partial) {
        conversions = addPartial(conversions, partial.value);
        converting = addPartial(converting, partial.units);
        continue;
      }
      conversions = addToTally(conversions, atom.shown.conversions, atom.visible, atom.units > 0);
      converting = addToTally(converting, atom.shown.units, atom.visible, atom.units > 0);
    }
    return { conversions, converting };
  });
}

/**
 * The conversions report of a window of closed hours (`today`, `24h`, the Overview's windows):
 * the same figures summed over the window's decided hour cells instead of day atoms. Sessions
 * are the shown site-hours' visitors, so a session seen in two hours counts twice: the sums of
 * more than one hour are `estimated`.
 */
export function windowConversions(scope: ReportScope, cells: WindowCells): ConversionsReport {
  let sessions: AtomTally = EMPTY_TALLY;
  for (const cell of cells.site.values()) sessions = tallyHour(sessions, cell, "units");
  return assemble(scope, cells.atoms.goals, sessions, (goal) => {
    let conversions: AtomTally = EMPTY_TALLY;
    let converting: AtomTally = EMPTY_TALLY;
    for (const cell of cells.goals.get(goal)!.values()) {
      conversions = tallyHour(conversions, cell, "value");
      converting = tallyHour(converting, cell, "units");
    }
    return { conversions, converting };
  });
}

/** The report from its tallies: the sessions' and, per goal, its conversions' and converting units'. */
function assemble(
  scope: ReportScope,
  goals: ConversionRow["goal"][],
  sessionTally: AtomTally,
  tallies: (goalId: string) => { conversions: AtomTally; converting: AtomTally },
): ConversionsReport {
  const sessions = perturbedFigure(distinctFigure(sessionTally), scope.noise);
  let total: AtomTally = EMPTY_TALLY;
  const rows = goals.map((goal): ConversionRow => {
    const { conversions, converting } = tallies(goal.id);
    total = { sum: total.sum + conversions.sum, visible: total.visible + conversions.visible, hidden: total.hidden + conversions.hidden };
    const convertingSessions = perturbedFigure(distinctFigure(converting), scope.noise);
    return {
      goal,
      conversions: perturbedFigure(additiveFigure(conversions), scope.noise),
      converting_sessions: convertingSessions,
      sessions,
      rate: ratio(convertingSessions, sessions),
    };
  });
  return { rows, totals: { conversions: perturbedFigure(additiveFigure(total), scope.noise), sessions } };
}
