/**
 * The k-anonymity post-filter: the one place that decides which cells of data a report may
 * show, and what every figure built from them is worth. Every report (and so the dashboard,
 * which reads the API) goes through here. The design, and why it resists differencing, is in
 * docs/reports.md; in short:
 *
 * - The unit of suppression is an atom: a (dimension value, day) cell, days in the site's
 *   time zone. An atom is visible when at least k distinct units (sessions) are in it.
 * - Suppress, then aggregate: a figure over several days sums visible atoms only, so any
 *   difference of periods is a sum of visible atoms.
 * - Nested cells (a page inside its site-day, an hour inside its day, a funnel step inside
 *   the steps it refines, converting sessions inside the sessions of the day): when
 *   parent − child is between 1 and k − 1, the child is hidden, since that complement is
 *   itself a small group.
 * - Partitions of a published total (pages and hours split the day's pageviews; hours split a
 *   goal's conversions): the hidden cells must together hold a group of at least k units, or
 *   the total minus the visible cells would single a small group out. If they do not, the
 *   smallest visible cell is hidden too (complementary suppression).
 * - Page goals are unions of page-days: the shown ones stay nested or disjoint beside the
 *   visible pages, with safe differences along each nesting and safe overlaps of two children
 *   that make up their parent (pathGoalsVisible); time and scroll goals refine them.
 * - A vitals atom's rating groups partition its samples: a group is shown only when it provably
 *   holds k sessions, with complementary suppression (ratingGroupsVisible).
 * - Hours are decided as they close, so that today's closed hours can be shown and never change
 *   (closingHours): an hour cell with k units is shown at once, except the day's first such
 *   hour, its cover, held back until the day ends. The day itself then treats the hours shown
 *   as fixed: it is hidden when one of them differs from it by 1 to k − 1 units.
 */
import { SUPPRESSED, type Figure } from "./figures";

export const DEFAULT_K = 5;
export const MIN_K = 2;

/** k from WREN_K_ANONYMITY: default 5, never below 2 (smaller values are raised to 2). */
export function kAnonymity(setting: string | null | undefined): number {
  if (setting === undefined || setting === null || setting.trim() === "") return DEFAULT_K;
  const k = Number(setting);
  if (!Number.isInteger(k)) return DEFAULT_K;
  return Math.max(MIN_K, k);
}

/** An atom or cell is shown only when at least k units are in it. */
export function enoughUnits(units: number, k: number): boolean {
  return units >= k;
}

/** A child may be shown beside its parent only when their difference is 0 or at least k. */
export function complementSafe(parentUnits: number, childUnits: number, k: number): boolean {
  const rest = parentUnits - childUnits;
  return rest <= 0 || rest >= k;
}

/** A site-day atom (the units seen that day) is the root of its day. */
export function siteDayVisible(units: number, k: number): boolean {
  return enoughUnits(units, k);
}

/** A goal-day atom: its converting units sit inside the day's units (the rate's denominator). */
export function goalDayVisible(units: number, dayUnits: number, k: number): boolean {
  return enoughUnits(units, k) && complementSafe(dayUnits, units, k);
}

/** A cell of a partition: `value` is its share of the parent's additive total. */
export interface PartitionCell {
  key: string;
  units: number;
  value: number;
  visible: boolean;
}

/**
 * Complementary suppression for a partition of a published total: unless the hidden cells
 * (with data) are none or include one of at least k units, hide the smallest visible cell
 * (by units, then value, then key), which has at least k units. Mutates `cells`.
 */
export function coverHiddenRemainder(cells: PartitionCell[], k: number): void {
  const hidden = cells.filter((c) => !c.visible && c.units > 0);
  if (hidden.length === 0 || hidden.some((c) => c.units >= k)) return;
  const smallest = smallestVisible(cells);
  if (smallest) smallest.visible = false;
}

/** The visible cell with the fewest units (then the smallest value, then the first key): a partition's cover. */
export function smallestVisible<C extends PartitionCell>(cells: readonly C[]): C | undefined {
  let smallest: C | undefined;
  for (const c of cells) {
    if (!c.visible) continue;
    if (
      !smallest ||
      c.units < smallest.units ||
      (c.units === smallest.units && (c.value < smallest.value || (c.value === smallest.value && c.key < smallest.key)))
    ) {
      smallest = c;
    }
  }
  return smallest;
}

