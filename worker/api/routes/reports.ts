/**
 * The reports (scope read:reports, the site on the key's allowlist): pages, conversions,
 * funnels and timeseries (vitals: routes/vitals.ts; breakdowns: routes/breakdown.ts). Each route declares itself
 * here; preparing the period and the rollups (reports/request.ts), computing through the
 * privacy filter, comparing with an earlier period (reports/compare.ts), and answering in the
 * negotiated format (reports/reply.ts) live in worker/reports.
 */
import { requireReportGoals } from "../../domain/goals";
import { HttpProblem } from "../../lib/problem";
import { conversionsReport } from "../../reports/conversions";
import { funnelReport } from "../../reports/funnels";
import { OTHER_KEY } from "../../reports/hidden-rows";
import { figureValue } from "../../reports/list";
import { pagesReport } from "../../reports/pages";
import { todayPagesReport } from "../../reports/today";
import { comparedHead, comparedReport } from "../../reports/compare";
import { compareConversions, compareFunnel, comparePages, compareTimeseries } from "../../reports/compared";
import { bandColumns, FORMATS_NOTE, inFormat, pagedBody, REPORT_FORMATS, reportColumns, sortedPage } from "../../reports/reply";
import { prepareReport } from "../../reports/request";
import {
  filteredConversionsReport,
  filteredFunnelReport,
  filteredPagesReport,
  filteredTimeseriesReport,
  filterPlanner,
} from "../../reports/explore";
import { requireFunnelPeriod, retentionDays } from "../../reports/retention";
import {
  conversionsQuery,
  conversionsResponse,
  funnelsQuery,
  funnelsResponse,
  pagesQuery,
  pagesResponse,
  timeseriesQuery,
  timeseriesResponse,
} from "../../reports/schemas";
import { MAX_HOURLY_DAYS, timeseriesReport } from "../../reports/timeseries";
import { importedExclusion, importedScope, withImportedHead } from "../../reports/imported/head";
import { route } from "../registry";
import { PAGED_REPORT_HEADERS, REPORT_HEADERS, REPORT_REFUSALS } from "./report-responses";
import { now } from "../../lib/clock";
import { perSessionFrom, withConversionsRevenue } from "../../reports/revenue";

