/**
 * The day atoms of a site that several reports share, read from the rollups: site-day
 * (units, pageviews) and goal-day (units, conversions), with their visibility decided once
 * by the privacy rules on the true counts, and the figures they show (perturbed by the cell
 * key method when the scope asks for it), so every report shows the same atoms the same way.
 * A goal-day of a page, time or scroll goal is also checked against the day's page-days as
 * the pages report shows them (pathGoalsVisible).
 */
import type { Row } from "@libsql/client/web";
import type { ReadOnlyDatabase } from "../lib/read-only";
import { SMOKE_TEST_PURPOSE } from "../lib/schema";
import { shownCounts, type NoiseKey } from "./noise";
import { pathFilter } from "./pattern";
import {
  GOAL_HOURS_SQL,
  goalDayVisible,
  hourComplementUnsafeSql,
  PAGE_ATOMS_SQL,
  pathGoalsVisible,
  SITE_HOURS_SQL,
  siteDayVisible,
  type PathGoalDay,
} from "./privacy";
import type { ReportScope } from "./scope";

export interface SiteDayAtom {
  units: number;
  pageviews: number;
  /** The sum of its units' keys (noise.ts): the dimension cells' rest is this minus theirs. */
  keySum: number;
  visible: boolean;
  /**
   * Hidden only beside its hours (privacy/hours.ts hourComplementUnsafeSql): it holds k units and
   * passes every other rule, so its partitions (breakdowns) may still show, keeping a hidden
   * remainder of k so that they never add up to it.
   */
  guarded: boolean;
  /** What the atom shows: units and pageviews, perturbed (noise.ts) or exact. */
  shown: { units: number; pageviews: number };
}

export interface GoalDayAtom {
  units: number;
  conversions: number;
  keySum: number;
  visible: boolean;
  /** Hidden only beside its hours, as SiteDayAtom's. */
  guarded: boolean;
  shown: { units: number; conversions: number };
}

export interface GoalInfo {
  id: string;
  name: string;
  kind: string;
}

export interface DayAtoms {
  siteDays: Map<string, SiteDayAtom>;
  /** goal id → day → atom */
  goalDays: Map<string, Map<string, GoalDayAtom>>;
  goals: GoalInfo[];
}

/** The scope's noise key; a scope that asks for noise must carry it (request.ts reads it). */
function keyOf(scope: ReportScope): NoiseKey {
  if (!scope.noiseKey) throw new Error("a perturbed report needs scope.noiseKey");
  return scope.noiseKey;
}

/** A lone count's shown value (a funnel step: units only): perturbed by its cell key when the scope asks for noise. */
export function shownValue(scope: ReportScope, value: number, keySum: number): number {
  return scope.noise ? shownCounts({ units: value, events: 0, keySum }, keyOf(scope), scope.k, false).units : value;
}

/**
 * A cell's shown units and events, every report's one way to show a counted cell: perturbed
 * and post-processed (noise.ts shownCounts) when the scope asks for noise, exact otherwise.
 * `eventsCoverUnits`: every unit of the cell has at least one of its events by construction.
 */
export function shownCell(
  scope: ReportScope,
  cell: { units: number; events: number; keySum: number },
  eventsCoverUnits: boolean,
): { units: number; events: number } {
  return scope.noise ? shownCounts(cell, keyOf(scope), scope.k, eventsCoverUnits) : { units: cell.units, events: cell.events };
}

/** A site-day's (or site-hour's) shown figures: a session may have engagement or custom events only, so pageviews need not cover the units. */
export function siteDayShown(scope: ReportScope, units: number, pageviews: number, keySum: number): SiteDayAtom["shown"] {
  const shown = shownCell(scope, { units, events: pageviews, keySum }, false);
  return { units: shown.units, pageviews: shown.events };
}

/** A goal-day's (or goal-hour's) shown figures: every converting session has a conversion. */
export function goalDayShown(scope: ReportScope, units: number, conversions: number, keySum: number): GoalDayAtom["shown"] {
  const shown = shownCell(scope, { units, events: conversions, keySum }, true);
  return { units: shown.units, conversions: shown.events };
}