/**
 * What a day of hour cells (the site's traffic, or one goal's conversions) shows of each hour,
 * decided as the hours close so that a shown hour never changes (docs/reports.md, "Today"):
 *
 * - An hour with data is shown when it holds k units — except the day's first hour with k
 *   units, its cover, which is held back while the day runs. Once the day has ended, the cover
 *   is shown too when the day is shown, no other hour with data is hidden and the day's other
 *   units are none or at least k; otherwise it stays hidden, and the hidden hours together hold
 *   at least its k units, so the day minus the shown hours never singles out a small group.
 * - An hour without data shows 0 where `emptyShown` says so (emptyHoursShown, from the site's
 *   hours for the site and every goal alike), else it is suppressed like a small hour.
 * - The day cannot hide an hour shown before it ended, so it hides itself instead: a day is
 *   hidden when one of its hours of k units other than the cover differs from it by 1 to k − 1
 *   units (hourComplementUnsafeSql).
 *
 * `hours` are the day's hours that have closed, in order, each with its units (0: no data).
 * `day` is null while the day runs; once it has ended, whether its atom is shown, and its units.
 */
export function closingHours(
  hours: readonly { units: number }[],
  k: number,
  day: { visible: boolean; units: number } | null,
  emptyShown: readonly boolean[],
): HourDecision[] {
  const cover = hours.findIndex((h) => enoughUnits(h.units, k));
  const smallHidden = hours.some((h) => h.units > 0 && !enoughUnits(h.units, k));
  return hours.map((h, i): HourDecision => {
    if (h.units === 0) return emptyShown[i] ? "zero" : "hidden";
    if (!enoughUnits(h.units, k)) return "hidden";
    if (i !== cover) return "shown";
    return day?.visible && !smallHidden && complementSafe(day.units, h.units, k) ? "shown" : "hidden";
  });
}

/**
 * Which hours without data show 0, from the site's hours (the same for the site and every
 * goal): those from the site's cover on, since by then the day has had k visitors in one hour;
 * and every one once the day has ended shown or without data. Before that an empty hour is
 * suppressed, so that which hours a day's first few visitors (or converters) came in is not
 * told apart from the hours nobody came.
 */
export function emptyHoursShown(siteHours: readonly { units: number }[], k: number, siteDay: { visible: boolean; units: number } | null): boolean[] {
  const cover = siteHours.findIndex((h) => enoughUnits(h.units, k));
  const all = siteDay !== null && (siteDay.visible || siteDay.units === 0);
  return siteHours.map((_, i) => all || (cover >= 0 && cover <= i));
}

/**
 * The earlier hour rule, kept for the days published under it (publication.ts legacyDays), so
 * that an upgrade changes no published figure: a day's hours were decided when it ended, shown
 * only inside a shown day, each with k units and a complement of 0 or at least k in the day,
 * and the hidden remainder covered by hiding the smallest shown hour (coverHiddenRemainder).
 * Inside a hidden day every hour was suppressed; inside a shown one an empty hour was 0.
 */
export function legacyHours(hours: readonly { units: number; value: number }[], k: number, day: { visible: boolean; units: number }): HourDecision[] {
  if (day.units > 0 && !day.visible) return hours.map(() => "hidden");
  const cells: PartitionCell[] = hours.map((h, i) => ({
    key: String(i).padStart(3, "0"),
    units: h.units,
    value: h.value,
    visible: day.visible && enoughUnits(h.units, k) && complementSafe(day.units, h.units, k),
  }));
  if (day.visible) coverHiddenRemainder(cells, k);
  return cells.map((c) => (c.units === 0 ? "zero" : c.visible ? "shown" : "hidden"));
}

/** An hour's fate: its figure shown, an exact 0 (no data), or suppressed. */
export type HourDecision = "shown" | "zero" | "hidden";

/**
 * The day's side of closingHours, in SQL: 1 when some hour cell of `hourTable` in the day `day`
 * (a row with site_id, day and the units in `dayUnits`) other than the day's cover has k units
 * and differs from the day by 1 to k − 1. `match(alias)` adds conditions tying an hour row to
 * the day (e.g. the goal). Parameter ?1: k.
 */
