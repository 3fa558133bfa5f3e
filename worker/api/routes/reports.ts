/**
 * The reports (scope read:reports, the site on the key's allowlist): pages, vitals,
 * conversions, funnels and timeseries. Each handler resolves the period in the site's time
 * zone, folds raw rows into the rollups (catch-up), computes the report from the rollups
 * through the privacy filter, and answers in the format the Accept header asks for.
 */
import type { z } from "zod";
import { HttpProblem } from "../../lib/problem";
import { conversionsReport } from "../../reports/conversions";
import { figureValue, paginate, type Cursor, type Page, type SortValue } from "../../reports/list";
import { negotiate, reportResponse, type Format } from "../../reports/format";
import { funnelReport } from "../../reports/funnels";
import { pagesReport } from "../../reports/pages";
import { resolvePeriod, type Period, type PeriodQuery } from "../../reports/period";
import { kAnonymity } from "../../reports/privacy";
import { catchUp, effectiveZone } from "../../reports/rollup";
import { startRollupScheduler } from "../../reports/scheduler";
import {
  conversionsQuery,
  conversionsResponse,
  funnelsQuery,
  funnelsResponse,
  pagesQuery,
  pagesResponse,
  timeseriesQuery,
  timeseriesResponse,
  vitalsQuery,
  vitalsResponse,
} from "../../reports/schemas";
import type { ReportScope } from "../../reports/scope";
import { MAX_HOURLY_DAYS, timeseriesReport } from "../../reports/timeseries";
import { vitalsReport, type VitalsRow, type VitalsSums } from "../../reports/vitals";
import type { Database } from "../../lib/db";
import type { ApiEnv } from "../env";
import { route } from "../registry";

const FORMATS_NOTE =
  " Send `Accept: text/csv` or `Accept: application/x-ndjson` for one line per row (CSV: each figure as `name` and `name_qualifier` columns).";

/** JSON page size when the query gives none; CSV and NDJSON return every row unless asked. */
const DEFAULT_JSON_LIMIT = 100;

interface Prepared {
  scope: ReportScope;
  period: Period;
  format: Format;
  /** What every line of CSV and NDJSON starts with, and the JSON body's head. */
  head: { site: string; period: { from: string; to: string; days: number; timezone: string }; k: number };
}

/** Loads the site's zone, resolves the period, and brings the rollups up to date. */
async function prepare(
  { db, env, request, execution }: { db: Database; env: ApiEnv; request: Request; execution: ExecutionContext },
  siteId: string,
  query: PeriodQuery,
  check?: (period: Period) => void,
): Promise<Prepared> {
  startRollupScheduler(env.ROLLUP_SCHEDULER, execution);
  const rs = await db.$client.execute({ sql: "SELECT timezone FROM sites WHERE id = ?", args: [siteId] });
  const row = rs.rows[0];
  if (!row) throw new HttpProblem(404, `site: no site ${siteId}.`, { field: "site" });
  const period = resolvePeriod(query, effectiveZone(String(row.timezone)));
  check?.(period);
  const k = kAnonymity(env.WREN_K_ANONYMITY);
  await catchUp(db.$client);
  return {
    scope: { siteId, from: period.from, to: period.to, timeZone: period.timeZone, k },
    period,
    format: negotiate(request.headers.get("accept")),
    head: { site: siteId, period: { from: period.from, to: period.to, days: period.days, timezone: period.timeZone }, k },
  };
}

function lineHead(p: Prepared) {
  return { site: p.head.site, from: p.period.from, to: p.period.to, timezone: p.period.timeZone };
}

const HEAD_COLUMNS = ["site", "from", "to", "timezone"];
const figureColumns = (...names: string[]) => names.flatMap((n) => [n, `${n}_qualifier`]);

function pageLimit(format: Format, limit: number | undefined): number | undefined {
  return limit ?? (format === "json" ? DEFAULT_JSON_LIMIT : undefined);
}

interface PageQuery {
  order?: "asc" | "desc" | undefined;
  limit?: number | undefined;
  cursor?: unknown;
}

