/**
 * Why a big cell is hidden: for every page-day and breakdown value-day of at least 2k units that
 * the rules hide, the rule and the small group it protects (docs/reports.md, "Utility"). Read
 * from the same SQL flags and decided cells the reports use, for tests and debugging; no report
 * shows it. A cell of 2k is never small itself, so some rule hides it for another group's sake:
 * - complement (rule 3): the day minus the cell is 1 to k − 1 sessions;
 * - two pages make up the day (rule 7 for the day): their overlap is 1 to k − 1 sessions;
 * - cover (rules 4 and 9): the day's total minus the shown cells would be the figure of the
 *   sessions in the hidden cells, which the rule cannot show to be k (pages: only a lower bound
 *   on them is known; breakdowns: they are fewer than k, or a cell hidden for its complement
 *   would make up the rest);
 * - entry or exit complement (rule 9): its page-day minus the cell is 1 to k − 1 sessions.
 */
import type { ReadOnlyDatabase } from "../../lib/read-only";
import type { ReportScope } from "../scope";
import { PAGE_ATOMS_SQL } from "./page-atoms";

export type HidingRule = "complement" | "two-pages" | "cover" | "entry-exit-complement";

export interface HiddenCell {
  day: string;
  /** A page path, or `dimension:value` (value `null` for the rest). */
  cell: string;
  units: number;
  rule: HidingRule;
  /** The small group protected: its size, or for a cover the bounds the rule knows of it. */
  group: { what: string; units?: number; atLeast?: number; atMost?: number };
  /** One line: "hides /blog (6) because …". */
  because: string;
}

const EXPLAIN_PAGES_SQL = `WITH ${PAGE_ATOMS_SQL}
  SELECT a.day AS day, a.path AS path, a.visitors AS visitors, d.day_units AS day_units, d.smallest AS smallest,
    d.any_hidden AS any_hidden, d.covered AS covered, d.pair_overlap_small AS pair_small, d.reach AS reach, d.viewers AS viewers,
    (SELECT sum(visitors) FROM page_atoms o WHERE o.day = a.day) AS page_units,
    (SELECT sum(visitors) FROM page_atoms o WHERE o.day = a.day AND o.visible = 0 AND o.path != a.path) AS hidden_units,
    (SELECT max(visitors) FROM page_atoms o WHERE o.day = a.day AND o.visible = 0 AND o.path != a.path) AS hidden_max,
    (SELECT group_concat(path, ', ') FROM page_atoms o WHERE o.day = a.day AND o.visible = 0 AND o.path != a.path) AS hidden_paths
  FROM page_atoms a JOIN page_days d ON d.day = a.day WHERE a.visible = 0 AND a.visitors >= 2 * ?1 ORDER BY a.day, a.path`;

/** Every hidden page-day of at least 2k units in the scope, with the group it protects. */
export async function explainHiddenPages(db: ReadOnlyDatabase, scope: ReportScope): Promise<HiddenCell[]> {
  const k = scope.k;
  const rs = await db.query({ sql: EXPLAIN_PAGES_SQL, args: [k, scope.siteId, scope.from, scope.to] });
  return rs.rows.map((r) => {
    const [day, path, units, dayUnits] = [String(r.day), String(r.path), Number(r.visitors), Number(r.day_units)];
    const head = { day, cell: path, units };
    const viewers = Number(r.viewers);
    for (const [whole, of] of [
      [dayUnits, "the day"],
      [viewers, "the sessions with a pageview"],
    ] as const) {
      const rest = whole - units;
      if (rest > 0 && rest < k)
        return {
          ...head,
          rule: "complement",
          group: { what: `${of} that did not view ${path}`, units: rest },
          because: `hides ${path} (${units}) because ${of} (${whole}) − ${path} = the ${rest} session(s) that did not view it`,
        };
    }
    if (Number(r.pair_small) === 1 && r.smallest === path) {
      // Minus the sessions with a pageview when that is the small group, else minus the day.
      const exact = Number(r.page_units) - viewers > 0 && Number(r.page_units) - viewers < k;
      const [whole, of] = exact ? [viewers, "the sessions with a pageview"] : [dayUnits, "the day's"];
      const overlap = Number(r.page_units) - whole;
      return {
        ...head,
        rule: "two-pages",
        group: { what: "the sessions that viewed both pages", units: overlap },
        because: `hides ${path} (${units}) because the day's pageviews are on two pages: their visitors − ${of} (${whole}) = the ${overlap} session(s) that viewed both`,
      };
    }
    // The cover: the day's pageviews − the shown pages' = the hidden pages' pageviews, from at
    // least max(biggest hidden page, entries on hidden pages, exits) and at most their sum of sessions.
    const atLeast = Math.max(Number(r.hidden_max ?? 0), Number(r.reach ?? 0));
    const atMost = Number(r.hidden_units ?? 0);
    return {
      ...head,
      rule: "cover",
      group: { what: `the sessions with a pageview on ${r.hidden_paths}`, atLeast, atMost },
      because: `hides ${path} (${units}) because the day's pageviews − the shown pages' would be the pageviews of the sessions on ${r.hidden_paths}: ${atLeast} to ${atMost} sessions, not shown to be ${k}`,
    };
  });
}
