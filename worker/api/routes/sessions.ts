/** The sessions list: anonymised sessions of one site, newest first, with a stable cursor. */
import { z } from "zod";
import { encodeSessionCursor, listSessions } from "../../domain/sessions";
import { siteId } from "../../lib/ids";
import { route } from "../registry";
import { sessionResource, toSession } from "../resources";

/** Cursor: "lastSeen.id" of the last row of the previous page. */
const cursor = z
  .string()
  .regex(/^\d{1,16}\.[A-Za-z0-9_-]{1,100}$/, "must be a next_cursor value from a previous page")
  .transform((value) => {
    const dot = value.indexOf(".");
    return { lastSeen: Number(value.slice(0, dot)), id: value.slice(dot + 1) };
  });

export const sessionRoutes = [
  route({
    operationId: "listSessions",
    method: "GET",
    path: "/api/v1/sessions",
    summary: "List a site's anonymised sessions, newest first",
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
        schema: z.object({ sessions: z.array(sessionResource), next_cursor: z.string().nullable() }),
      },
    },
    async handle({ db, query, reply }) {
      const page = await listSessions(db, query.site, { limit: query.limit, after: query.cursor });
      return reply(200, {
        sessions: page.sessions.map(toSession),
        next_cursor: page.next ? encodeSessionCursor(page.next) : null,
      });
    },
  }),
];
