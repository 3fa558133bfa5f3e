/**
 * The sessions list: a site's published days, newest first, each with the figures the reports
 * show of its sessions — the day, its shown hours and its shown entry pages
 * (worker/reports/sessions-list.ts). A scope report keys lack: read:sessions.
 */
import { z } from "zod";
import { siteId } from "../../lib/ids";
import { kAnonymity } from "../../reports/privacy";
import { retentionDays } from "../../reports/retention";
import { decodeSessionCursor, sessionsPage } from "../../reports/sessions-list";
import { listLimit } from "../params";
import { route } from "../registry";
import { sessionDayResource } from "../resources";

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
      });
    },
  }),
];
