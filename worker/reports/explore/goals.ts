/** The goals a filtered report lists: the same list, in the same order, as the unfiltered reports (atoms.ts). */
import type { ReadOnlyDatabase } from "../../lib/read-only";
import { reportGoalsStatement } from "../atoms";

export async function atomsGoalList(
  db: ReadOnlyDatabase,
  scope: { siteId: string },
): Promise<{ id: string; name: string; kind: string }[]> {
  const rs = await db.query(reportGoalsStatement(scope.siteId));
  return rs.rows.map((r) => ({ id: String(r.id), name: String(r.name), kind: String(r.kind) }));
}
