/**
 * The Overview (scope read:reports): the window since a deployment marker (default: the latest)
 * against the window of equal length before it, through the same hour cells and k-filter as
 * the reports (worker/reports/overview.ts), beside the marker and its smoke conversions.
 */
import { z } from "zod";
import { findDeployment, latestDeployment } from "../../domain/deployments";
import { deploymentId, siteId } from "../../lib/ids";
import { HttpProblem } from "../../lib/problem";
import { overviewFigures, overviewWindows } from "../../reports/overview";
import { prepareReport } from "../../reports/request";
import { figureSchema, filterParam } from "../../reports/schemas";
import { canonicalFilters } from "../../reports/explore/filters";
import { filteredOverviewFigures, refuseMovingFilters } from "../../reports/explore/overview";
import { filterContext, requirePerSessionDays } from "../../reports/explore/plan";
import { localDate } from "../../reports/timezone";
import { route } from "../registry";
import { deploymentResource } from "../resources";
import { now } from "../../lib/clock";

const comparison = (what: string) =>
  z
    .object({
      current: figureSchema,
      previous: figureSchema,
      delta: z.object({
        absolute: figureSchema.meta({
          description: "current − previous; suppressed when either side is, estimated when either is.",
        }),
        relative: figureSchema
          .nullable()
          .meta({ description: "(current − previous) / previous, 4 decimals; null when previous is 0." }),
      }),
    })
    .meta({ description: what });

const overviewWindow = z.object({
  start: z.string().meta({ format: "date-time" }),
  end: z.string().meta({ format: "date-time" }),
  hours: z.number().int(),
});

const overviewResponse = z
  .object({
    site: z.string(),
    k: z.number().int(),
    timezone: z.string(),
    deployment: deploymentResource
      .nullable()
      .meta({ description: "The marker compared from, with its smoke conversions; null when the site has none." }),
    current: overviewWindow.meta({
      description: "The closed local hours since the marker (from the first hour after the marker's own).",
    }),
    previous: overviewWindow.meta({ description: "The as many hours before the marker's own hour." }),
    pending_until: z.string().nullable().meta({
      format: "date-time",
      description: "Set while no hour since the marker has closed: when the first one does. The figures are null until then.",
    }),
    visitors: comparison("Visitors: the shown hours' visitors added up (estimated over several hours).").nullable(),
    pageviews: comparison("Pageviews of the shown hours.").nullable(),
    sessions: comparison("The rates' denominator: sessions of the window (the visitors figure).").nullable(),
    goals: z.array(
      z.object({
        goal: z.object({ id: z.string(), name: z.string(), kind: z.string() }),
        conversions: comparison("Conversions of the goal."),
        converting_sessions: comparison("Converting sessions (units) of the goal."),
        rate: comparison("converting_sessions / sessions (0–1).").extend({
          numerator: z.object({ name: z.literal("converting_sessions"), current: figureSchema, previous: figureSchema }),
          denominator: z.object({ name: z.literal("sessions"), current: figureSchema, previous: figureSchema }),
        }),
      }),
    ),
  })
  .meta({ id: "Overview" });

export const overviewRoutes = [
  route({
    operationId: "getOverview",
    method: "GET",
    path: "/api/v1/overview",
    summary: "Overview: visitors, pageviews and each goal's conversions since a deployment, against the window before it",
    tag: "Reports",
    auth: "key",
    scope: "read:reports",
    query: z.strictObject({
      site: siteId.meta({ param: { description: "Site id; it must be on the key's allowlist." } }),
      // "none" asks for the last 24 closed hours even when the site has markers (the dashboard's "Compare since" offers it beside them).
      deployment: z
        .union([deploymentId, z.literal("none")])
        .optional()
        .meta({
          param: {
            description:
              "The marker to compare from (default: the site's latest), or `none` for the last 24 closed hours against the 24 before, whatever markers there are. Without any marker: the last 24 closed hours too.",
          },
        }),
      filter: filterParam,
    }),
    site: { from: "query", name: "site" },
    responses: {
      200: {
        description: "Both windows' figures with their deltas, the marker and its smoke conversions.",
        schema: overviewResponse,
      },
      400: {
        description:
          "A malformed parameter; a filter on page, goal or exit_page, which the running hours cannot take, or filters on windows reaching before the days WREN_RAW_RETENTION_DAYS keeps (`field`: `filter`).",
      },
      404: { description: "No such site (`field`: `site`) or marker of the site (`field`: `deployment`)." },
    },
    async handle(context) {
      const { query } = context;
      // The last 24 closed hours: what publication allows now, in the site's zone.
      const p = await prepareReport(context, query.site, { period: "24h" });
      const { window, lastEndedDay } = p.scope.hours!;
      const marker =
        query.deployment === "none"
          ? null
          : query.deployment !== undefined
            ? await findDeployment(p.db, query.site, query.deployment)
            : await latestDeployment(p.db, query.site, now());
      if (!marker && query.deployment !== undefined && query.deployment !== "none")
        throw new HttpProblem(404, `deployment: the site has no deployment ${query.deployment}.`, { field: "deployment" });
      const windows = overviewWindows(p.scope.timeZone, marker ? Date.parse(marker.deployed_at) : null, window.toMs);
      const filters = canonicalFilters(query.filter ?? []);
      if (filters.length > 0) {
        refuseMovingFilters(filters);
        requirePerSessionDays(
          { from: localDate(p.scope.timeZone, windows.previous.fromMs) },
          filterContext(context.env),
          "filter",
        );
      }
      const figures =
        windows.pendingUntil === null
          ? await p.cached("overview", [windows.current, windows.previous, filters], () =>
              filters.length > 0
                ? filteredOverviewFigures(p.db, p.scope, windows, filters)
                : overviewFigures(p.db, p.scope, windows, lastEndedDay),
            )
          : null;
      const bounds = (w: { fromMs: number; toMs: number }) => ({
        start: new Date(w.fromMs).toISOString(),
        end: new Date(w.toMs).toISOString(),
        hours: Math.round((w.toMs - w.fromMs) / 3_600_000),
      });
      return context.reply(200, {
        site: query.site,
        k: p.head.k,
        timezone: p.scope.timeZone,
        deployment: marker,
        current: bounds(windows.current),
        previous: bounds(windows.previous),
        pending_until: windows.pendingUntil === null ? null : new Date(windows.pendingUntil).toISOString(),
        ...(figures ?? { visitors: null, pageviews: null, sessions: null, goals: [] }),
      });
    },
  }),
];