/** One page of rows in the query's order; names sort ascending by default, figures descending. */
function sortedPage<R>(
  rows: R[],
  p: Prepared,
  query: PageQuery,
  sortsByName: boolean,
  sortValue: (row: R) => SortValue,
  rowKey: (row: R) => string,
): Page<R> {
  const order = query.order ?? (sortsByName ? "asc" : "desc");
  return paginate(rows, sortValue, rowKey, order, pageLimit(p.format, query.limit), query.cursor as Cursor | undefined);
}

/**
 * Answers in the negotiated format. Every CSV and NDJSON line starts with the report's head
 * columns; a paginated report passes its next cursor for the `Link: rel="next"` header.
 */
function respond(
  request: Request,
  p: Prepared,
  body: unknown,
  lines: object[],
  columns: string[],
  nextCursor?: string | null,
): Response {
  return reportResponse(
    p.format,
    body,
    lines.map((line) => ({ ...lineHead(p), ...line })),
    [...HEAD_COLUMNS, ...columns],
    nextCursor === undefined ? undefined : { url: request.url, cursor: nextCursor },
  );
}

/** What a report answers with besides JSON, chosen by `Accept`. */
const REPORT_FORMATS = ["text/csv", "application/x-ndjson"];

export const reportRoutes = [
  route({
    method: "GET",
    path: "/api/v1/pages",
    summary: "Pages report: visitors and pageviews per path, through the k-anonymity filter",
    tag: "Reports",
    scope: "read:reports",
    query: pagesQuery,
    site: { from: "query", name: "site" },
    responses: {
      200: {
        description: `Rows per path, sorted and paginated, with the total of the visible rows.${FORMATS_NOTE}`,
        schema: pagesResponse,
        alsoAs: REPORT_FORMATS,
      },
    },
    async handle(context) {
      const { db, query } = context;
      const p = await prepare(context, query.site, query);
      const report = await pagesReport(db.$client, p.scope, query.page);
      const page = sortedPage(
        report.rows,
        p,
        query,
        query.sort === "path",
        (r) => (query.sort === "path" ? r.path : figureValue(r[query.sort])),
        (r) => r.path,
      );
      const body: z.infer<typeof pagesResponse> = {
        ...p.head,
        rows: page.rows,
        totals: report.totals,
        next_cursor: page.next_cursor,
      };
      return respond(context.request, p, body, page.rows, ["path", ...figureColumns("visitors", "pageviews")], page.next_cursor);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/vitals",
    summary: "Vitals report: p75 and good / needs-improvement / poor shares per path and metric",
    tag: "Reports",
    scope: "read:reports",
    query: vitalsQuery,
    site: { from: "query", name: "site" },
    responses: {
      200: {
        description: `Rows per path and metric, sorted and paginated.${FORMATS_NOTE}`,
        schema: vitalsResponse,
        alsoAs: REPORT_FORMATS,
      },
    },
    async handle(context) {
      const { db, query } = context;
      const p = await prepare(context, query.site, query);
      const sortValue = (r: VitalsSums) =>
        query.sort === "path" ? `${r.path}\u0000${r.metric}` : query.sort === "samples" ? figureValue(r.samples) : null;
      const paged = <R extends VitalsSums>(rows: R[]) =>
        sortedPage(
          rows,
          p,
          query,
          query.sort === "path",
          (r) => (query.sort === "p75" ? figureValue((r as unknown as VitalsRow).p75) : sortValue(r)),
          (r) => `${r.path}\u0000${r.metric}`,
        );
      // Sorting by p75 needs every p75; otherwise only the page's rows get one.
      let next: string | null = null;
      const rows = await vitalsReport(db.$client, p.scope, { page: query.page, metric: query.metric }, (all) => {
        if (query.sort === "p75") return all;
        const page = paged(all);
        next = page.next_cursor;
        return page.rows;
      });
      const page = query.sort === "p75" ? paged(rows) : { rows, next_cursor: next };
      const body: z.infer<typeof vitalsResponse> = { ...p.head, rows: page.rows, next_cursor: page.next_cursor };
      return respond(
        context.request,
        p,
        body,
        page.rows,
        ["path", "metric", "unit", ...figureColumns("p75", "good", "needs_improvement", "poor", "samples")],
        page.next_cursor,
      );
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/conversions",
    summary: "Conversions report: per goal, conversions, converting sessions, the session denominator and the rate",
    tag: "Reports",
    scope: "read:reports",
    query: conversionsQuery,
    site: { from: "query", name: "site" },
    responses: {
      200: {
        description: `One row per goal of the site, sorted and paginated.${FORMATS_NOTE}`,
        schema: conversionsResponse,
        alsoAs: REPORT_FORMATS,
      },
    },
    async handle(context) {
      const { db, query } = context;
      const p = await prepare(context, query.site, query);
      const report = await conversionsReport(db.$client, p.scope);
      const page = sortedPage(
        report.rows,
        p,
        query,
        query.sort === "name",
        (r) => (query.sort === "name" ? r.goal.name : figureValue(r[query.sort])),
        (r) => r.goal.id,
      );
      const body: z.infer<typeof conversionsResponse> = {
        ...p.head,
        rows: page.rows,
        totals: report.totals,
        next_cursor: page.next_cursor,
      };
      return respond(
        context.request,
        p,
        body,
        page.rows,
        ["goal_id", "goal_name", "goal_kind", ...figureColumns("conversions", "converting_sessions", "sessions", "rate")],
        page.next_cursor,
      );
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/funnels",
    summary: "Funnel report: sessions per ordered goal, drop-off and rate",
    tag: "Reports",
    scope: "read:reports",
    query: funnelsQuery,
    site: { from: "query", name: "site" },
    responses: {
      200: { description: `One entry per step, in order.${FORMATS_NOTE}`, schema: funnelsResponse, alsoAs: REPORT_FORMATS },
    },
    async handle(context) {
      const { db, query } = context;
      const rs = await db.$client.execute({
        sql: `SELECT id FROM goals WHERE site_id = ? AND id IN (${query.goals.map(() => "?").join(", ")})`,
        args: [query.site, ...query.goals],
      });
      const found = new Set(rs.rows.map((r) => String(r.id)));
      const missing = query.goals.find((id) => !found.has(id));
      if (missing) throw new HttpProblem(422, `goals: ${missing} is not a goal of this site.`, { field: "goals" });
      const p = await prepare(context, query.site, query);
      const steps = await funnelReport(db.$client, p.scope, query.goals);
      const body: z.infer<typeof funnelsResponse> = { ...p.head, steps };
      return respond(context.request, p, body, steps, [
        "step",
        "goal_id",
        "goal_name",
        "goal_kind",
        ...figureColumns("sessions", "dropoff", "rate"),
      ]);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/timeseries",
    summary: "Timeseries: visitors, pageviews and conversions per day or per hour, for charts",
    tag: "Reports",
    scope: "read:reports",
    query: timeseriesQuery,
    site: { from: "query", name: "site" },
    responses: {
      200: {
        description: `One point per local day or hour of the period, with the totals of the visible points.${FORMATS_NOTE}`,
        schema: timeseriesResponse,
        alsoAs: REPORT_FORMATS,
      },
    },
    async handle(context) {
      const { db, query } = context;
      if (query.goal !== undefined) {
        const rs = await db.$client.execute({
          sql: "SELECT 1 FROM goals WHERE id = ? AND site_id = ?",
          args: [query.goal, query.site],
        });
        if (rs.rows.length === 0)
          throw new HttpProblem(422, `goal: ${query.goal} is not a goal of this site.`, { field: "goal" });
      }
      const p = await prepare(context, query.site, query, (period) => {
        if (query.interval === "hour" && period.days > MAX_HOURLY_DAYS) {
          throw new HttpProblem(400, `interval: hourly points cover at most ${MAX_HOURLY_DAYS} days.`, { field: "interval" });
        }
      });
      const report = await timeseriesReport(db.$client, p.scope, query.interval, query.goal);
      const body: z.infer<typeof timeseriesResponse> = {
        ...p.head,
        interval: query.interval,
        points: report.points,
        totals: report.totals,
      };
      return respond(
        context.request,
        p,
        body,
        report.points.map((pt) => ({ interval: query.interval, ...pt })),
        ["interval", "start", "local", ...figureColumns("visitors", "pageviews", "conversions")],
      );
    },
  }),
];
