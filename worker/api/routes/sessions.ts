/**
 * The sessions list: a site's sessions of published days, newest day first, showing only what
 * the reports show (worker/reports/sessions-list.ts). A scope report keys lack: read:sessions.
 */
import { z } from "zod";
import { siteId } from "../../lib/ids";
import { kAnonymity } from "../../reports/privacy";
import { retentionDays } from "../../reports/retention";
import { decodeSessionCursor, encodeSessionCursor, sessionsPage } from "../../reports/sessions-list";
import { listLimit } from "../params";
import { route } from "../registry";
import { sessionResource } from "../resources";

/** Cursor: a day and how many of its rows earlier pages listed ("2026-11-21.100"). */
const cursor = z
  .string()
  .refine((value) => decodeSessionCursor(value) !== null, "must be a next_cursor value from a previous page")
  .transform((value) => decodeSessionCursor(value)!);

export const sessionRoutes = [
  route({
    operationId: "listSessions",
    method: "GET",
    path: "/api/v1/sessions",
    summary: "List a site's sessions of published days, newest day first, with only what the reports show",
    tag: "Sessions",
    auth: "key",
    scope: "read:sessions",
    query: z.strictObject({
      site: siteId.meta({ param: { description: "Site id" } }),
      limit: listLimit,
      cursor: cursor.optional().meta({ param: { description: "next_cursor from the previous page." } }),
    }),
    site: { from: "query", name: "site" },
    responses: {
      200: {
        description: "A page of sessions.",
        schema: z.object({
          sessions: z.array(sessionResource),
          next_cursor: z.string().nullable().meta({ description: "Pass as cursor for the next page; null on the last page." }),
          published_through: z
            .string()
            .nullable()
            .meta({ description: "The last published local day: no session after it is listed. Null before the first publication." }),
        }),
      },
      404: { description: "No such site (`field`: `site`)." },
    },
    async handle({ db, env, query, reply }) {
      const page = await sessionsPage(db, query.site, {
        limit: query.limit,
        after: query.cursor,
        k: kAnonymity(env.WREN_K_ANONYMITY),
        retentionDays: retentionDays(env.WREN_RAW_RETENTION_DAYS),
      });
      return reply(200, {
        sessions: page.sessions,
        next_cursor: page.next === null ? null : encodeSessionCursor(page.next),
        published_through: page.publishedThrough,
      });
    },
  }),
];
