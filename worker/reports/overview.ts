/**
 * The Overview: what changed since a deployment. The window since the marker, up to the last
 * closed hour, against the window of equal length just before it; without a marker, the last
 * 24 closed hours against the 24 before. Hours are the cells (hour-cells.ts): the marker's own
 * hour is in neither window, since it holds traffic from before and after the release. Every
 * figure is a sum of decided hour cells, the same the timeseries and conversions report show,
 * so the Overview adds no figure an attacker could difference: it is a window of them. A
 * figure against its previous one is compare.ts's `compare`, the one definition of a delta.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { windowConversions, type ConversionsReport } from "./conversions";
import { compare, type Comparison } from "./compare";
import type { Figure } from "./figures";
import { cellsWithin, tallyHour, windowCells, type WindowCells } from "./hour-cells";
import { additiveFigure, distinctFigure, EMPTY_TALLY, type AtomTally } from "./privacy";
import { perturbedFigure } from "./figures";
import type { HourWindow, ReportScope } from "./scope";
import { HOUR_MS, localHourStart } from "./timezone";

/** Windows compared without a marker: the last day of closed hours against the one before. */
export const DEFAULT_WINDOW_HOURS = 24;

export interface RateComparison extends Comparison {
  /** The figures the rate divides, so a screen can write "6 of 8 sessions". */
  numerator: { name: "converting_sessions"; current: Figure; previous: Figure };
  denominator: { name: "sessions"; current: Figure; previous: Figure };
}

export interface OverviewFigures {
  visitors: Comparison;
  pageviews: Comparison;
  /** The rates' denominator: sessions of the window (shown site-hours' visitors). */
  sessions: Comparison;
  goals: {
    goal: { id: string; name: string; kind: string };
    conversions: Comparison;
    converting_sessions: Comparison;
    rate: RateComparison;
  }[];
}

export interface OverviewWindows {
  current: HourWindow;
  previous: HourWindow;
  /** Set when the current window holds no closed hour yet: when its first hour closes. */
  pendingUntil: number | null;
}

/**
 * The windows for a marker deployed at `deployedAtMs` (null: no marker), given the end of the
 * last closed hour. The current window starts at the first local hour after the marker's; the
 * previous one ends where the marker's hour starts.
 */
export function overviewWindows(timeZone: string, deployedAtMs: number | null, closedUntilMs: number): OverviewWindows {
  if (deployedAtMs === null) {
    const length = DEFAULT_WINDOW_HOURS * HOUR_MS;
    return {
      current: { fromMs: closedUntilMs - length, toMs: closedUntilMs },
      previous: { fromMs: closedUntilMs - 2 * length, toMs: closedUntilMs - length },
      pendingUntil: null,
    };
  }
  const markerHour = localHourStart(timeZone, deployedAtMs);
  const start = markerHour + HOUR_MS;
  const length = Math.max(0, closedUntilMs - start);
  return {
    current: { fromMs: start, toMs: start + length },
    previous: { fromMs: markerHour - length, toMs: markerHour },
    pendingUntil: length === 0 ? start + HOUR_MS : null,
  };
}

/**
 * Both windows' figures, compared. One read decides the hours of both: they lie side by side
 * (only the marker's own hour between them), and an hour's fate depends on its day alone.
 */
export async function overviewFigures(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  windows: OverviewWindows,
  lastEndedDay: string,
): Promise<OverviewFigures> {
  const both = { fromMs: windows.previous.fromMs, toMs: windows.current.toMs };
  const cells = await windowCells(db, { ...scope, hours: { window: both, lastEndedDay } }, null);
  return compareWindows(
    windowFigures(scope, cellsWithin(cells, windows.current)),
    windowFigures(scope, cellsWithin(cells, windows.previous)),
  );
}

/** A window's figures: what the Overview compares (filtered windows have the same shape: explore/overview.ts). */
export interface WindowFigures {
  visitors: Figure;
  pageviews: Figure;
  conversions: ConversionsReport;
}

/** The current window's figures against the previous window's, goal by goal. */
export function compareWindows(current: WindowFigures, previous: WindowFigures): OverviewFigures {
  return {
    visitors: compare(current!.visitors, previous!.visitors),
    pageviews: compare(current!.pageviews, previous!.pageviews),
    sessions: compare(current!.conversions.totals.sessions, previous!.conversions.totals.sessions),
    goals: current!.conversions.rows.map((row, i) => {
      const before = previous!.conversions.rows[i]!;
      return {
        goal: row.goal,
        conversions: compare(row.conversions, before.conversions),
        converting_sessions: compare(row.converting_sessions, before.converting_sessions),
        rate: {
          ...compare(row.rate, before.rate),
          numerator: { name: "converting_sessions", current: row.converting_sessions, previous: before.converting_sessions },
          denominator: { name: "sessions", current: row.sessions, previous: before.sessions },
        },
      };
    }),
  };
}

/** A window's figures as the Overview shows them (alert rules read the same, alerts/figures.ts). */
export function windowFigures(scope: ReportScope, cells: WindowCells): WindowFigures {
  let visitors: AtomTally = EMPTY_TALLY;
  let pageviews: AtomTally = EMPTY_TALLY;
  for (const cell of cells.site.values()) {
    visitors = tallyHour(visitors, cell, "units");
    pageviews = tallyHour(pageviews, cell, "value");
  }
  return {
    visitors: perturbedFigure(distinctFigure(visitors), scope.noise),
    pageviews: perturbedFigure(additiveFigure(pageviews), scope.noise),
    conversions: windowConversions(scope, cells),
  };
}
