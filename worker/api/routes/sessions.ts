/** The sessions list: anonymised sessions of one site, newest first, with a stable cursor. */
import { and, desc, eq, lt, or } from "drizzle-orm";
import { z } from "zod";
import { sessions } from "../../lib/schema";
import { siteIdParam } from "../params";
import { json, route } from "../registry";
import { sessionResource } from "../resources";

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
    method: "GET",
    path: "/api/v1/sessions",
    summary: "List a site's anonymised sessions, newest first",
    tag: "Sessions",
    scope: "read:sessions",
    query: z.strictObject({
      site: siteIdParam.meta({ param: { description: "Site id" } }),
      limit: z.coerce.number().int().min(1).max(500).default(100).meta({ param: { description: "Page size (1–500, default 100)." } }),
      cursor: cursor.optional().meta({ param: { description: "next_cursor from the previous page." } }),
    }),
    site: { from: "query", name: "site" },
    responses: {
      200: {
        description: "A page of sessions.",
        schema: z.object({ sessions: z.array(sessionResource), next_cursor: z.string().nullable() }),
      },
    },
    async handle({ db, query }) {
      const after = query.cursor;
      const rows = await db
        .select()
        .from(sessions)
        .where(
          and(
            eq(sessions.siteId, query.site),
            after
              ? or(lt(sessions.lastSeen, after.lastSeen), and(eq(sessions.lastSeen, after.lastSeen), lt(sessions.id, after.id)))
              : undefined,
          ),
        )
        .orderBy(desc(sessions.lastSeen), desc(sessions.id))
        .limit(query.limit + 1);
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      return json({
        sessions: page.map((s) => ({
          id: s.id,
          first_seen: new Date(s.firstSeen).toISOString(),
          last_seen: new Date(s.lastSeen).toISOString(),
          entry_path: s.entryPath,
          pageviews: s.pageviews,
        })),
        next_cursor: rows.length > query.limit && last ? `${last.lastSeen}.${last.id}` : null,
      });
    },
  }),
];