export function hourComplementUnsafeSql(hourTable: string, hourUnits: string, day: string, dayUnits: string, match: (alias: string) => string = () => ""): string {
  const ofDay = (alias: string) => `${alias}.site_id = ${day}.site_id AND ${alias}.day = ${day}.day${match(alias)}`;
  // "Not the cover": an earlier hour of the same day has k units. The hour bounds (a day is at
  // most 25 hours long) keep that lookup a short range of the primary key.
  return (
    `EXISTS (SELECT 1 FROM ${hourTable} h WHERE ${ofDay("h")} AND h.${hourUnits} >= ?1 AND ${day}.${dayUnits} - h.${hourUnits} BETWEEN 1 AND ?1 - 1 ` +
    `AND EXISTS (SELECT 1 FROM ${hourTable} c WHERE ${ofDay("c")} AND c.hour < h.hour AND c.hour > h.hour - 90000000 AND c.${hourUnits} >= ?1))`
  );
}

/**
 * Funnel steps of one day. `units[mask]` is the number of units that completed the goals in
 * `mask` (bit i = step i) in order on that day. Step i is shown when step i − 1 is, it has k
 * units, and for every coarser grouping a key could also read — any proper subsequence of
 * steps 0..i, as a funnel of its own or (a single step) as that goal's converting sessions in
 * the conversions report — the difference is 0 or at least k: each of those holds every unit
 * of step i. (Checkout converting 8, pricing → checkout 6: 2 checked out without pricing.)
 * `step0Visible` is the first goal's day atom as the conversions report shows it.
 */
export function funnelStepsVisible(units: (mask: number) => number, steps: number, step0Visible: boolean, k: number): boolean[] {
  const visible: boolean[] = [step0Visible];
  for (let i = 1; i < steps; i++) {
    const full = (1 << (i + 1)) - 1;
    const count = units(full);
    let ok = visible[i - 1]! && enoughUnits(count, k);
    for (let mask = 1; ok && mask < full; mask++) {
      if (!complementSafe(units(mask), count, k)) ok = false;
    }
    visible.push(ok);
  }
  return visible;
}

/** Two counts of nested groups (either way round): their difference is 0 or at least k. */
export function differenceSafe(a: number, b: number, k: number): boolean {
  const rest = Math.abs(a - b);
  return rest === 0 || rest >= k;
}

/**
 * One day of a goal whose conversions come from pageviews or engagement on matching paths:
 * a page goal (a session's pageview of a matching path), a time or scroll goal (engagement of
 * at least `threshold` on a matching path).
 */
export interface PathGoalDay {
  kind: "page" | "time" | "scroll";
  threshold: number;
  /** The paths with data that day (page-day atoms) that the goal's pattern matches. */
  paths: ReadonlySet<string>;
  /** Units of the goal-day atom. */
  units: number;
  /** Whether the goal-day atom passes on its own (goalDayVisible: k units, complement in the site-day). */
  visible: boolean;
}

/** A group the day shows that is a union of page-days: a visible page, or a shown page goal. */
interface PathNode {
  paths: ReadonlySet<string>;
  /** The shown counts of this set of paths (one, unless several goals match the same paths). */
  units: number[];
}

type Relation = "disjoint" | "equal" | "inside" | "contains" | "crossing";

/** How the path set `a` relates to `b`. */
function relation(a: ReadonlySet<string>, b: ReadonlySet<string>): Relation {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let common = 0;
  for (const p of small) if (large.has(p)) common++;
  if (common === 0) return "disjoint";
  if (common === a.size && common === b.size) return "equal";
  if (common === a.size) return "inside";
  if (common === b.size) return "contains";
  return "crossing";
}

/** The nodes among `nodes` not strictly inside another one: they are disjoint (the family is laminar). */
function maximal(nodes: PathNode[]): PathNode[] {
  return nodes.filter(
    (n) => !nodes.some((m) => m !== n && m.paths.size > n.paths.size && relation(n.paths, m.paths) === "inside"),
  );
}

/**
 * Two disjoint children that make up their parent: |A ∩ B| = |A| + |B| − |A ∪ B| is then
 * known, so it must be 0 (or less: a day's sessions may convert a page goal only once, see
 * docs/reports.md) or at least k.
 */
function intersectionSafe(a: PathNode, b: PathNode, parent: number[], k: number): boolean {
  for (const x of a.units) for (const y of b.units) for (const z of parent) if (x + y - z > 0 && x + y - z < k) return false;
  return true;
}

