/**
 * Goals: what counts as a conversion. Creating an existing goal returns it; a goal is looked
 * up within its site only (`requireGoal`), so one site's goal id never reaches another's data.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "../lib/db";
import { newId } from "../lib/ids";
import { HttpProblem } from "../lib/problem";
import type { InStatement, InValue } from "@libsql/client/web";
import { conversions, goals, isSmokeTestGoal, smokeConversions, type GoalKind } from "../lib/schema";
import { ruleDeletes } from "./alert-rules";
import { requireSite } from "./sites";
import { now } from "../lib/clock";

export type GoalRow = typeof goals.$inferSelect;

export interface GoalInput {
  name: string;
  kind: GoalKind;
  match: string;
  threshold: number;
  purpose: string | null;
  /** A revenue goal's ISO 4217 code, or null. */
  currency?: string | null;
}

/** Inserts a goal; the same kind, match and threshold again returns the existing goal. */
export async function insertGoal(
  db: Database,
  input: GoalInput & { siteId: string },
): Promise<{ goal: GoalRow; created: boolean }> {
  const inserted = await db
    .insert(goals)
    .values({ id: newId("goal"), createdAt: now(), ...input })
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

/** Creates a goal on an existing site (404 when there is none). */
export async function createGoal(db: Database, siteId: string, input: GoalInput): Promise<{ goal: GoalRow; created: boolean }> {
  await requireSite(db, siteId);
  return insertGoal(db, { siteId, ...input });
}

/** A site's goals in creation order: two created in one millisecond keep their insert order (rowid), not their random ids'. */
export async function listGoals(db: Database, siteId: string): Promise<GoalRow[]> {
  return db.select().from(goals).where(eq(goals.siteId, siteId)).orderBy(goals.createdAt, sql`rowid`);
}

/** The goals of an existing site (404 when there is none). */
export async function goalsOfSite(db: Database, siteId: string): Promise<GoalRow[]> {
  await requireSite(db, siteId);
  return listGoals(db, siteId);
}

/** The site's goal, or a 404 naming the request field that carried its id. */
export async function requireGoal(db: Database, siteId: string, goalId: string, field = "goal"): Promise<GoalRow> {
  const goal = await db.query.goals.findFirst({ where: and(eq(goals.id, goalId), eq(goals.siteId, siteId)) });
  if (!goal) throw new HttpProblem(404, `No goal ${goalId} on site ${siteId}.`, { field });
  return goal;
}

/**
 * Checks goal ids a query refers to (a funnel's steps, a timeseries' goal): each must be a
 * goal of the site, else a 422 naming the query field and the first stranger.
 */
/**
 * The goals a report is asked about: each must be a goal of the site, and not a smoke-test goal,
 * whose synthetic conversions stay out of every report and are listed with their deployment
 * markers instead. 422 naming `field` otherwise.
 */
export async function requireReportGoals(db: Database, siteId: string, goalIds: string[], field: string): Promise<void> {
  if (goalIds.length === 0) return;
  const found = await db
    .select({ id: goals.id, kind: goals.kind, purpose: goals.purpose })
    .from(goals)
    .where(and(eq(goals.siteId, siteId), inArray(goals.id, goalIds)));
  const byId = new Map(found.map((g) => [g.id, g]));
  for (const id of goalIds) {
    const goal = byId.get(id);
    if (!goal) throw new HttpProblem(422, `${field}: ${id} is not a goal of this site.`, { field });
    if (isSmokeTestGoal(goal))
      throw new HttpProblem(422, `${field}: ${id} is a smoke-test goal; its conversions are listed with the deployments (GET /api/v1/deployments), not in reports.`, {
        field,
      });
  }
}

/**
 * Renames a goal or changes its purpose. A goal's purpose may not turn it into a smoke-test goal
 * or back: smoke conversions are read exactly and kept out of reports, so the switch would
 * show a visitor goal's small groups exactly, or pour synthetic conversions into reports.
 */
export async function updateGoal(
  db: Database,
  siteId: string,
  goalId: string,
  changes: { name?: string; purpose?: string | null; revenue?: { currency: string } },
): Promise<GoalRow> {
  const goal = await requireGoal(db, siteId, goalId);
  // A currency is set once: changing it would add two currencies into one figure (no rates).
  const currency = changes.revenue?.currency ?? goal.currency;
  if (goal.currency !== null && currency !== goal.currency) {
    throw new HttpProblem(422, `revenue.currency: this goal's revenue is in ${goal.currency} and cannot change; create a new goal.`, {
      field: "revenue.currency",
    });
  }
  const purpose = changes.purpose === undefined ? goal.purpose : changes.purpose;
  if (isSmokeTestGoal(goal) !== isSmokeTestGoal({ kind: goal.kind, purpose })) {
    throw new HttpProblem(422, "A goal cannot become a smoke-test goal or stop being one; create a new goal.", {
      field: "purpose",
    });
  }
  const [updated] = await db
    .update(goals)
    .set({ name: changes.name ?? goal.name, purpose, currency })
    .where(and(eq(goals.id, goalId), eq(goals.siteId, siteId)))
    .returning();
  if (!updated) throw new HttpProblem(404, `No goal ${goalId} on site ${siteId}.`, { field: "goal" });
  return updated;
}

/**
 * Deletes a site's goal with its conversions (smoke-test records too) and alert rules (with
 * their destinations, history and undelivered notifications), in one transaction.
 */
export async function deleteGoal(db: Database, siteId: string, goalId: string): Promise<void> {
  await requireGoal(db, siteId, goalId);
  const statement = (query: { toSQL(): { sql: string; params: unknown[] } }): InStatement => {
    const { sql, params } = query.toSQL();
    return { sql, args: params as InValue[] };
  };
  await db.$client.batch(
    [
      statement(db.delete(smokeConversions).where(eq(smokeConversions.goalId, goalId))),
      statement(db.delete(conversions).where(eq(conversions.goalId, goalId))),
      ...ruleDeletes("goal_id = ?", [goalId]),
      statement(db.delete(goals).where(and(eq(goals.id, goalId), eq(goals.siteId, siteId)))),
    ],
    "write",
  );
}
