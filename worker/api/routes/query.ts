/**
 * `POST /api/v1/query` (scope read:reports): a question in the shape of Plausible's Stats API v2,
 * answered by the filter engine (worker/reports/query). Reads only; the body is the question.
 */
import { filterContext, requirePerSessionDays } from "../../reports/explore/plan";
import { queryBody, queryResponse } from "../../reports/query/schema";
import { comparedReport } from "../../reports/compare";
import { compareQuery, pageOf, runQuery } from "../../reports/query/run";
import { prepareReport } from "../../reports/request";
import { route } from "../registry";
import { REPORT_REFUSALS } from "./report-responses";

export const queryRoutes = [
  route({
    operationId: "getQueryResults",
    method: "POST",
    path: "/api/v1/query",
    summary: "Query: metrics grouped by up to two dimensions, under up to three filters (Plausible Stats API v2's shape)",
    tag: "Reports",
    auth: "key",
    scope: "read:reports",
    body: queryBody,
    site: { from: "body", name: "site_id" },
    responses: {
      ...REPORT_REFUSALS,
      200: {
        description: "One row per group shown, then the `other` row standing for those hidden below k.",
        schema: queryResponse,
      },
    },
    async handle(context) {
      const { body } = context;
      const period =
        typeof body.date_range === "string"
          ? { period: body.date_range }
          : { from: body.date_range[0]!, to: body.date_range[1]! };
      const p = await prepareReport(context, body.site_id, period, (resolved) =>
        requirePerSessionDays(resolved, filterContext(context.env), "date_range"),
      );
      // The whole result of each period is cached (a page of it is cut after), whatever page is asked for.
      const question = { ...body, pagination: undefined };
      const mode = body.include?.comparisons?.mode;
      const { report, comparison } = await comparedReport(
        p,
        mode === undefined ? undefined : mode === "previous_period" ? "previous" : "year",
        typeof body.date_range === "string" ? body.date_range : undefined,
        (q) => q.cached("query", [question], () => runQuery(q.db, q.scope, body)),
        (current, previous, absent) => compareQuery(current, previous, absent, body),
        // The earlier period is cut from per-session rows too.
        (earlier) => requirePerSessionDays(earlier, filterContext(context.env), "include"),
      );
      const { rows, total } = pageOf(report, body);
      return context.reply(200, {
        results: rows,
        meta: {
          k: p.scope.k,
          total_rows: total,
          period: { from: p.period.from, to: p.period.to, timezone: p.period.timeZone },
          ...p.imported("report"),
          ...(comparison ? { comparison: { from: comparison.from, to: comparison.to } } : {}),
        },
        query: {
          site_id: body.site_id,
          metrics: body.metrics,
          dimensions: body.dimensions,
          date_range: [p.period.from, p.period.to],
        },
      });
    },
  }),
];