/**
 * Which path goals of one day may be shown beside the pages report (docs/reports.md, "Page
 * goals"). A page goal's units are the union of the page-days it matches, so beside the
 * visible pages and the other page goals it can single out small groups: `/s*` (7) − `/sale`
 * (6) is the 1 session that saw /secret and not /sale. The rule keeps the shown unions a
 * laminar family — nested or disjoint path sets — in which every small group that linear
 * algebra can pin down is a difference along one nesting or the overlap of two children that
 * make up their parent; it checks exactly those. Page goals are decided in `goals` order
 * (creation), so a new goal never hides an older one; a page goal is shown when its atom
 * passes on its own and
 *
 * - its path set crosses no shown node (visible page or shown page goal): nested or disjoint;
 * - it differs by 0 or at least k units from its parent (the smallest shown node containing
 *   it) and from each child (the largest shown nodes inside it, visible pages included);
 * - when exactly two children make it up (no other path of it has data), their overlap is 0 or
 *   at least k; and likewise for its parent, whose children it changes.
 *
 * Time and scroll goals refine page-days by engagement: a time or scroll goal is shown when it
 * differs by 0 or at least k from the smallest shown node containing its paths, and from every
 * shown goal of its kind nested with it (paths inside and threshold at least, or the reverse).
 * `pages` holds the day's page-days with data: units and whether the pages report shows them.
 */
export function pathGoalsVisible(
  pages: ReadonlyMap<string, { units: number; visible: boolean }>,
  goals: readonly PathGoalDay[],
  k: number,
): boolean[] {
  const visible = goals.map((g) => g.visible);
  const matched = new Set(goals.flatMap((g) => [...g.paths]));
  const nodes: PathNode[] = [];
  for (const path of matched) {
    const page = pages.get(path);
    if (page?.visible) nodes.push({ paths: new Set([path]), units: [page.units] });
  }

  goals.forEach((goal, i) => {
    if (goal.kind !== "page" || !visible[i] || goal.paths.size === 0) return;
    const g = goal.units;
    let same: PathNode | undefined;
    let parent: PathNode | undefined;
    const inside: PathNode[] = [];
    for (const node of nodes) {
      const r = relation(goal.paths, node.paths);
      if (r === "crossing") return void (visible[i] = false);
      if (r === "equal") same = node;
      else if (r === "inside" && (!parent || node.paths.size < parent.paths.size)) parent = node;
      else if (r === "contains") inside.push(node);
    }
    if (same) {
      // The same union of page-days as a node shown already: only their difference is new.
      if (same.units.every((u) => differenceSafe(u, g, k))) same.units.push(g);
      else visible[i] = false;
      return;
    }
    const node: PathNode = { paths: goal.paths, units: [g] };
    const children = maximal(inside);
    let ok = children.every((c) => c.units.every((u) => differenceSafe(u, g, k)));
    if (ok && parent) ok = parent.units.every((u) => differenceSafe(u, g, k));
    const coveredBy = (kids: PathNode[], size: number) => kids.reduce((n, c) => n + c.paths.size, 0) === size;
    if (ok && children.length === 2 && coveredBy(children, goal.paths.size))
      ok = intersectionSafe(children[0]!, children[1]!, [g], k);
    if (ok && parent) {
      const p = parent;
      const siblings = maximal([...nodes.filter((n) => n !== p && relation(n.paths, p.paths) === "inside"), node]);
      if (siblings.length === 2 && coveredBy(siblings, p.paths.size))
        ok = intersectionSafe(siblings[0]!, siblings[1]!, p.units, k);
    }
    if (ok) nodes.push(node);
    else visible[i] = false;
  });

  const shownRefinements: number[] = [];
  goals.forEach((goal, i) => {
    if (goal.kind === "page" || !visible[i] || goal.paths.size === 0) return;
    let smallest: PathNode | undefined;
    for (const node of nodes) {
      const r = relation(goal.paths, node.paths);
      if ((r === "inside" || r === "equal") && (!smallest || node.paths.size < smallest.paths.size)) smallest = node;
    }
    let ok = !smallest || smallest.units.every((u) => differenceSafe(u, goal.units, k));
    for (const j of shownRefinements) {
      const other = goals[j]!;
      if (!ok || other.kind !== goal.kind) continue;
      const r = relation(goal.paths, other.paths);
      const nested =
        ((r === "inside" || r === "equal") && goal.threshold >= other.threshold) ||
        ((r === "contains" || r === "equal") && goal.threshold <= other.threshold);
      if (nested && !differenceSafe(other.units, goal.units, k)) ok = false;
    }
    if (ok) shownRefinements.push(i);
    else visible[i] = false;
  });
  return visible;
}

