/**
 * The vitals report's route (scope read:reports, the site on the key's allowlist): declared
 * beside the other reports' (routes/reports.ts), whose headers and refusals it shares.
 */
import { compareVitals, vitalsKey } from "../../reports/compared";
import { comparedHead, comparedReport } from "../../reports/compare";
import { figureValue } from "../../reports/list";
import { FORMATS_NOTE, inFormat, REPORT_FORMATS, reportColumns, sortedPage } from "../../reports/reply";
import { prepareReport } from "../../reports/request";
import { vitalsQuery, vitalsResponse } from "../../reports/schemas";
import { OTHER_KEY } from "../../reports/hidden-rows";
import { vitalsReport, type VitalsRow, type VitalsSums } from "../../reports/vitals";
import { route } from "../registry";
import { filteredVitalsReport, filterPlanner } from "../../reports/explore";
import { PAGED_REPORT_HEADERS, REPORT_REFUSALS } from "./report-responses";

export const vitalsRoutes = [
  route({
    operationId: "getVitalsReport",
    method: "GET",
    path: "/api/v1/vitals",
    summary: "Vitals report: p75 and good / needs-improvement / poor shares per path and metric",
    tag: "Reports",
    auth: "key",
    scope: "read:reports",
    query: vitalsQuery,
    site: { from: "query", name: "site" },
    responses: {
      ...REPORT_REFUSALS,
      200: {
        description: `Rows per path and metric, sorted and paginated; paths hidden over the whole period are one \`other\` row per metric, last.${FORMATS_NOTE}`,
        schema: vitalsResponse,
        alsoAs: REPORT_FORMATS,
        headers: PAGED_REPORT_HEADERS,
      },
    },
    async handle(context) {
      const { query } = context;
      const filters = filterPlanner(context.env, query.filter);
      const p = await prepareReport(context, query.site, query, (period) => filters.check(period));
      const plan = filters.plan;
      const sortValue = (r: VitalsSums) =>
        query.sort === "path"
          ? r.other
            ? null
            : `${r.path}\u0000${r.metric}`
          : query.sort === "samples"
            ? figureValue(r.samples)
            : null;
      const paged = <R extends VitalsSums>(rows: R[]) =>
        sortedPage(
          rows,
          p,
          query,
          query.sort === "path",
          (r) => (query.sort === "p75" ? figureValue((r as unknown as VitalsRow).p75) : sortValue(r)),
          (r) => `${r.path ?? OTHER_KEY}\u0000${r.metric}`,
        );
      // Sorting by p75 needs every p75; otherwise only the page's rows get one, so the page
      // itself is what is kept.
      const { page: pattern, metric, sort, order, limit, cursor } = query;
      const page = await p.cached("vitals", [pattern, metric, sort, order, limit, cursor, p.format, plan], async () => {
        if (plan.by === "units") return paged(await filteredVitalsReport(p.db, p.scope, plan.filters, { page: pattern, metric }));
        let next: string | null = null;
        const rows = await vitalsReport(p.db, p.scope, { page: pattern, metric }, (all) => {
          if (sort === "p75") return all;
          const chosen = paged(all);
          next = chosen.next_cursor;
          return chosen.rows;
        });
        return sort === "p75" ? paged(rows) : { rows, next_cursor: next };
      });
      // The earlier period's rows of this page's keys, each as that period's own report reads it.
      const keys = new Set(page.rows.map(vitalsKey));
      const { report: rows, comparison } = await comparedReport(
        p,
        query.compare,
        query.period,
        async (q) =>
          q === p
            ? page.rows
            : q.cached("vitals-rows", [pattern, metric, [...keys], plan], async () =>
                plan.by === "units"
                  ? (await filteredVitalsReport(q.db, q.scope, plan.filters, { page: pattern, metric })).filter((r) =>
                      keys.has(vitalsKey(r)),
                    )
                  : vitalsReport(q.db, q.scope, { page: pattern, metric }, (all) => all.filter((r) => keys.has(vitalsKey(r)))),
              ),
        compareVitals,
        filters.checkEarlier,
      );
      return context.reply(
        200,
        { ...comparedHead(p.head, comparison), rows, next_cursor: page.next_cursor },
        inFormat(
          context.request,
          p,
          rows,
          [
            "path",
            "other",
            "metric",
            "unit",
            ...reportColumns(!!comparison, "p75", "p75_low", "p75_high", "good", "needs_improvement", "poor", "samples"),
          ],
          page.next_cursor,
        ),
      );
    },
  }),
];
