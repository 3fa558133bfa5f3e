/**
 * The breakdown report's route (scope read:reports, the site on the key's allowlist): visitors
 * per value of a session dimension or a custom property, with a goal's conversions and revenue,
 * declared beside the other reports' (routes/reports.ts), whose headers and refusals it shares.
 */
import { requireReportGoals } from "../../domain/goals";
import { HttpProblem } from "../../lib/problem";
import { breakdownReport } from "../../reports/breakdown";
import { comparedHead, comparedReport } from "../../reports/compare";
import { compareBreakdown } from "../../reports/compared";
import type { Dimension } from "../../reports/dimensions";
import {
  filteredBreakdownReport,
  filterContext,
  filterPlanner,
  isPropKey,
  requirePerSessionDays,
  requirePropPeriod,
} from "../../reports/explore";
import { OTHER_KEY } from "../../reports/hidden-rows";
import { figureValue } from "../../reports/list";
import { bandColumns, FORMATS_NOTE, inFormat, pagedBody, REPORT_FORMATS, reportColumns, sortedPage } from "../../reports/reply";
import { prepareReport } from "../../reports/request";
import { perSessionFrom, withBreakdownRevenue } from "../../reports/revenue";
import { breakdownQuery, breakdownResponse } from "../../reports/schemas";
import { refuseTodayBreakdown, todayBreakdownReport, type TodayDimension } from "../../reports/today";
import { importedExclusion, importedScope, withImportedHead } from "../../reports/imported/head";
import { route } from "../registry";
import { PAGED_REPORT_HEADERS, REPORT_REFUSALS } from "./report-responses";

export const breakdownRoutes = [
  route({
    operationId: "getBreakdownReport",
    method: "GET",
    path: "/api/v1/breakdown",
    summary:
      "Breakdown: visitors, pageviews and a goal's conversions per source, campaign, entry or exit page, browser, system, device or country",
    tag: "Reports",
    auth: "key",
    scope: "read:reports",
    query: breakdownQuery,
    site: { from: "query", name: "site" },
    responses: {
      ...REPORT_REFUSALS,
      200: {
        description: `One row per value of the dimension (null: visitors without one), sorted and paginated, with the totals of the visible rows; values hidden over the whole period are one \`other\` row, last.${FORMATS_NOTE}`,
        schema: breakdownResponse,
        alsoAs: REPORT_FORMATS,
        headers: PAGED_REPORT_HEADERS,
      },
    },
    async handle(context) {
      const { db, query } = context;
      if (query.goal !== undefined) await requireReportGoals(db, query.site, [query.goal], "goal");
      else if (["converting_sessions", "conversions", "rate"].includes(query.sort)) {
        throw new HttpProblem(400, `sort: ${query.sort} needs a goal.`, { field: "sort" });
      }
      // A custom property is read from per-session rows (reports/explore), like a filter.
      const prop = isPropKey(query.dimension);
      if (query.period === "today" && !prop) refuseTodayBreakdown(query.dimension as Dimension, query.goal);
      const filters = filterPlanner(context.env, query.filter);
      const p = await prepareReport(context, query.site, query, (period) => {
        filters.check(period);
        if (prop) requirePropPeriod(period, context.env, "dimension");
      });
      const plan = filters.plan;
      const exclusion = importedExclusion({ report: !prop, filter: query.filter, hours: !!p.scope.hours, goal: query.goal });
      const checkEarlier = (earlier: { from: string }) => {
        filters.checkEarlier(earlier);
        if (prop) requirePerSessionDays(earlier, filterContext(context.env), "compare");
      };
      const { report, comparison } =
        p.scope.hours && !query.compare && !prop
          ? { report: await todayBreakdownReport(p.db, p.scope, query.dimension as TodayDimension), comparison: undefined }
          : await comparedReport(
              p,
              query.compare,
              query.period,
              (q) =>
                q.cached("breakdown", [query.dimension, query.goal, plan], async () => {
                  const filters = plan.by === "units" ? plan.filters : [];
                  const report =
                    plan.by === "units" || prop
                      ? await filteredBreakdownReport(q.db, q.scope, filters, query.dimension, query.goal)
                      : await breakdownReport(q.db, importedScope(q.scope, exclusion), query.dimension as Dimension, query.goal);
                  // Revenue per property value is not read yet (a unit may hold several values).
                  if (!query.goal || prop) return report;
                  const opts = { perSessionFrom: perSessionFrom(context.env) };
                  return {
                    ...report,
                    rows: await withBreakdownRevenue(
                      q.db,
                      q.scope,
                      report.rows,
                      query.dimension as Dimension,
                      query.goal,
                      filters,
                      opts,
                    ),
                  };
                }),
              compareBreakdown,
              checkEarlier,
            );
      const sort = query.sort;
      const page = sortedPage(
        report.rows,
        p,
        query,
        sort === "value",
        (r) => (sort === "value" ? r.value : figureValue(r[sort]!)),
        (r) => (r.other ? OTHER_KEY : (r.value ?? "")),
      );
      const figures = query.goal
        ? ["visitors", "pageviews", "converting_sessions", "conversions", "rate"]
        : ["visitors", "pageviews"];
      const columns = p.scope.hours ? bandColumns(...figures) : reportColumns(!!comparison, ...figures);
      return context.reply(
        200,
        {
          ...withImportedHead(comparedHead(pagedBody(p, page, report.totals), comparison), p, exclusion),
          dimension: query.dimension,
        },
        inFormat(context.request, p, page.rows, ["value", "other", ...columns], page.next_cursor),
      );
    },
  }),
];
