/**
 * The page-day atoms in SQL: every query that needs page atoms (pages, vitals, sessions list,
 * page goals) decides them here, by the atom, nested-cell and partition rules of index.ts plus
 * the day as the parent of two pages (page goals' "two children make up their parent").
 */
import { hourComplementUnsafeSql, OPEN_RULE, SITE_HOURS_SQL } from "./hours";

/**
 * SQL: the page-day `p` passes on its own in its day `d` (a page_days or day_viewers row): k
 * units, and a complement of 0 or at least k against the day and against the day's sessions
 * with a pageview (a breakdown's rest shows who had none, so that count is readable too).
 */
function passesAloneSql(p: string, d: string): string {
  const complement = (whole: string) => `(${d}.${whole} - ${p}.visitors <= 0 OR ${d}.${whole} - ${p}.visitors >= ?1)`;
  return `${p}.visitors >= ?1 AND ${complement("day_units")} AND ${complement("viewers")}`;
}

/** SQL: the page-day `p` is hidden for a complement of 1 to k − 1 against the day or its sessions with a pageview. */
function smallComplementSql(p: string, d: string): string {
  const small = (whole: string) => `(${p}.visitors > ${d}.${whole} - ?1 AND ${p}.visitors < ${d}.${whole})`;
  return `(${small("day_units")} OR ${small("viewers")})`;
}

/**
 * SQL: 1 when the page-day atom `p` (a rollup_page_day row, possibly absent) of the day `d`
 * (a page_days row) is visible, else 0. Shared by every query that needs page atoms.
 */
export function pageAtomVisibleSql(p: string, d: string): string {
  return (
    `(CASE WHEN ${passesAloneSql(p, d)} ` +
    `AND NOT ((${d}.any_hidden OR ${d}.hours_uncovered) AND NOT (${d}.covered OR ${d}.reach >= ?1) AND ${p}.path = ${d}.smallest) ` +
    `AND NOT (${d}.pair_overlap_small AND ${p}.path = ${d}.smallest) THEN 1 ELSE 0 END)`
  );
}

/**
 * SQL: a lower bound on the sessions of the day `u` with a pageview on a page hidden on its own:
 * those whose entry (exit) page is one. The entry (exit) cells split the day's sessions with a
 * pageview, so the bound is all of them (`viewers`, for entries) minus those of the pages that
 * pass on their own; only shown labels are joined, and a day without dimension cells (folded
 * before them) gets 0, so the cover stays.
 */
function hiddenReachSql(dimension: "entry_page" | "exit_page"): string {
  return (
    `((SELECT coalesce(sum(c.visitors), 0) FROM rollup_dimension_day c WHERE c.site_id = u.site_id AND c.dimension = '${dimension}' AND c.day = u.day) ` +
    `- (SELECT coalesce(sum(c.visitors), 0) FROM rollup_page_day p ` +
    `JOIN rollup_dimension_day c ON c.site_id = p.site_id AND c.dimension = '${dimension}' AND c.day = p.day AND c.value = p.path ` +
    `WHERE p.site_id = u.site_id AND p.day = u.day AND ${passesAloneSql("p", "u")}))`
  );
}

/**
 * SQL over the rollups: every page-day atom of a site in a date range with its `visible`
 * flag, by the rules above (k units; complements against the site-day and its sessions with a
 * pageview; the smallest visible page of a day is hidden too when the hidden pages of that day
 * are not shown to hold k units (and some page is hidden, or the day hides for its small hours:
 * its pageviews must then not follow from its pages either) — by one hidden page of k, or by k sessions that entered or left
 * on hidden pages — or when the day has exactly two pages whose overlap |A| + |B| − the sessions
 * with a pageview (or − the day) is 1 to k − 1: rule 7's "two children make up their parent" for
 * the day itself, page goals or not). The page atoms partition the day's pageviews, which the
 * timeseries shows. Per day, the decisions are index seeks on rollup_page_day_by_size (atoms in
 * size order); day_viewers and page_days are materialised so they run once per day, not once
 * per atom. Parameters: ?1 k, ?2 site, ?3 from, ?4 to. Columns: day, path, visitors, pageviews,
 * key_sum, visible.
 */
export const PAGE_ATOMS_SQL = `
  day_viewers AS MATERIALIZED (
    -- the day's sessions with a pageview: each has one entry page (0 before dimension cells)
    SELECT s.site_id AS site_id, s.day AS day, s.visitors AS day_units,
      (SELECT coalesce(sum(c.visitors), 0) FROM rollup_dimension_day c WHERE c.site_id = s.site_id AND c.dimension = 'entry_page' AND c.day = s.day) AS viewers,
      -- the day hides beside its hours (hours.ts): its pages must not add up to it
      (s.hour_rule = ${OPEN_RULE} AND ${hourComplementUnsafeSql(SITE_HOURS_SQL, "s", "visitors")}) AS hours_uncovered
    FROM rollup_site_day s WHERE s.site_id = ?2 AND s.day >= ?3 AND s.day <= ?4
  ),
  page_days AS MATERIALIZED (
    SELECT u.site_id AS site_id, u.day AS day, u.day_units AS day_units, u.viewers AS viewers, u.hours_uncovered AS hours_uncovered,
      -- the smallest page that passes on its own: the cover, if the day needs one
      (SELECT p.path FROM rollup_page_day p WHERE p.site_id = u.site_id AND p.day = u.day AND ${passesAloneSql("p", "u")}
        ORDER BY p.visitors, p.pageviews, p.path LIMIT 1) AS smallest,
      -- any page hidden on its own: fewer than k units, or a complement of 1 to k − 1
      ((SELECT min(p.visitors) FROM rollup_page_day p WHERE p.site_id = u.site_id AND p.day = u.day) < ?1
        OR EXISTS (SELECT 1 FROM rollup_page_day p WHERE p.site_id = u.site_id AND p.day = u.day AND ${smallComplementSql("p", "u")})) AS any_hidden,
      -- the day's hidden remainder already holds k units: a hidden page of k units or more, or
      -- k sessions that entered (or left) on pages hidden on their own (reach)
      EXISTS (SELECT 1 FROM rollup_page_day p WHERE p.site_id = u.site_id AND p.day = u.day AND p.visitors >= ?1
        AND ${smallComplementSql("p", "u")}) AS covered,
      max(${hiddenReachSql("entry_page")}, ${hiddenReachSql("exit_page")}) AS reach,
      -- two pages that may make up the day: their overlap is a group too, |A| + |B| minus the
      -- sessions with a pageview, or minus the day, for a reader who knows every session viewed a page
      (SELECT count(*) = 2 AND (sum(p.visitors) - u.day_units BETWEEN 1 AND ?1 - 1 OR sum(p.visitors) - u.viewers BETWEEN 1 AND ?1 - 1)
        FROM rollup_page_day p WHERE p.site_id = u.site_id AND p.day = u.day) AS pair_overlap_small
    FROM day_viewers u
  ),
  page_atoms AS (
    SELECT p.day AS day, p.path AS path, p.visitors AS visitors, p.pageviews AS pageviews, p.key_sum AS key_sum, ${pageAtomVisibleSql("p", "d")} AS visible
    FROM page_days d CROSS JOIN rollup_page_day p ON p.site_id = d.site_id AND p.day = d.day
  )`;