/**
 * A site's day atoms in a date range, with `hour_unsafe`: 1 when the day must hide beside its
 * hours (privacy/hours.ts closingHours; never for a day of the earlier hour rule, legacyDays).
 * Parameters: ?1 k, ?2 site, ?3 from, ?4 to, ?5 the last legacy day ("" for none). Only ended
 * days may be asked for: the running day's cells are still growing.
 */
export const SITE_DAY_ATOMS_SQL =
  `SELECT s.day AS day, s.visitors AS visitors, s.pageviews AS pageviews, s.key_sum AS key_sum, ` +
  `(s.day > ?5 AND ${hourComplementUnsafeSql(SITE_HOURS_SQL, "s", "visitors")}) AS hour_unsafe ` +
  "FROM rollup_site_day s WHERE s.site_id = ?2 AND s.day >= ?3 AND s.day <= ?4";

/** A site's goal-day atoms in a date range, with `hour_unsafe` as above. Same parameters. */
const GOAL_DAY_ATOMS_SQL =
  `SELECT g.goal_id AS goal_id, g.day AS day, g.units AS units, g.conversions AS conversions, g.key_sum AS key_sum, ` +
  `(g.day > ?5 AND ${hourComplementUnsafeSql(GOAL_HOURS_SQL, "g", "units")}) AS hour_unsafe ` +
  "FROM rollup_goal_day g WHERE g.site_id = ?2 AND g.day >= ?3 AND g.day <= ?4";

/** Whether a SITE_DAY_ATOMS_SQL row's atom is shown. */
export function siteDayAtomVisible(row: Row, k: number): boolean {
  return siteDayVisible(Number(row["visitors"]), k) && !Number(row["hour_unsafe"]);
}

/** Whether a SITE_DAY_ATOMS_SQL row's atom is hidden beside its hours only (SiteDayAtom.guarded). */
export function siteDayAtomGuarded(row: Row, k: number): boolean {
  return siteDayVisible(Number(row["visitors"]), k) && Boolean(Number(row["hour_unsafe"]));
}

/** The goals a report lists, in their order. Smoke-test goals stay out of every report: their conversions are listed with the deployments. */
export function reportGoalsStatement(siteId: string) {
  return {
    sql: "SELECT id, name, kind, match, threshold FROM goals WHERE site_id = ? AND NOT (kind = 'event' AND purpose IS ?) ORDER BY created_at, rowid",
    args: [siteId, SMOKE_TEST_PURPOSE],
  };
}

/** The goals a report lists, in the order every report lists them. */
export async function loadReportGoals(
  db: ReadOnlyDatabase,
  siteId: string,
): Promise<{ id: string; name: string; kind: string }[]> {
  const rs = await db.query(reportGoalsStatement(siteId));
  return rs.rows.map((r) => ({ id: String(r.id), name: String(r.name), kind: String(r.kind) }));
}

