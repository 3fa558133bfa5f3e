/**
 * Pair cells of dimensions that may nest (docs/reports.md rule 9, "Nested dimensions"): for each
 * pair (parent, child) of DIMENSION_PAIRS and each site-day, the session-days with each
 * (parent value, child value). A child value whose units all sit in one pair cell is nested in
 * that parent value that day (every macOS session is desktop), and the breakdowns then decide
 * the two together (privacy/nested-dimensions.ts). Both values are entry dimensions, fixed by
 * the session-day's first pageview, so a session-day joins its cells once, in the fold that first
 * sees it (dimension-fold.ts, same transaction, while the day is unpublished), and never moves.
 */
import type { InStatement } from "@libsql/client/web";
import type { Dimension } from "./dimensions";

/**
 * Groups of dimensions where nesting is plausible, by construction or by how sites tag links:
 * the device follows from the system for most systems (Windows, Linux, macOS → desktop; iOS →
 * mobile), a browser version often runs on one system (Safari 18 on macOS, Edge on Windows) and
 * so on one device; a known source holds its campaign tags (Google → utm_source google), and a
 * campaign its medium, content and terms. Nesting passes along a chain (Firefox on Linux only is
 * desktop only), so every two dimensions of a group are a pair, not just the neighbours.
 */
export const NESTING_GROUPS: readonly (readonly Dimension[])[] = [
  ["device", "os", "browser"],
  ["source", "utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"],
];

/** Every two dimensions of a group, the broader one first: 3 + 15 pairs. */
export const DIMENSION_PAIRS: readonly (readonly [Dimension, Dimension])[] = NESTING_GROUPS.flatMap((group) =>
  group.flatMap((parent, i) => group.slice(i + 1).map((child) => [parent, child] as const)),
);

/**
 * The dimensions decided together with `dimension`: its group, broadest first. The rule runs
 * over them in this fixed order whichever dimension was asked (so the decisions do not depend
 * on it), and broadest first, so a leak is closed by hiding a child rather than its parent.
 */
export function nestingGroup(dimension: Dimension): readonly Dimension[] {
  return NESTING_GROUPS.find((group) => group.includes(dimension)) ?? [dimension];
}

type WithRaw = (sql: string) => InStatement;

/**
 * One row per session-day of rollup_session_day (alias s) selected by `where`, and pair of
 * `group`, with its two values; only session-days with two values in the group (most visits
 * carry no campaign tags: they make no row of that group).
 */
function expandedPairs(group: readonly Dimension[], where: string): string {
  const groupPairs = DIMENSION_PAIRS.filter(([a]) => group.includes(a));
  const pairs = groupPairs.map(([a, b]) => `SELECT '${a}' AS parent, '${b}' AS child`).join(" UNION ALL ");
  const value = (side: "parent" | "child") => `CASE p.${side} ${group.map((d) => `WHEN '${d}' THEN s.${d}`).join(" ")} END`;
  const twoValues = `${group.map((d) => `(s.${d} IS NOT NULL)`).join(" + ")} >= 2`;
  return (
    `SELECT s.site_id AS site_id, s.day AS day, p.parent AS parent_dimension, ${value("parent")} AS parent_value, ` +
    `p.child AS child_dimension, ${value("child")} AS child_value ` +
    `FROM (SELECT * FROM rollup_session_day s WHERE ${where} AND ${twoValues}) AS s CROSS JOIN (${pairs}) AS p`
  );
}

/**
 * Adds the session-days of the fold (`touched`, on alias s) to the pair cells, once: every value
 * of a pair is an entry dimension, fixed by the session-day's first pageview, so a session-day
 * already counted (in the fold's scratch copy with a first pageview) stays where it is. Values
 * that are null join no cell. Runs after the session-days are upserted; one statement per group.
 */
export function addPairs(withRaw: WithRaw, touched: string, scratch: string): InStatement[] {
  const counted = `(s.site_id, s.day, s.unit) IN (SELECT site_id, day, unit FROM ${scratch} WHERE first_pageview_id IS NOT NULL)`;
  return NESTING_GROUPS.map((group) =>
    withRaw(
      `, e AS (${expandedPairs(group, `${touched} AND NOT ${counted}`)}) ` +
        "INSERT INTO rollup_dimension_pair_day (site_id, day, parent_dimension, parent_value, child_dimension, child_value, units) " +
        "SELECT site_id, day, parent_dimension, parent_value, child_dimension, child_value, count(*) FROM e " +
        "WHERE parent_value IS NOT NULL AND child_value IS NOT NULL GROUP BY site_id, day, parent_dimension, parent_value, child_dimension, child_value " +
        "ON CONFLICT (site_id, parent_dimension, child_dimension, day, parent_value, child_value) DO UPDATE SET units = rollup_dimension_pair_day.units + excluded.units",
    ),
  );
}
