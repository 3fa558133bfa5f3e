/** The sessions list: a site's anonymised sessions, newest first, paged by a stable keyset cursor. */
import { and, desc, eq, lt, or } from "drizzle-orm";
import type { Database } from "../lib/db";
import { sessions } from "../lib/schema";

export type SessionRow = typeof sessions.$inferSelect;

/** Where a page starts: right after the last row of the previous page. */
export interface SessionCursor {
  lastSeen: number;
  id: string;
}

export const encodeSessionCursor = (row: SessionCursor): string => `${row.lastSeen}.${row.id}`;

export async function listSessions(
  db: Database,
  siteId: string,
  page: { limit: number; after?: SessionCursor | undefined },
): Promise<{ sessions: SessionRow[]; next: SessionCursor | null }> {
  const { after, limit } = page;
  const rows = await db
    .select()
    .from(sessions)
    .where(
      and(
        eq(sessions.siteId, siteId),
        after
          ? or(lt(sessions.lastSeen, after.lastSeen), and(eq(sessions.lastSeen, after.lastSeen), lt(sessions.id, after.id)))
          : undefined,
      ),
    )
    .orderBy(desc(sessions.lastSeen), desc(sessions.id))
    .limit(limit + 1);
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return { sessions: shown, next: rows.length > limit && last ? { lastSeen: last.lastSeen, id: last.id } : null };
}
