/**
 * The aggregate report (scope read:reports, the site on the key's allowlist): a period's
 * visitors, pageviews and engagement figures in one answer (reports/aggregate.ts). Declared
 * here; computed in worker/reports, answered in the negotiated format like every report.
 */
import { aggregateReport } from "../../reports/aggregate";
import { compareFigures, comparedHead, comparedReport } from "../../reports/compare";
import { FORMATS_NOTE, inFormat, REPORT_FORMATS, reportColumns } from "../../reports/reply";
import { prepareReport, type PreparedReport } from "../../reports/request";
import { aggregateQuery, aggregateResponse } from "../../reports/schemas";
import { timeseriesReport } from "../../reports/timeseries";
import { filteredTimeseriesReport, filterPlanner } from "../../reports/explore";
import { importedExclusion, importedScope, withImportedHead } from "../../reports/imported/head";
import { route } from "../registry";

const FIGURES = [
  "visitors",
  "pageviews",
  "visits",
  "bounces",
  "bounce_rate",
  "views_per_visit",
  "visit_duration",
  "visit_duration_low",
  "visit_duration_high",
] as const;

/** The figures imported days add nothing to: a median of collected visits (exports give no visit's duration). */
const DURATION_FIGURES = ["visit_duration", "visit_duration_low", "visit_duration_high"];

export const aggregateRoutes = [
  route({
    operationId: "getAggregateReport",
    method: "GET",
    path: "/api/v1/aggregate",
    summary: "Aggregate: visitors, pageviews, visits, bounce rate, views per visit and median visit duration over a period",
    tag: "Reports",
    auth: "key",
    scope: "read:reports",
    query: aggregateQuery,
    site: { from: "query", name: "site" },
    responses: {
      404: { description: "No such site (`field`: `site`)." },
      422: {
        description:
          "Refused for this site: `tz` other than its zone; `to` or `date` after the last published day; with filters, a period starting before the days WREN_RAW_RETENTION_DAYS keeps.",
      },
      200: {
        description: `The period's figures, each through the k-filter.${FORMATS_NOTE}`,
        schema: aggregateResponse,
        alsoAs: REPORT_FORMATS,
        headers: {
          Vary: {
            description: "The body depends on `Accept` (JSON, CSV or NDJSON).",
            required: true,
            schema: { type: "string", const: "Accept" },
          },
          "Wren-Published-Through": {
            description: "The site's last published local day: the freshest the report can be.",
            required: true,
            schema: { type: "string", format: "date" },
          },
        },
      },
    },
    async handle(context) {
      const { query } = context;
      const filters = filterPlanner(context.env, query.filter);
      const p = await prepareReport(context, query.site, query, (period) => filters.check(period));
      const plan = filters.plan;
      const units = plan.by === "units" ? plan.filters : [];
      const exclusion = importedExclusion({ filter: query.filter, hours: !!p.scope.hours });
      const compute = async (q: PreparedReport) => {
        const scope = importedScope(q.scope, exclusion);
        // The timeseries route's own cache entry (same name and parameters): one computation of the totals.
        const timeseries = await q.cached("timeseries", ["day", undefined, plan], () =>
          units.length > 0 ? filteredTimeseriesReport(q.db, q.scope, units, "day") : timeseriesReport(q.db, scope, "day"),
        );
        return q.cached("aggregate", [plan], () => aggregateReport(q.db, scope, timeseries, units));
      };
      const { report: results, comparison } = await comparedReport(
        p,
        query.compare,
        query.period,
        compute,
        (current, previous, absent) => compareFigures(current, previous, FIGURES, absent),
        filters.checkEarlier,
      );
      // One line: each figure as `name` and `name_qualifier` (the rate's sides are the visits and bounces columns).
      return context.reply(
        200,
        { ...withImportedHead(comparedHead(p.head, comparison), p, exclusion, DURATION_FIGURES), results },
        inFormat(context.request, p, [results], reportColumns(!!comparison, ...FIGURES)),
      );
    },
  }),
];