export async function loadDayAtoms(db: ReadOnlyDatabase, scope: ReportScope): Promise<DayAtoms> {
  const range = [scope.siteId, scope.from, scope.to];
  const [siteRows, goalRows, goalList, pathRows] = await db.queryAll([
    { sql: SITE_DAY_ATOMS_SQL, args: [scope.k, ...range, scope.legacyDays ?? ""] },
    { sql: GOAL_DAY_ATOMS_SQL, args: [scope.k, ...range, scope.legacyDays ?? ""] },
    reportGoalsStatement(scope.siteId),
    // The period's paths, when a goal matches paths: its atoms are checked against the pages report.
    {
      sql:
        "SELECT DISTINCT path FROM rollup_page_day WHERE site_id = ?1 AND day >= ?2 AND day <= ?3 " +
        "AND EXISTS (SELECT 1 FROM goals WHERE site_id = ?1 AND kind IN ('page', 'time', 'scroll'))",
      args: range,
    },
  ]);
  const siteDays = new Map<string, SiteDayAtom>();
  for (const r of siteRows!.rows) {
    const units = Number(r.visitors);
    const pageviews = Number(r.pageviews);
    const keySum = Number(r.key_sum);
    siteDays.set(String(r.day), {
      units,
      pageviews,
      keySum,
      visible: siteDayAtomVisible(r, scope.k),
      guarded: siteDayAtomGuarded(r, scope.k),
      shown: siteDayShown(scope, units, pageviews, keySum),
    });
  }
  const goals = goalList!.rows.map((r) => ({ id: String(r.id), name: String(r.name), kind: String(r.kind) }));
  const known = new Set(goals.map((g) => g.id));
  const goalDays = new Map<string, Map<string, GoalDayAtom>>(goals.map((g) => [g.id, new Map()]));
  for (const r of goalRows!.rows) {
    const goal = String(r.goal_id);
    if (!known.has(goal)) continue; // a deleted goal's leftovers
    const day = String(r.day);
    const units = Number(r.units);
    const conversions = Number(r.conversions);
    const keySum = Number(r.key_sum);
    goalDays.get(goal)!.set(day, {
      units,
      conversions,
      keySum,
      visible: goalDayVisible(units, siteDays.get(day)?.units ?? 0, scope.k) && !Number(r.hour_unsafe),
      guarded: goalDayVisible(units, siteDays.get(day)?.units ?? 0, scope.k) && Boolean(Number(r.hour_unsafe)),
      shown: goalDayShown(scope, units, conversions, keySum),
    });
  }
  const pathGoals = goalList!.rows
    .filter((r) => PATH_GOAL_KINDS.has(String(r.kind)))
    .map((r) => ({
      id: String(r.id),
      kind: String(r.kind) as PathGoalDay["kind"],
      match: String(r.match),
      threshold: Number(r.threshold),
    }));
  if (pathGoals.length > 0 && pathRows!.rows.length > 0)
    await checkPathGoals(
      db,
      scope,
      pathGoals,
      pathRows!.rows.map((r) => String(r.path)),
      goalDays,
    );
  return { siteDays, goalDays, goals };
}

const PATH_GOAL_KINDS = new Set(["page", "time", "scroll"]);

/** The page-day atoms of the given paths, with the pages report's visibility. Parameters: ?1 k, ?2 site, ?3 from, ?4 to, ?5 paths (JSON). */
const MATCHED_PAGE_ATOMS_SQL = `WITH ${PAGE_ATOMS_SQL}
  SELECT day, path, visitors, visible FROM page_atoms WHERE path IN (SELECT value FROM json_each(?5))`;

/**
 * Page, time and scroll goals: per day, hides the goal-days that would single out a small group
 * beside the pages report's page-days (pathGoalsVisible). Mutates the atoms' `visible`.
 */
async function checkPathGoals(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  pathGoals: { id: string; kind: PathGoalDay["kind"]; match: string; threshold: number }[],
  paths: string[],
  goalDays: Map<string, Map<string, GoalDayAtom>>,
): Promise<void> {
  const matches = pathGoals.map((g) => {
    const matcher = pathFilter(g.match);
    return new Set(paths.filter((p) => matcher(p)));
  });
  const matched = [...new Set(matches.flatMap((m) => [...m]))];
  const pageDays = new Map<string, Map<string, { units: number; visible: boolean }>>();
  if (matched.length > 0) {
    const rs = await db.query({
      sql: MATCHED_PAGE_ATOMS_SQL,
      args: [scope.k, scope.siteId, scope.from, scope.to, JSON.stringify(matched)],
    });
    for (const r of rs.rows) {
      const day = String(r.day);
      if (!pageDays.has(day)) pageDays.set(day, new Map());
      pageDays.get(day)!.set(String(r.path), { units: Number(r.visitors), visible: Number(r.visible) === 1 });
    }
  }
  const days = new Set(pathGoals.flatMap((g) => [...goalDays.get(g.id)!.keys()]));
  for (const day of days) {
    const pages = pageDays.get(day) ?? new Map<string, { units: number; visible: boolean }>();
    const atoms = pathGoals.map((g) => goalDays.get(g.id)!.get(day));
    const decided = pathGoalsVisible(
      pages,
      pathGoals.map((g, i) => ({
        kind: g.kind,
        threshold: g.threshold,
        paths: new Set([...matches[i]!].filter((p) => pages.has(p))),
        units: atoms[i]?.units ?? 0,
        visible: atoms[i]?.visible ?? false,
      })),
      scope.k,
    );
    atoms.forEach((atom, i) => {
      if (atom) atom.visible = decided[i]!;
    });
  }
}
