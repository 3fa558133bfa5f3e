/**
 * The sessions list: a site's sessions of published days, newest first, showing only what the
 * reports show (worker/reports/sessions-list.ts). A scope report keys lack: read:sessions.
 */
import { z } from "zod";
import { readOnly } from "../../lib/read-only";
import { siteId } from "../../lib/ids";
import { listPublishedSessions } from "../../reports/sessions-list";
import { route } from "../registry";
import { sessionResource } from "../resources";

/** Cursor: the position (an arrival number) of the last row of the previous page. */
const cursor = z
  .string()
  .regex(/^\d{1,16}$/, "must be a next_cursor value from a previous page")
  .transform(Number);

export const sessionRoutes = [
  route({
    operationId: "listSessions",
    method: "GET",
    path: "/api/v1/sessions",
    summary: "List a site's sessions of published days, newest first, with only what the reports show",
    tag: "Sessions",
    auth: "key",
    scope: "read:sessions",
    query: z.strictObject({
      site: siteId.meta({ param: { description: "Site id" } }),
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(500)
        .default(100)
        .meta({ param: { description: "Page size (1–500, default 100)." } }),
      cursor: cursor.optional().meta({ param: { description: "next_cursor from the previous page." } }),
    }),
    site: { from: "query", name: "site" },
    responses: {
      200: {
        description: "A page of sessions.",
        schema: z.object({
          sessions: z.array(sessionResource),
          next_cursor: z.string().nullable(),
          published_through: z.string().nullable().meta({ description: "The last published local day: no session after it is listed." }),
        }),
      },
    },
    async handle({ db, env, query, reply }) {
      const page = await listPublishedSessions(readOnly(db.$client), query.site, {
        limit: query.limit,
        before: query.cursor,
        kSetting: env.WREN_K_ANONYMITY,
      });
      return reply(200, {
        sessions: page.sessions,
        next_cursor: page.next === null ? null : String(page.next),
        published_through: page.publishedThrough,
      });
    },
  }),
];
