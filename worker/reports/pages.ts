/**
 * The pages report: per path, visitors and pageviews over the period, from the page-day atoms
 * that the privacy filter leaves visible (evaluated in SQL, over every page of each day, before
 * the page filter picks rows), with the total of the visible rows.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { perturbedFigure, SUPPRESSED, type Figure } from "./figures";
import { importedCells } from "./imported/cells";
import { mergeRows, plusImportedTotal } from "./imported/merge";
import { shownEventsSql, shownUnitsSql } from "./noise";
import { pathFilter } from "./pattern";
import { additiveFigure, distinctFigure, PAGE_ATOMS_SQL, type AtomTally } from "./privacy";
import type { ReportScope } from "./scope";

export interface PageRow {
  /** The path; null in the `other` row. */
  path: string | null;
  /** The one row standing for every path hidden over the period (hidden-rows.ts): no label, no count. */
  other: boolean;
  visitors: Figure;
  pageviews: Figure;
}

export interface PagesReport {
  rows: PageRow[];
  totals: { pageviews: Figure };
}

/**
 * The report's SQL: sums of the visible atoms' figures, perturbed and post-processed
 * (noise.ts shownCounts: every visitor of a page-day has a pageview there) or exact.
 */
function pagesSql(noise: boolean): string {
  const shown = (column: "visitors" | "pageviews") =>
    !noise ? column : column === "visitors" ? shownUnitsSql("visitors", "key_sum", "?1") : shownEventsSql("pageviews", "visitors", "key_sum", "?1");
  return `WITH ${PAGE_ATOMS_SQL}
  SELECT path,
    sum(CASE WHEN visible = 1 THEN ${shown("visitors")} ELSE 0 END) AS visitors,
    sum(CASE WHEN visible = 1 THEN ${shown("pageviews")} ELSE 0 END) AS pageviews,
    sum(visible) AS visible_days,
    count(*) - sum(visible) AS hidden_days
  FROM page_atoms GROUP BY path`;
}

const PAGES_SQL = { exact: pagesSql(false), perturbed: pagesSql(true) };

export async function pagesReport(db: ReadOnlyDatabase, scope: ReportScope, page?: string): Promise<PagesReport> {
  const keep = page === undefined ? () => true : pathFilter(page);
  const [collected, imported] = await Promise.all([
    collectedPages(db, scope, keep),
    scope.imported ? importedCells(db, scope, scope.imported, "page") : undefined,
  ]);
  if (!imported || imported.size === 0) return collected;
  const merged = mergeRows(
    collected.rows,
    imported,
    (r) => r.path,
    keep,
    (path, visitors, pageviews) => ({ path, other: false, visitors, pageviews }),
    () => ({ path: null, other: true, visitors: SUPPRESSED, pageviews: SUPPRESSED }),
  );
  return {
    rows: merged.rows,
    totals: { pageviews: plusImportedTotal(collected.totals.pageviews, merged.added.pageviews, merged.added.rows > 0) },
  };
}

async function collectedPages(db: ReadOnlyDatabase, scope: ReportScope, keep: (path: string) => boolean): Promise<PagesReport> {
  const rs = await db.query({ sql: scope.noise ? PAGES_SQL.perturbed : PAGES_SQL.exact, args: [scope.k, scope.siteId, scope.from, scope.to] });
  const rows: PageRow[] = [];
  const total: AtomTally = { sum: 0, visible: 0, hidden: 0 };
  let anyHidden = false;
  for (const r of rs.rows) {
    const path = String(r.path);
    const visible = Number(r.visible_days);
    const hidden = Number(r.hidden_days);
    // A path hidden on every day of the period is never listed, and never matched by the
    // filter: whether one exists must not depend on the pattern asked (hidden-rows.ts).
    if (visible === 0) {
      anyHidden = true;
      continue;
    }
    if (!keep(path)) continue;
    const pageviews: AtomTally = { sum: Number(r.pageviews), visible, hidden };
    rows.push({
      path,
      other: false,
      visitors: perturbedFigure(distinctFigure({ sum: Number(r.visitors), visible, hidden }), scope.noise),
      pageviews: perturbedFigure(additiveFigure(pageviews), scope.noise),
    });
    total.sum += pageviews.sum;
    total.visible += visible;
    total.hidden += hidden;
  }
  if (anyHidden) {
    rows.push({ path: null, other: true, visitors: SUPPRESSED, pageviews: SUPPRESSED });
    // The hidden paths' pageviews are missing from the total whichever rows the filter picked.
    total.hidden += 1;
  }
  return { rows, totals: { pageviews: perturbedFigure(additiveFigure(total), scope.noise) } };
}
