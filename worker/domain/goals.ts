/** Goals: what counts as a conversion. Creating an existing goal returns it. */
import { and, eq } from "drizzle-orm";
import { newId } from "../lib/crypto";
import type { Database } from "../lib/db";
import { goals, type GoalKind } from "../lib/schema";

export type GoalRow = typeof goals.$inferSelect;

export interface GoalInput {
  siteId: string;
  name: string;
  kind: GoalKind;
  match: string;
  threshold: number;
  purpose: string | null;
}

export async function insertGoal(db: Database, input: GoalInput): Promise<{ goal: GoalRow; created: boolean }> {
  const inserted = await db
    .insert(goals)
    .values({ id: newId("goal"), createdAt: Date.now(), ...input })
    .onConflictDoNothing()
    .returning();
  if (inserted[0]) return { goal: inserted[0], created: true };
  const existing = await db.query.goals.findFirst({
    where: and(
      eq(goals.siteId, input.siteId),
      eq(goals.kind, input.kind),
      eq(goals.match, input.match),
      eq(goals.threshold, input.threshold),
    ),
  });
  if (!existing) throw new Error("goal insert conflicted but no goal matches");
  return { goal: existing, created: false };
}

export async function listGoals(db: Database, siteId: string): Promise<GoalRow[]> {
  return db.select().from(goals).where(eq(goals.siteId, siteId)).orderBy(goals.createdAt, goals.id);
}