export const reportRoutes = [
  route({
    operationId: "getPagesReport",
    method: "GET",
    path: "/api/v1/pages",
    summary: "Pages report: visitors and pageviews per path, through the k-anonymity filter",
    tag: "Reports",
    auth: "key",
    scope: "read:reports",
    query: pagesQuery,
    site: { from: "query", name: "site" },
    responses: {
      ...REPORT_REFUSALS,
      200: {
        description: `Rows per path, sorted and paginated, with the total of the visible rows; paths hidden over the whole period are one \`other\` row, last.${FORMATS_NOTE}`,
        schema: pagesResponse,
        alsoAs: REPORT_FORMATS,
        headers: PAGED_REPORT_HEADERS,
      },
    },
    async handle(context) {
      const { query } = context;
      const filters = filterPlanner(context.env, query.filter);
      const p = await prepareReport(context, query.site, query, (period) => filters.check(period));
      const plan = filters.plan;
      const exclusion = importedExclusion({ filter: query.filter, hours: !!p.scope.hours });
      const { report, comparison } =
        p.scope.hours && !query.compare
          ? { report: await todayPagesReport(p.db, p.scope, query.page), comparison: undefined }
          : await comparedReport(
              p,
              query.compare,
              query.period,
              (q) =>
                q.cached("pages", [query.page, plan], () =>
                  plan.by === "units"
                    ? filteredPagesReport(q.db, q.scope, plan.filters, query.page)
                    : pagesReport(q.db, importedScope(q.scope, exclusion), query.page),
                ),
              comparePages,
              filters.checkEarlier,
            );
      const page = sortedPage(
        report.rows,
        p,
        query,
        query.sort === "path",
        (r) => (query.sort === "path" ? r.path : figureValue(r[query.sort])),
        (r) => r.path ?? OTHER_KEY,
      );
      return context.reply(
        200,
        withImportedHead(comparedHead(pagedBody(p, page, report.totals), comparison), p, exclusion),
        inFormat(
          context.request,
          p,
          page.rows,
          [
            "path",
            "other",
            ...(p.scope.hours ? bandColumns("visitors", "pageviews") : reportColumns(!!comparison, "visitors", "pageviews")),
          ],
          page.next_cursor,
        ),
      );
    },
  }),
  route({
    operationId: "getConversionsReport",
    method: "GET",
    path: "/api/v1/conversions",
    summary: "Conversions report: per goal, conversions, converting sessions, the session denominator and the rate",
    tag: "Reports",
    auth: "key",
    scope: "read:reports",
    query: conversionsQuery,
    site: { from: "query", name: "site" },
    responses: {
      ...REPORT_REFUSALS,
      200: {
        description: `One row per goal of the site, sorted and paginated.${FORMATS_NOTE}`,
        schema: conversionsResponse,
        alsoAs: REPORT_FORMATS,
        headers: PAGED_REPORT_HEADERS,
      },
    },
    async handle(context) {
      const { query } = context;
      const filters = filterPlanner(context.env, query.filter);
      const p = await prepareReport(context, query.site, query, (period) => filters.check(period, true));
      const plan = filters.plan;
      const { report, comparison } = await comparedReport(
        p,
        query.compare,
        query.period,
        (q) =>
          q.cached("conversions", [plan], async () => {
            const report =
              plan.by === "units"
                ? await filteredConversionsReport(q.db, q.scope, plan.filters)
                : await conversionsReport(q.db, q.scope, plan.by === "day-cells" ? plan.filter : undefined);
            // Revenue goals' figures (reports/revenue.ts); the day-cells filter reads older days, whose revenue reads suppressed.
            const filtered =
              plan.by === "units" ? plan.filters : plan.by === "day-cells" ? [{ ...plan.filter, negated: false }] : null;
            const rows = await withConversionsRevenue(q.db, q.scope, report.rows, filtered, {
              perSessionFrom: perSessionFrom(context.env),
            });
            return { ...report, rows };
          }),
        compareConversions,
        filters.checkEarlier,
      );
      const page = sortedPage(
        report.rows,
        p,
        query,
        query.sort === "name",
        (r) => (query.sort === "name" ? r.goal.name : figureValue(r[query.sort])),
        (r) => r.goal.id,
      );
      return context.reply(
        200,
        withImportedHead(comparedHead(pagedBody(p, page, report.totals), comparison), p, "report"),
        inFormat(
          context.request,
          p,
          page.rows,
          [
            "goal_id",
            "goal_name",
            "goal_kind",
            ...reportColumns(!!comparison, "conversions", "converting_sessions", "sessions", "rate"),
          ],
          page.next_cursor,
        ),
      );
    },
  }),
  route({
    operationId: "getFunnelReport",
    method: "GET",
    path: "/api/v1/funnels",
    summary: "Funnel report: sessions per ordered goal, drop-off and rate",
    tag: "Reports",
    auth: "key",
    scope: "read:reports",
    query: funnelsQuery,
    site: { from: "query", name: "site" },
    responses: {
      // The goals are checked first: an unknown site has none of them, a 422 on `goals`, never a 404.
      422: {
        description: `${REPORT_REFUSALS[422].description} An unknown site too: none of the goals is its (\`field\`: \`goals\`). With \`compare\`, an earlier period starting before those days (\`field\`: \`compare\`).`,
      },
      200: {
        description: `One entry per step, in order.${FORMATS_NOTE}`,
        schema: funnelsResponse,
        alsoAs: REPORT_FORMATS,
        headers: REPORT_HEADERS,
      },
    },
    async handle(context) {
      const { db, query } = context;
      await requireReportGoals(db, query.site, query.goals, "goals");
      // Funnels read per-session rows, which retention keeps for WREN_RAW_RETENTION_DAYS only.
      const field = query.from !== undefined ? "from" : query.date !== undefined ? "date" : "period";
      const days = retentionDays(context.env.WREN_RAW_RETENTION_DAYS);
      const filters = filterPlanner(context.env, query.filter);
      const p = await prepareReport(context, query.site, query, (period) => {
        requireFunnelPeriod(period.from, now(), days, field);
        filters.check(period);
      });
      const plan = filters.plan;
      const { report: steps, comparison } = await comparedReport(
        p,
        query.compare,
        query.period,
        (q) =>
          q.cached("funnel", [query.goals, plan], () =>
            plan.by === "units"
              ? filteredFunnelReport(q.db, q.scope, plan.filters, query.goals)
              : funnelReport(q.db, q.scope, query.goals),
          ),
        compareFunnel,
        // The earlier period is refused as it would be asked directly, naming `compare`.
        (earlier) => requireFunnelPeriod(earlier.from, now(), days, "compare"),
      );
      return context.reply(
        200,
        { ...comparedHead(p.head, comparison), steps },
        inFormat(context.request, p, steps, [
          "step",
          "goal_id",
          "goal_name",
          "goal_kind",
          ...reportColumns(!!comparison, "sessions", "dropoff", "rate"),
        ]),
      );
    },
  }),
  route({
    operationId: "getTimeseries",
    method: "GET",
    path: "/api/v1/timeseries",
    summary: "Timeseries: visitors, pageviews and conversions per day or per hour, for charts",
    tag: "Reports",
    auth: "key",
    scope: "read:reports",
    query: timeseriesQuery,
    site: { from: "query", name: "site" },
    responses: {
      ...REPORT_REFUSALS,
      200: {
        description: `One point per local day or hour of the period, with the totals of the visible points.${FORMATS_NOTE}`,
        schema: timeseriesResponse,
        alsoAs: REPORT_FORMATS,
        headers: REPORT_HEADERS,
      },
    },
    async handle(context) {
      const { db, query } = context;
      if (query.goal !== undefined) await requireReportGoals(db, query.site, [query.goal], "goal");
      let interval = query.interval ?? "day";
      const filters = filterPlanner(context.env, query.filter);
      const p = await prepareReport(context, query.site, query, (period) => {
        if (period.hours) {
          if (query.interval === "day")
            throw new HttpProblem(400, `interval: period=${query.period} is reported per hour.`, { field: "interval" });
          interval = "hour";
        }
        if (interval === "hour" && query.filter) {
          throw new HttpProblem(400, "filter: applies to daily points (whole days), not to hourly ones.", { field: "filter" });
        }
        if (interval === "hour" && period.days > MAX_HOURLY_DAYS) {
          throw new HttpProblem(400, `interval: hourly points cover at most ${MAX_HOURLY_DAYS} days.`, { field: "interval" });
        }
        filters.check(period, interval === "day");
      });
      const plan = filters.plan;
      const exclusion = importedExclusion({ filter: query.filter, interval, hours: !!p.scope.hours });
      const { report, comparison } = await comparedReport(
        p,
        query.compare,
        query.period,
        (q) =>
          q.cached("timeseries", [interval, query.goal, plan], () =>
            plan.by === "units"
              ? filteredTimeseriesReport(q.db, q.scope, plan.filters, interval, query.goal)
              : timeseriesReport(
                  q.db,
                  importedScope(q.scope, exclusion),
                  interval,
                  query.goal,
                  plan.by === "day-cells" ? plan.filter : undefined,
                ),
          ),
        compareTimeseries(query.compare!, p.period.days),
        filters.checkEarlier,
      );
      return context.reply(
        200,
        {
          ...withImportedHead(comparedHead(p.head, comparison), p, exclusion),
          interval,
          points: report.points,
          totals: report.totals,
        },
        inFormat(
          context.request,
          p,
          report.points.map((pt) => ({ interval, ...pt })),
          [
            "interval",
            "start",
            "local",
            ...(comparison ? ["previous_date"] : []),
            ...reportColumns(!!comparison, "visitors", "pageviews", "conversions"),
          ],
        ),
      );
    },
  }),
];
