/**
 * Page goals (rule "page goals" in index.ts; docs/reports.md, rule 7): a page goal's day is a
 * union of page-days, so beside the pages report and other goals the shown unions must stay a
 * laminar family with safe differences along each nesting and safe overlaps of two children
 * that make up their parent; time and scroll goals refine those unions by engagement.
 */
import { differenceSafe } from "./nesting";

/**
 * How many shown path goals (page, time and scroll goals together) may read one hidden page-day
 * on one day. Every goal over a hidden page is one more reading of its sessions beside another
 * set of sessions, and a key with `write:goals` can pad each with sybils of its own: readings
 * with independent noise average it away (docs/reports.md, "How many readings"). Two keeps the
 * usual `/blog*` inside `/b*` or `*` and bounds what goals add.
 */
export const READINGS_PER_HIDDEN_PAGE = 2;

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
 * - it does not read a page-day the pages report hides more often than READINGS_PER_HIDDEN_PAGE
 *   shown goals of the day already do (time and scroll goals count too).
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
  // Shown goals per hidden page-day so far: a goal that would be one reading too many is hidden.
  const readings = new Map<string, number>();
  const hiddenPaths = (goal: PathGoalDay) => [...goal.paths].filter((p) => !pages.get(p)?.visible);
  const withinReadings = (goal: PathGoalDay) => hiddenPaths(goal).every((p) => (readings.get(p) ?? 0) < READINGS_PER_HIDDEN_PAGE);
  const countReadings = (goal: PathGoalDay) => {
    for (const p of hiddenPaths(goal)) readings.set(p, (readings.get(p) ?? 0) + 1);
  };
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
    if (ok && !withinReadings(goal)) ok = false;
    if (ok) {
      nodes.push(node);
      countReadings(goal);
    } else visible[i] = false;
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
    if (ok && !withinReadings(goal)) ok = false;
    if (ok) {
      shownRefinements.push(i);
      countReadings(goal);
    } else visible[i] = false;
  });
  return visible;
}
