/**
 * The k-anonymity post-filter: the one place that decides which cells of data a report may
 * show, and what every figure built from them is worth. Every report (and so the dashboard,
 * which reads the API) goes through here. The design, and why it resists differencing, is in
 * docs/reports.md ("The privacy filter", whose numbered rules are cited in brackets); in short,
 * each rule with the module that keeps it:
 *
 * - Atoms (threshold.ts; rule 1): the unit of suppression is an atom: a (dimension value, day)
 *   cell, days in the site's time zone. An atom is visible when at least k distinct units
 *   (sessions) are in it.
 * - Suppress, then aggregate (tally.ts; rule 2): a figure over several days sums visible atoms
 *   only, so any difference of periods is a sum of visible atoms.
 * - Nested cells (nesting.ts; rule 3): a page inside its site-day, an hour inside its day, a
 *   funnel step inside the steps it refines, converting sessions inside the sessions of the
 *   day: when parent − child is between 1 and k − 1, the child is hidden, since that
 *   complement is itself a small group.
 * - Partitions of a published total (cover.ts; rule 4): pages and hours split the day's
 *   pageviews; hours split a goal's conversions. The hidden cells must together hold a group of
 *   at least k units, or the total minus the visible cells would single a small group out. If
 *   they do not, the smallest visible cell is hidden too (complementary suppression).
 * - Page goals are unions of page-days (path-goals.ts; rule 7): the shown ones stay nested or
 *   disjoint beside the visible pages, with safe differences along each nesting and safe
 *   overlaps of two children that make up their parent (pathGoalsVisible); time and scroll
 *   goals refine them.
 * - A vitals atom's rating groups partition its samples (rating-groups.ts; rule 8): a group is
 *   shown only when it provably holds k sessions, with complementary suppression
 *   (ratingGroupsVisible). p75 by the same bound (histogram.ts quantileRange): shown as the
 *   smallest fixed block of buckets around its rank that provably holds k sessions' samples.
 * - Hours are decided as they close (hours.ts; "Today"), so that today's closed hours can be
 *   shown and never change (closingHours): an hour cell with k units is shown at once, the day's
 *   first too. The day carries the protection: it treats the hours shown as fixed and is hidden
 *   when one of them differs from it by 1 to k − 1 units or when its small hours hold 1 to
 *   k − 1 units between them; its pages then keep a hidden remainder of k (page-atoms.ts).
 * - Nested dimensions (nested-dimensions.ts; rule 9): where a breakdown value nests in another
 *   dimension's value that day (macOS in desktop), the parent minus its shown nested children is
 *   0 or at least k, with complementary suppression inside the parent (decideNestedDimensions).
 * - Today's pages and breakdowns (today.ts; "Today"): read again after every closed hour, from
 *   raw rows; a row below k, true or perturbed by its unit set's cell-key noise, is hidden, else
 *   its perturbed counts are shown as the bands of width k they fall in (bands.ts), so two
 *   readings never tell an hour's newcomers to a row, nor where its threshold lies.
 * - The live counter (live.ts; "Live"): the one figure read from raw rows, units of the last 5
 *   and 30 minutes, fixed for a minute; below k "fewer than k", else its unit set's cell-key
 *   noise and the band of width k that falls in, so one session never moves it by one.
 *
 * - Revenue (revenue.ts; "Revenue"): a revenue goal's sums of money, shown only where rule F
 *   shows the converting units' cell, hidden when one unit's moved amount is more than 60 % of the
 *   sum (τ-ARGUS's dominance rule), each unit's amount moved by its own persistent keyed fraction
 *   and the cell by a keyed draw scaled by its largest amount (the ABS TableBuilder's magnitudes).
 *
 * The page-day atoms are decided in SQL by rules 1, 3, 4 and 7 together (page-atoms.ts), for
 * every query that reads pages. Rules 5 (same atoms everywhere), 6 (the sessions list) and 9
 * (breakdowns, breakdown.ts) are how the reports use these. explain.ts (and breakdown-explain.ts)
 * name, for tests and debugging, the small group each hidden cell of 2k units protects.
 */
export { coverHiddenRemainder, smallestVisible, type PartitionCell } from "./cover";
export { explainHiddenPages, type HiddenCell, type HidingRule } from "./explain";
export {
  closingHours,
  COVER_RULE,
  emptyHoursShown,
  GOAL_HOURS_SQL,
  HIDDEN_REASONS,
  hiddenHourReason,
  hourComplementUnsafeSql,
  hourRemainderSql,
  legacyHours,
  OPEN_RULE,
  SITE_HOURS_SQL,
  type HourCellsSql,
  type HiddenReason,
  type HourDecision,
  type HourRule,
} from "./hours";
export { complementSafe, differenceSafe, funnelStepsVisible, goalDayVisible } from "./nesting";
export { decideNestedDimensions, type NestedCell, type NestingDay, type PairCell } from "./nested-dimensions";
export { PAGE_ATOMS_SQL, pageAtomVisibleSql } from "./page-atoms";
export { pathGoalsVisible, type PathGoalDay } from "./path-goals";
export { ratingGroupsSql, ratingGroupsVisible } from "./rating-groups";
export { addPartial, addToTally, additiveFigure, distinctFigure, EMPTY_TALLY, type AtomTally } from "./tally";
export {
  bandedLive,
  exactLive,
  fewerThanK,
  liveNextUpdate,
  liveWindowEnd,
  LIVE_STEP_MS,
  type LiveFigure,
  type LiveRule,
} from "./live";
export { DEFAULT_K, enoughUnits, kAnonymity, MIN_K, siteDayVisible } from "./threshold";
export { bandOf } from "./bands";
export { bandedOnTrueCounts, bandedToday, exactToday, type TodayCell, type TodayRule } from "./today";
export { exactFiltered, filteredOnTrueCounts, filteredRule, type FilteredCell, type FilteredRule } from "./filtered";
export { perturbWithTails, tailSteps } from "./filtered";
export { cellOnlyRevenue, exactRevenue, revenueRule, unitShareSql, type RevenueCell, type RevenueRule } from "./revenue";
