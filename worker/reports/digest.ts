/**
 * A digest's figures (issue 40): a period's visitors, pageviews, top 5 pages, top 5 sources and
 * each goal's conversions, beside the period before. Every figure is the one the API answers
 * for the same site and from..to — the same report functions on the same scope (timeseries
 * totals as /aggregate, pagesReport as /pages, breakdownReport as /breakdown?dimension=source,
 * conversionsReport as /conversions), the top rows in the API's default order (visitors, most
 * first, suppressed last) — so a digest says nothing a `read:reports` key cannot read.
 *
 * A row is `hidden` when its label may not be shown beside a figure: the `other` row (values
 * hidden over the whole period) and any row whose visitors are suppressed. A hidden row carries
 * no label at all. A delta is computed from the two qualified figures and only when both are
 * shown (reports/figures.ts difference); otherwise it is null ("—").
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { breakdownReport, type BreakdownRow } from "./breakdown";
import { conversionsReport } from "./conversions";
import { difference, type Figure } from "./figures";
import { OTHER_KEY } from "./hidden-rows";
import { figureValue, paginate } from "./list";
import { NOISE_KEY_SQL, noiseKeyOf } from "./noise-position";
import { pagesReport, type PageRow } from "./pages";
import { lastCompleteDay } from "./period";
import { legacyDays, PUBLICATION_SQL, publicationOf } from "./publication";
import { effectiveZone } from "./rollup";
import type { ReportScope } from "./scope";
import { timeseriesReport } from "./timeseries";

export const DIGEST_TOP = 5;

export interface Compared {
  current: Figure;
  previous: Figure;
  /** current − previous when both are shown, else null. */
  delta: Figure | null;
}

export interface DigestRow {
  /** The page path or source; null when hidden (and for visitors without a source: `direct`). */
  label: string | null;
  hidden: boolean;
  /** Sources only: the row of visitors without a source. */
  direct?: boolean;
  visitors: Compared;
}

export interface DigestFigures {
  site: { id: string; name: string; timezone: string };
  k: number;
  period: { from: string; to: string };
  previous: { from: string; to: string };
  visitors: Compared;
  pageviews: Compared;
  pages: DigestRow[];
  sources: DigestRow[];
  goals: { id: string; name: string; conversions: Compared }[];
}

/** What every digest of a site reads first: its name and zone, the publication and the noise key. */
export interface DigestSite {
  id: string;
  name: string;
  timeZone: string;
  /** The last published local day: a period is composed only once its last day is published. */
  publishedThrough: string;
  scope(from: string, to: string): ReportScope;
}

/** The site's reading context, or null when the site is gone or nothing is published yet. */
export async function digestSite(db: ReadOnlyDatabase, siteId: string, k: number): Promise<DigestSite | null> {
  const [siteRows, publicationRows, keyRows] = await db.queryAll([
    { sql: "SELECT name, timezone FROM sites WHERE id = ?", args: [siteId] },
    PUBLICATION_SQL,
    NOISE_KEY_SQL,
  ]);
  const site = siteRows!.rows[0];
  const publication = publicationOf(publicationRows!);
  if (!site || !publication) return null;
  const zone = effectiveZone(String(site.timezone));
  const noiseKey = noiseKeyOf(keyRows!.rows[0]);
  const legacy = legacyDays(publication, zone);
  return {
    id: siteId,
    name: String(site.name),
    timeZone: zone,
    publishedThrough: lastCompleteDay(zone, publication.throughMs),
    // The scope prepareReport makes for from..to (reports/request.ts): noise on, the same key.
    scope: (from, to) => ({ siteId, from, to, timeZone: zone, k, noise: true, noiseKey, legacyDays: legacy }),
  };
}

interface PeriodFigures {
  visitors: Figure;
  pageviews: Figure;
  pages: PageRow[];
  sources: BreakdownRow[];
  goals: { id: string; name: string; conversions: Figure }[];
}

async function periodFigures(db: ReadOnlyDatabase, scope: ReportScope): Promise<PeriodFigures> {
  const [timeseries, pages, sources, conversions] = await Promise.all([
    timeseriesReport(db, scope, "day"),
    pagesReport(db, scope),
    breakdownReport(db, scope, "source"),
    conversionsReport(db, scope),
  ]);
  return {
    visitors: timeseries.totals.visitors,
    pageviews: timeseries.totals.pageviews,
    pages: pages.rows,
    sources: sources.rows,
    goals: conversions.rows.map((r) => ({ id: r.goal.id, name: r.goal.name, conversions: r.conversions })),
  };
}

const SUPPRESSED: Figure = { value: null, qualifier: "suppressed" };

export function compared(current: Figure, previous: Figure): Compared {
  return { current, previous, delta: current.value === null || previous.value === null ? null : difference(current, previous) };
}

/** The top rows in the API's default order (reports/reply.ts sortedPage: visitors, descending). */
function top<R extends { visitors: Figure }>(rows: R[], key: (row: R) => string): R[] {
  return paginate(rows, (r) => figureValue(r.visitors), key, "desc", DIGEST_TOP).rows;
}

/**
 * A top row: hidden (no label, no previous figure, no delta) when it is the `other` row or its
 * visitors are suppressed; else its label and visitors against the earlier period's row.
 */
export function digestRow(
  label: string | null,
  other: boolean,
  visitors: Figure,
  earlier: Figure | undefined,
  source: boolean,
): DigestRow {
  const hidden = other || visitors.value === null;
  return {
    label: hidden ? null : label,
    hidden,
    ...(source ? { direct: !hidden && label === null } : {}),
    visitors: compared(visitors, hidden ? SUPPRESSED : (earlier ?? SUPPRESSED)),
  };
}

export async function composeDigest(
  db: ReadOnlyDatabase,
  site: DigestSite,
  period: { from: string; to: string },
  previous: { from: string; to: string },
): Promise<DigestFigures> {
  const scope = site.scope(period.from, period.to);
  const [now, before] = await Promise.all([periodFigures(db, scope), periodFigures(db, site.scope(previous.from, previous.to))]);
  const pageKey = (r: PageRow) => r.path ?? OTHER_KEY;
  const sourceKey = (r: BreakdownRow) => (r.other ? OTHER_KEY : (r.value ?? ""));
  const earlierPage = new Map(before.pages.filter((r) => !r.other && r.path !== null).map((r) => [r.path!, r.visitors]));
  const earlierSource = new Map(before.sources.filter((r) => !r.other).map((r) => [sourceKey(r), r.visitors]));
  const earlierGoal = new Map(before.goals.map((g) => [g.id, g.conversions]));
  return {
    site: { id: site.id, name: site.name, timezone: site.timeZone },
    k: scope.k,
    period,
    previous,
    visitors: compared(now.visitors, before.visitors),
    pageviews: compared(now.pageviews, before.pageviews),
    pages: top(now.pages, pageKey).map((r) =>
      digestRow(r.path, r.other, r.visitors, r.path === null ? undefined : earlierPage.get(r.path), false),
    ),
    sources: top(now.sources, sourceKey).map((r) =>
      digestRow(r.value, r.other, r.visitors, earlierSource.get(sourceKey(r)), true),
    ),
    goals: now.goals.map((g) => ({
      id: g.id,
      name: g.name,
      conversions: compared(g.conversions, earlierGoal.get(g.id) ?? SUPPRESSED),
    })),
  };
}
