/**
 * The engagement figures (docs/reports.md, "Engagement"): visits, bounces, bounce rate, views per
 * visit and the median visit duration, for any set of session-days — the site's over a period,
 * or the filter engine's cut of them (reports/explore). A visit is a session-day
 * (rollup_session_day: a unit's pageviews on one local day); a bounce is a visit of one
 * pageview; its duration is the time from its first pageview to its last.
 *
 * Every figure goes through Rule F (privacy/filtered.ts), the cell key method over the unit set:
 * visits and bounces are two cells (their units' key sums), pageviews ride on the visits' cell
 * (every visit has one), and the rate shows its denominator. The median is shown as vitals' p75
 * is (histogram.ts durationMedian): a range of fixed grid blocks holding k visits' durations,
 * and a value only when its own bucket does; nothing where the visits are hidden (their hidden
 * cell must not be confirmed to hold k by a shown range).
 *
 * The site's own figures are read from its site-days' engagement rows and duration histograms
 * (rollup_engagement_day, rollup_duration_histogram), which the fold keeps in step with the
 * session-days (engagement-fold.ts) and retention keeps when it deletes them (retention.ts).
 * Sums of per-day cells are the cell of the union of their session-days (counts and key sums
 * add), so they read exactly as the session-days would, before and after retention.
 */
import type { InStatement, InValue } from "@libsql/client/web";
import type { ReadOnlyDatabase } from "../lib/read-only";
import { estimated, ratio, round, SUPPRESSED, type Figure } from "./figures";
import { DURATION_SECONDS } from "./engagement-fold";
import { durationBucketSql, durationMedian } from "./histogram";
import type { NoiseKey } from "./noise-position";
import { filteredRule, type FilteredRule } from "./privacy/filtered";
import type { ImportedEngagement } from "./imported/cells";

/** Session-days as an SQL subquery selecting at least day, unit, pageviews, first_ts, last_ts, unit_key. */
export interface SessionDays {
  sql: string;
  args: InValue[];
}

export interface EngagementFigures {
  visits: Figure;
  bounces: Figure;
  /** bounces / visits, with both beside it (as the Overview shows its rates). */
  bounce_rate: Figure;
  views_per_visit: Figure;
  /** Median seconds from a visit's first pageview to its last. */
  visit_duration: Figure;
  visit_duration_low: Figure;
  visit_duration_high: Figure;
}

/** A site's local days from..to (inclusive). */
export interface SiteDays {
  siteId: string;
  from: string;
  to: string;
}

export interface EngagementOptions {
  k: number;
  noiseKey: NoiseKey;
  /** Rule F as served; the property test takes it out (exactFiltered). */
  rule?: FilteredRule;
  /**
   * The imported days' shown visits and bounces (imported/cells.ts), added to the collected
   * figures; the median duration stays the collected visits' (exports give no visit's duration).
   */
  imported?: ImportedEngagement;
}

/** The site's session-days over local days from..to (inclusive). */
export function siteSessionDays(siteId: string, from: string, to: string): SessionDays {
  return {
    sql: "SELECT day, unit, pageviews, first_ts, last_ts, unit_key FROM rollup_session_day WHERE site_id = ? AND day >= ? AND day <= ?",
    args: [siteId, from, to],
  };
}

/**
 * What the figures are computed over: a set of session-days (the filter engine's cut; read row by
 * row), or the site's own days (read from the site-days' engagement rows and histograms, which
 * the fold keeps and retention keeps: one row and a few dozen buckets a day).
 */
export type EngagementSource = { sessionDays: SessionDays } | { site: SiteDays };

