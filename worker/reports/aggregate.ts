/**
 * The aggregate report (GET /api/v1/aggregate, like Plausible's /api/v1/stats/aggregate): a
 * period's headline figures in one answer. Visitors and pageviews are the daily timeseries'
 * totals, read by the same code (never a second way to count them); the engagement figures
 * come from the site-days' engagement rows (engagement.ts), with the imported days' shown visits
 * and bounces added when the scope reads them (imported/cells.ts; not the median duration).
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import type { Figure } from "./figures";
import { engagementFigures, type EngagementFigures } from "./engagement";
import type { Filter } from "./explore/filters";
import { filteredUnits } from "./explore/units";
import { importedEngagement } from "./imported/cells";
import type { ReportScope } from "./scope";
import type { TimeseriesReport } from "./timeseries";

export interface AggregateResults extends Omit<EngagementFigures, "bounce_rate"> {
  visitors: Figure;
  pageviews: Figure;
  bounce_rate: Figure & { numerator: Figure & { name: "bounces" }; denominator: Figure & { name: "visits" } };
}

/**
 * The period's figures; `timeseries` is the daily timeseries of the same scope and filters (its
 * totals are reused). With filters, the engagement figures are those of the filtered session-days.
 */
export async function aggregateReport(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  timeseries: TimeseriesReport,
  filters: readonly Filter[] = [],
): Promise<AggregateResults> {
  if (!scope.noiseKey) throw new Error("the aggregate needs scope.noiseKey");
  const imported = scope.imported && filters.length === 0 ? await importedEngagement(db, scope) : undefined;
  const engagement = await engagementFigures(
    db,
    filters.length > 0
      ? { sessionDays: filteredUnits(scope, filters) }
      : { site: { siteId: scope.siteId, from: scope.from, to: scope.to } },
    { k: scope.k, noiseKey: scope.noiseKey, imported },
  );
  return {
    visitors: timeseries.totals.visitors,
    pageviews: timeseries.totals.pageviews,
    ...engagement,
    bounce_rate: {
      ...engagement.bounce_rate,
      numerator: { name: "bounces", ...engagement.bounces },
      denominator: { name: "visits", ...engagement.visits },
    },
  };
}