/**
 * The rating groups of a vitals atom (good, needs improvement, poor: one sample each, a
 * session's samples possibly in several) partition its samples; a shown share × the shown
 * samples is the group's sample count, drawn from the group's sessions. The rollup counts
 * samples per group, not sessions, but every unit of the atom has at least one sample, so a
 * group of `x` samples holds at least units − samples + x sessions (the units outside it have
 * at least one sample each among the other samples) — and at most x. A group is shown when
 * that lower bound is at least k (or it has no samples: an exact 0). The hidden groups'
 * samples are what the samples minus the shown groups single out: unless they provably hold
 * k sessions together (units − samples + their samples ≥ k), the smallest shown group with
 * samples is hidden too (by samples, then in the order good, needs improvement, poor).
 */
export function ratingGroupsVisible(units: number, samples: number, groups: readonly number[], k: number): boolean[] {
  const atLeast = (x: number) => units - samples + x;
  const shown = groups.map((x) => x === 0 || atLeast(x) >= k);
  const hidden = groups.reduce((n, x, i) => n + (shown[i] ? 0 : x), 0);
  if (hidden > 0 && atLeast(hidden) < k) {
    let smallest = -1;
    groups.forEach((x, i) => {
      if (shown[i] && x > 0 && (smallest < 0 || x < groups[smallest]!)) smallest = i;
    });
    if (smallest >= 0) shown[smallest] = false;
  }
  return shown;
}

/**
 * SQL twin of ratingGroupsVisible over `source`, a relation with columns units, samples, good,
 * needs_improvement and poor: all its columns, and good_shown, needs_improvement_shown and
 * poor_shown (1 or 0). Parameter ?1: k.
 */
export function ratingGroupsSql(source: string): string {
  const groups = ["good", "needs_improvement", "poor"];
  const never = "9223372036854775807";
  return (
    `SELECT *, ${groups.map((g) => `(${g}_base AND NOT (needs_cover AND ${g}_key = cover_key)) AS ${g}_shown`).join(", ")} FROM (` +
    `SELECT *, min(${groups.map((g) => `${g}_key`).join(", ")}) AS cover_key, ` +
    `(hidden_samples > 0 AND units - samples + hidden_samples < ?1) AS needs_cover FROM (` +
    `SELECT *, ${groups.map((g, i) => `CASE WHEN ${g}_base AND ${g} > 0 THEN ${g} * 4 + ${i} ELSE ${never} END AS ${g}_key`).join(", ")}, ` +
    `(${groups.map((g) => `CASE WHEN ${g}_base THEN 0 ELSE ${g} END`).join(" + ")}) AS hidden_samples FROM (` +
    `SELECT *, ${groups.map((g) => `(${g} = 0 OR units - samples + ${g} >= ?1) AS ${g}_base`).join(", ")} FROM ${source})))`
  );
}

/** What a figure over several atoms is built from: the sum over visible atoms and the atom counts. */
export interface AtomTally {
  /** Sum of the figure over visible atoms. */
  sum: number;
  /** Visible atoms (with data) in the period. */
  visible: number;
  /** Hidden atoms with data in the period. */
  hidden: number;
}

export const EMPTY_TALLY: AtomTally = Object.freeze({ sum: 0, visible: 0, hidden: 0 });

export function addToTally(tally: AtomTally, value: number, visible: boolean, hasData = true): AtomTally {
  if (!hasData) return tally;
  return visible
    ? { sum: tally.sum + value, visible: tally.visible + 1, hidden: tally.hidden }
    : { ...tally, hidden: tally.hidden + 1 };
}

/**
 * An additive figure (pageviews, conversions, samples): the sum of visible atoms; suppressed
 * when every atom with data is hidden; estimated when some are (a lower bound); exact else.
 * No data at all is an exact 0.
 */
