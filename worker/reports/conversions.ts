/**
 * The conversions report: per goal, conversions, converting sessions, the session
 * denominator (the visible site-day atoms' units, the same for every goal and the same as the
 * timeseries' visitors) and the rate. A conversion not attached to a session counts as a
 * session of its own, since nothing tells two of them apart.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { perturbedFigure, ratio, type Figure } from "./figures";
import { loadDayAtoms } from "./atoms";
import { tallyHour, windowCells, type WindowCells } from "./hour-cells";
import { additiveFigure, addToTally, distinctFigure, EMPTY_TALLY, type AtomTally } from "./privacy";
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

export async function conversionsReport(db: ReadOnlyDatabase, scope: ReportScope): Promise<ConversionsReport> {
  if (scope.hours) return windowConversions(scope, await windowCells(db, { ...scope, hours: scope.hours }, null));
  const { siteDays, goalDays, goals } = await loadDayAtoms(db, scope);
  let sessionTally: AtomTally = EMPTY_TALLY;
  for (const atom of siteDays.values()) sessionTally = addToTally(sessionTally, atom.shown.units, atom.visible, atom.units > 0);
  const sessions = perturbedFigure(distinctFigure(sessionTally), scope.noise);

  let totalConversions: AtomTally = EMPTY_TALLY;
  let totalPerturbed = false;
  const rows = goals.map((goal): ConversionRow => {
    let conversions: AtomTally = EMPTY_TALLY;
    let converting: AtomTally = EMPTY_TALLY;
    for (const atom of goalDays.get(goal.id)!.values()) {
      conversions = addToTally(conversions, atom.shown.conversions, atom.visible, atom.units > 0);
      converting = addToTally(converting, atom.shown.units, atom.visible, atom.units > 0);
      totalConversions = addToTally(totalConversions, atom.shown.conversions, atom.visible, atom.units > 0);
    }
    const perturbed = scope.noise;
    if (perturbed && conversions.visible > 0) totalPerturbed = true;
    const convertingSessions = perturbedFigure(distinctFigure(converting), perturbed);
    return {
      goal,
      conversions: perturbedFigure(additiveFigure(conversions), perturbed),
      converting_sessions: convertingSessions,
      sessions,
      rate: ratio(convertingSessions, sessions),
    };
  });
  return { rows, totals: { conversions: perturbedFigure(additiveFigure(totalConversions), totalPerturbed), sessions } };
}

/**
 * The conversions report of a window of closed hours (`today`, `24h`, the Overview's windows):
 * the same figures summed over the window's decided hour cells instead of day atoms. Sessions
 * are the shown site-hours' visitors, so a session seen in two hours counts twice: the sums of
 * more than one hour are `estimated`.
 */
export function windowConversions(scope: ReportScope, cells: WindowCells): ConversionsReport {
  let sessionTally: AtomTally = EMPTY_TALLY;
  for (const cell of cells.site.values()) sessionTally = tallyHour(sessionTally, cell, "units");
  const sessions = perturbedFigure(distinctFigure(sessionTally), scope.noise);
  let totalConversions: AtomTally = EMPTY_TALLY;
  let totalPerturbed = false;
  const rows = cells.atoms.goals.map((goal): ConversionRow => {
    let conversions: AtomTally = EMPTY_TALLY;
    let converting: AtomTally = EMPTY_TALLY;
    for (const cell of cells.goals.get(goal.id)!.values()) {
      conversions = tallyHour(conversions, cell, "value");
      converting = tallyHour(converting, cell, "units");
      totalConversions = tallyHour(totalConversions, cell, "value");
    }
    const perturbed = scope.noise;
    if (perturbed && conversions.visible > 0) totalPerturbed = true;
    const convertingSessions = perturbedFigure(distinctFigure(converting), perturbed);
    return {
      goal,
      conversions: perturbedFigure(additiveFigure(conversions), perturbed),
      converting_sessions: convertingSessions,
      sessions,
      rate: ratio(convertingSessions, sessions),
    };
  });
  return { rows, totals: { conversions: perturbedFigure(additiveFigure(totalConversions), totalPerturbed), sessions } };
}