export async function engagementFigures(
  db: ReadOnlyDatabase,
  source: EngagementSource,
  options: EngagementOptions,
): Promise<EngagementFigures> {
  let statements: InStatement[];
  if ("site" in source) {
    const args = [source.site.siteId, source.site.from, source.site.to];
    statements = [
      {
        sql:
          "SELECT -1 AS bucket, sum(visits) AS visits, sum(visits_key_sum) AS visits_key_sum, sum(pageviews) AS pageviews, " +
          "sum(bounces) AS bounces, sum(bounce_key_sum) AS bounce_key_sum FROM rollup_engagement_day WHERE site_id = ? AND day >= ? AND day <= ?",
        args,
      },
      {
        sql: "SELECT bucket, sum(units) AS units FROM rollup_duration_histogram WHERE site_id = ? AND day >= ? AND day <= ? GROUP BY bucket",
        args,
      },
    ];
  } else {
    const days = source.sessionDays;
    // One scan: the sums per duration bucket (-1: no known span), added up below.
    statements = [
      {
        sql:
          "SELECT bucket, count(*) AS visits, sum(unit_key) AS visits_key_sum, sum(pageviews) AS pageviews, " +
          "sum(pageviews = 1) AS bounces, sum(CASE WHEN pageviews = 1 THEN unit_key ELSE 0 END) AS bounce_key_sum, count(*) AS units " +
          `FROM (SELECT unit_key, pageviews, CASE WHEN first_ts IS NULL THEN -1 ELSE ${durationBucketSql(DURATION_SECONDS)} END AS bucket FROM (${days.sql})) GROUP BY bucket`,
        args: days.args,
      },
    ];
  }
  const results = await db.queryAll(statements);
  const totals = { visits: 0, visitsKeySum: 0, pageviews: 0, bounces: 0, bounceKeySum: 0 };
  const histogram = new Map<number, number>();
  for (const rs of results) {
    for (const r of rs.rows) {
      totals.visits += Number(r.visits ?? 0);
      totals.visitsKeySum += Number(r.visits_key_sum ?? 0);
      totals.pageviews += Number(r.pageviews ?? 0);
      totals.bounces += Number(r.bounces ?? 0);
      totals.bounceKeySum += Number(r.bounce_key_sum ?? 0);
      const bucket = Number(r.bucket);
      const units = Number(r.units ?? 0);
      if (bucket >= 0 && units > 0) histogram.set(bucket, (histogram.get(bucket) ?? 0) + units);
    }
  }
  return engagementOf(totals, histogram, options);
}

/** The figures from the cells' true counts, key sums and the duration histogram. */
export function engagementOf(
  totals: { visits: number; visitsKeySum: number; pageviews: number; bounces: number; bounceKeySum: number },
  histogram: Map<number, number>,
  { k, noiseKey, rule = filteredRule, imported }: EngagementOptions,
): EngagementFigures {
  const none: EngagementFigures = {
    visits: SUPPRESSED,
    bounces: SUPPRESSED,
    bounce_rate: SUPPRESSED,
    views_per_visit: SUPPRESSED,
    visit_duration: SUPPRESSED,
    visit_duration_low: SUPPRESSED,
    visit_duration_high: SUPPRESSED,
  };
  const zero: Figure = { value: 0, qualifier: "exact" };
  const importedVisits = (imported?.visitDays ?? 0) > 0;
  // No visit at all: exact zeros, as every report reads a cell without data (hides nothing: there is no one).
  if (totals.visits === 0 && !importedVisits && !imported?.hiddenVisitDays) {
    return {
      visits: zero,
      bounces: zero,
      bounce_rate: zero,
      views_per_visit: zero,
      visit_duration: zero,
      visit_duration_low: zero,
      visit_duration_high: zero,
    };
  }
  const figure = (value: number): Figure => (rule.perturbs || importedVisits ? estimated(value) : { value, qualifier: "exact" });
  const visitsCell =
    totals.visits === 0
      ? null
      : rule.shown({ units: totals.visits, events: totals.pageviews, keySum: totals.visitsKeySum }, noiseKey, k, true);
  if (!visitsCell && !importedVisits) return none;
  const visitUnits = (visitsCell?.units ?? 0) + (importedVisits ? imported!.visits : 0);
  const visitEvents = (visitsCell?.events ?? 0) + (importedVisits ? imported!.visitPageviews : 0);
  const visits = figure(visitUnits);
  // No bounce reads as fewer than k bounces do: an exact 0 would tell that a small group among the
  // visits (a reader's sybils beside a few others, none of its own bouncing) did not bounce either.
  const bouncesCell =
    totals.bounces === 0 || !visitsCell
      ? null
      : rule.shown({ units: totals.bounces, events: 0, keySum: totals.bounceKeySum }, noiseKey, k, false);
  const importedBounces = (imported?.bounceDays ?? 0) > 0;
  const bounces =
    bouncesCell === null && !importedBounces
      ? SUPPRESSED
      : figure((bouncesCell?.units ?? 0) + (importedBounces ? imported!.bounces : 0));
  // The median is the collected visits' alone, and only where their cell is shown.
  const duration = visitsCell ? durationMedian(histogram, k) : { value: SUPPRESSED, low: SUPPRESSED, high: SUPPRESSED };
  return {
    visits,
    bounces,
    bounce_rate: ratio(bounces, visits),
    views_per_visit: { value: round(visitEvents / visitUnits, 2), qualifier: "estimated" },
    visit_duration: duration.value,
    visit_duration_low: duration.low,
    visit_duration_high: duration.high,
  };
}