export function additiveFigure(t: AtomTally): Figure {
  if (t.visible === 0) return t.hidden > 0 ? SUPPRESSED : { value: 0, qualifier: "exact" };
  return { value: t.sum, qualifier: t.hidden > 0 ? "estimated" : "exact" };
}

/**
 * A distinct-unit figure (visitors, sessions): like additiveFigure, and estimated as soon as it
 * adds more than one day, because sessions are counted per salt period (a day) and a visitor
 * of two days is two sessions.
 */
export function distinctFigure(t: AtomTally): Figure {
  const f = additiveFigure(t);
  if (f.qualifier === "exact" && t.visible > 1) return { value: f.value, qualifier: "estimated" };
  return f;
}

/**
 * SQL: 1 when the page-day atom `p` (a rollup_page_day row, possibly absent) of the day `d`
 * (a page_days row) is visible, else 0. Shared by every query that needs page atoms.
 */
export function pageAtomVisibleSql(p: string, d: string): string {
  return (
    `(CASE WHEN ${p}.visitors >= ?1 AND (${d}.day_units - ${p}.visitors <= 0 OR ${d}.day_units - ${p}.visitors >= ?1) ` +
    `AND NOT (${d}.any_hidden AND NOT ${d}.covered AND ${p}.path = ${d}.smallest) ` +
    `AND NOT (${d}.pair_overlap_small AND ${p}.path = ${d}.smallest) THEN 1 ELSE 0 END)`
  );
}

/**
 * SQL over the rollups: every page-day atom of a site in a date range with its `visible`
 * flag, by the same rules as above (k units; complement against the site-day; the smallest
 * visible page of a day is hidden too when the hidden pages of that day hold no group of k
 * units, or when the day has exactly two pages whose overlap |A| + |B| − day is 1 to k − 1:
 * rule 7's "two children make up their parent" for the day itself, page goals or not). The page atoms partition the day's pageviews, which the timeseries shows.
 * Per day, the decisions are index seeks on rollup_page_day_by_size (atoms in size order);
 * page_days is materialised so they run once per day, not once per atom.
 * Parameters: ?1 k, ?2 site, ?3 from, ?4 to. Columns: day, path, visitors, pageviews, key_sum, visible.
 */
export const PAGE_ATOMS_SQL = `
  page_days AS MATERIALIZED (
    SELECT s.site_id AS site_id, s.day AS day, s.visitors AS day_units,
      -- the smallest page that passes on its own: the cover, if the day needs one
      (SELECT p.path FROM rollup_page_day p WHERE p.site_id = s.site_id AND p.day = s.day AND p.visitors >= ?1
        AND (s.visitors - p.visitors <= 0 OR s.visitors - p.visitors >= ?1) ORDER BY p.visitors, p.pageviews, p.path LIMIT 1) AS smallest,
      -- any page hidden on its own: fewer than k units, or a complement of 1 to k − 1
      ((SELECT min(p.visitors) FROM rollup_page_day p WHERE p.site_id = s.site_id AND p.day = s.day) < ?1
        OR EXISTS (SELECT 1 FROM rollup_page_day p WHERE p.site_id = s.site_id AND p.day = s.day AND p.visitors > s.visitors - ?1 AND p.visitors < s.visitors)) AS any_hidden,
      -- a hidden page of k units or more already covers the day's hidden remainder
      EXISTS (SELECT 1 FROM rollup_page_day p WHERE p.site_id = s.site_id AND p.day = s.day AND p.visitors >= ?1
        AND p.visitors > s.visitors - ?1 AND p.visitors < s.visitors) AS covered,
      -- two pages that may make up the day: their overlap |A| + |B| − day is a group too
      (SELECT count(*) = 2 AND sum(p.visitors) - s.visitors BETWEEN 1 AND ?1 - 1 FROM rollup_page_day p
        WHERE p.site_id = s.site_id AND p.day = s.day) AS pair_overlap_small
    FROM rollup_site_day s WHERE s.site_id = ?2 AND s.day >= ?3 AND s.day <= ?4
  ),
  page_atoms AS (
    SELECT p.day AS day, p.path AS path, p.visitors AS visitors, p.pageviews AS pageviews, p.key_sum AS key_sum, ${pageAtomVisibleSql("p", "d")} AS visible
    FROM page_days d CROSS JOIN rollup_page_day p ON p.site_id = d.site_id AND p.day = d.day
  )`;
