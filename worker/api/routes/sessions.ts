/**
 * The sessions list: a site's published days, newest first, each with the figures the reports
 * show of its sessions — the day, its shown hours and its shown entry pages
 * (worker/reports/sessions-list.ts). A scope report keys lack: read:sessions.
 */
import { z } from "zod";
import { siteId } from "../../lib/ids";
import { kAnonymity } from "../../reports/privacy";
import { retentionDays } from "../../reports/retention";
import { figureSchema } from "../../reports/schemas";
import { decodeSessionCursor, sessionsPage } from "../../reports/sessions-list";
import { listLimit } from "../params";
import { route } from "../registry";

/**
 * A day of the sessions list: only figures the reports show (worker/reports/sessions-list.ts).
 * No per-session row (counting rows gave exact counts the reports perturb), no id, no cross
 * table of hour × entry page, no label of a hidden cell.
 */
const sessionDayResource = z
  .object({
    day: z.string().meta({ description: "A published local day (the site's zone).", example: "2026-11-21" }),
    sessions: figureSchema.meta({ description: "The day's sessions, as the daily timeseries shows its visitors (perturbed; suppressed when hidden)." }),
    hours: z
      .array(
        z.object({
          hour: z.string().meta({ description: "The instant the local hour starts.", format: "date-time", example: "2026-11-21T12:00:00.000Z" }),
          sessions: figureSchema.meta({ description: "The hour's sessions, as the hourly timeseries shows its visitors." }),
        }),
      )
      .meta({ description: "The hours of the day the hourly timeseries shows with data; hidden hours are not listed." }),
    entry_pages: z
      .array(
        z.object({
          path: z.string(),
          sessions: figureSchema.meta({ description: "Sessions that entered on the page, as the entry-page breakdown shows them." }),
        }),
      )
      .meta({ description: "The entry pages the entry-page breakdown shows that day; hidden ones are not listed, not even by name." }),
  })
  .meta({ id: "SessionDay" });

/** Cursor: the day the next page starts at ("2026-11-21"). */
const cursor = z
  .string()
  .refine((value) => decodeSessionCursor(value) !== null, "must be a next_cursor value from a previous page")
  .transform((value) => decodeSessionCursor(value)!);

export const sessionRoutes = [
  route({
    operationId: "listSessions",
    method: "GET",
    path: "/api/v1/sessions",
    summary: "List a site's published days, newest first, with the figures the reports show of their sessions, hours and entry pages",
    tag: "Sessions",
    auth: "key",
    scope: "read:sessions",
    query: z.strictObject({
      site: siteId.meta({ param: { description: "Site id" } }),
      limit: listLimit.meta({ param: { description: "Days per page, 1–500 (default 100)." } }),
      cursor: cursor.optional().meta({ param: { description: "next_cursor from the previous page." } }),
    }),
    site: { from: "query", name: "site" },
    responses: {
      200: {
        description: "A page of days.",
        schema: z.object({
          days: z.array(sessionDayResource),
          k: z.number().int().meta({ description: "The k of the privacy filter (WREN_K_ANONYMITY): a suppressed figure stands for fewer than k sessions." }),
          next_cursor: z.string().nullable().meta({ description: "Pass as cursor for the next page; null on the last page." }),
          published_through: z
            .string()
            .nullable()
            .meta({ description: "The last published local day: no day after it is listed. Null before the first publication." }),
          timezone: z.string().meta({ description: "The site's time zone, in which days and hours are cut.", example: "Europe/Berlin" }),
          next_day_at: z.string().nullable().meta({
            format: "date-time",
            description:
              "When the running local day ends (the next local midnight): it is listed about 25 seconds later, if the reports show it. On the hour, like every instant of the list. Null before the first publication.",
          }),
        }),
      },
      404: { description: "No such site (`field`: `site`)." },
    },
    async handle({ db, env, query, reply }) {
      const k = kAnonymity(env.WREN_K_ANONYMITY);
      const page = await sessionsPage(db, query.site, {
        limit: query.limit,
        after: query.cursor,
        k,
        retentionDays: retentionDays(env.WREN_RAW_RETENTION_DAYS),
      });
      return reply(200, {
        days: page.days,
        k,
        next_cursor: page.next,
        published_through: page.publishedThrough,
        timezone: page.timeZone,
        next_day_at: page.dayEnd === null ? null : new Date(page.dayEnd).toISOString(),
      });
    },
  }),
];
