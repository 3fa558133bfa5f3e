/**
 * The filtered Overview: the deployment windows' figures (overview.ts) for the filtered visitors.
 * A window's visitors are the filtered session-days with an event in one of its closed hours
 * (rollup_site_hour_units), their pageviews those of its hours, and each goal's conversions the
 * raw conversions of the window (kept as long as the per-session rows the filter needs). Each
 * figure is a cell through rule F (shown.ts), read again as the current window grows — a fresh
 * draw per unit set, as every filtered cell.
 *
 * Only filters on what a session-day's first pageview decides: a page viewed, a goal completed or
 * an exit page can still change later in the running day, and would move a unit into a window
 * already read (FILTERS_THAT_MOVE).
 */
import { HttpProblem } from "../../lib/problem";
import type { ReadOnlyDatabase } from "../../lib/read-only";
import type { ConversionsReport } from "../conversions";
import { ratio } from "../figures";
import { additiveFigure, addToTally, EMPTY_TALLY, type AtomTally } from "../privacy";
import { compareWindows, type OverviewFigures, type OverviewWindows, type WindowFigures } from "../overview";
import type { HourWindow, ReportScope } from "../scope";
import { localDate } from "../timezone";
import type { Cell } from "./cells";
import type { Filter } from "./filters";
import { loadReportGoals } from "../atoms";
import { cellFigures, type ExploreOptions } from "./shown";
import { filteredUnits } from "./units";

/** Filters a later pageview of the same day can still change: not offered on the Overview. */
export const FILTERS_THAT_MOVE = ["page", "goal", "exit_page"] as const;

/** Refuses (400 naming `filter`) the filters the Overview's running hours cannot take, and why. */
export function refuseMovingFilters(filters: readonly Filter[]): void {
  const moving = filters.find((f) => (FILTERS_THAT_MOVE as readonly string[]).includes(f.dimension));
  if (moving) {
    throw new HttpProblem(
      400,
      `filter: ${moving.dimension} is not offered on the Overview: its windows hold the running day's closed hours, and a visitor's later pageviews that day can still change whether it matches (${FILTERS_THAT_MOVE.join(", ")}).`,
      { field: "filter" },
    );
  }
}

/** Both windows' figures for the filtered visitors, compared. */
export async function filteredOverviewFigures(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  windows: OverviewWindows,
  filters: readonly Filter[],
  options: ExploreOptions = {},
): Promise<OverviewFigures> {
  const goals = await loadReportGoals(db, scope.siteId);
  const [current, previous] = await Promise.all([
    windowFigures(db, scope, windows.current, filters, goals, options),
    windowFigures(db, scope, windows.previous, filters, goals, options),
  ]);
  return compareWindows(current, previous);
}

async function windowFigures(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  window: HourWindow,
  filters: readonly Filter[],
  goals: ConversionsReport["rows"][number]["goal"][],
  options: ExploreOptions,
): Promise<WindowFigures> {
  const days = {
    ...scope,
    from: localDate(scope.timeZone, window.fromMs),
    to: localDate(scope.timeZone, Math.max(window.fromMs, window.toMs - 1)),
  };
  const units = filteredUnits(days, filters);
  // The filtered session-days with an event in the window's hours, their pageviews and conversions in it.
  const inWindow =
    `WITH u AS MATERIALIZED (${units.sql}), ` +
    "w AS (SELECT u.day AS day, u.unit AS unit, u.unit_key AS unit_key, sum(h.pageviews) AS pageviews FROM u " +
    "JOIN rollup_site_hour sh ON sh.site_id = ? AND sh.day = u.day AND sh.hour >= ? AND sh.hour < ? " +
    "JOIN rollup_site_hour_units h ON h.site_id = sh.site_id AND h.hour = sh.hour AND h.unit = u.unit GROUP BY u.day, u.unit)";
  const args = [...units.args, scope.siteId, window.fromMs, window.toMs];
  const [site, byGoal, data] = await db.queryAll([
    {
      sql: `${inWindow} SELECT count(*) AS units, coalesce(sum(pageviews), 0) AS events, coalesce(sum(unit_key), 0) AS key_sum FROM w`,
      args,
    },
    {
      sql:
        `${inWindow}, c AS (SELECT goal_id, session_id, count(*) AS n FROM conversions WHERE site_id = ? AND ts >= ? AND ts < ? AND session_id IS NOT NULL GROUP BY goal_id, session_id) ` +
        "SELECT c.goal_id AS goal_id, count(*) AS units, sum(c.n) AS events, sum(w.unit_key) AS key_sum FROM w JOIN c ON c.session_id = w.unit GROUP BY c.goal_id",
      args: [...args, scope.siteId, window.fromMs, window.toMs],
    },
    // Whether the site had visitors in the window at all: nobody matching then reads suppressed, not 0.
    {
      sql: "SELECT count(*) AS n FROM rollup_site_hour WHERE site_id = ? AND hour >= ? AND hour < ? AND visitors > 0",
      args: [scope.siteId, window.fromMs, window.toMs],
    },
  ]);
  const cell = (r: Record<string, unknown> | undefined): Cell | undefined =>
    r && Number(r.units) > 0
      ? { keys: [], units: Number(r.units), events: Number(r.events), keySum: Number(r.key_sum) }
      : undefined;
  const hasData = Number(data!.rows[0]!.n) > 0;
  // A visitor may have only an engagement ping in the window: its pageviews are not floored at the visitors.
  const visitors = cellFigures(cell(site!.rows[0]), scope, false, hasData, options);
  const goalRows = new Map(byGoal!.rows.map((r) => [String(r.goal_id), r]));
  let conversions: AtomTally = EMPTY_TALLY;
  const rows = goals.map((goal) => {
    const shown = cellFigures(cell(goalRows.get(goal.id)), scope, true, hasData, options);
    conversions = addToTally(conversions, shown.events.value ?? 0, shown.events.value !== null, hasData);
    return {
      goal,
      conversions: shown.events,
      converting_sessions: shown.units,
      sessions: visitors.units,
      rate: ratio(shown.units, visitors.units),
    };
  });
  return {
    visitors: visitors.units,
    pageviews: visitors.events,
    conversions: { rows, totals: { conversions: additiveFigure(conversions), sessions: visitors.units } },
  };
}
