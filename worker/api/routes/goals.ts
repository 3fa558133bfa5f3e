/** Goals of a site: create (returns the existing goal for the same kind and match), list, delete. */
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { insertGoal, listGoals } from "../../domain/goals";
import { goalCreateBody } from "../../domain/schemas";
import { getSite } from "../../domain/sites";
import type { Database } from "../../lib/db";
import { HttpProblem } from "../../lib/problem";
import { alertRules, conversions, goals } from "../../lib/schema";
import { siteGoalParams, siteParams } from "../params";
import { json, route } from "../registry";
import { goalResource, toGoal } from "../resources";

async function requireSiteExists(db: Database, id: string): Promise<void> {
  if (!(await getSite(db, id))) throw new HttpProblem(404, `No site ${id}.`, { field: "id" });
}

export const goalRoutes = [
  route({
    method: "POST",
    path: "/api/v1/sites/:id/goals",
    summary: "Create a goal (page, event, time or scroll)",
    tag: "Goals",
    scope: "write:goals",
    params: siteParams,
    body: goalCreateBody,
    site: { from: "params", name: "id" },
    responses: {
      201: { description: "Created.", schema: goalResource },
      200: { description: "A goal of the same kind, match and threshold exists: that goal.", schema: goalResource },
      404: { description: "No such site." },
    },
    async handle({ db, params, body }) {
      await requireSiteExists(db, params.id);
      const { goal, created } = await insertGoal(db, { siteId: params.id, ...body });
      return json(toGoal(goal), created ? 201 : 200);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/sites/:id/goals",
    summary: "A site's goals",
    tag: "Goals",
    scope: "read:sites",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: { 200: { description: "Goals.", schema: z.object({ goals: z.array(goalResource) }) }, 404: { description: "No such site." } },
    async handle({ db, params }) {
      await requireSiteExists(db, params.id);
      return json({ goals: (await listGoals(db, params.id)).map(toGoal) });
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/sites/:id/goals/:goal",
    summary: "Delete a goal (its conversions and alert rules go with it)",
    tag: "Goals",
    scope: "write:goals",
    params: siteGoalParams,
    site: { from: "params", name: "id" },
    responses: { 204: { description: "Deleted." }, 404: { description: "No such goal on this site." } },
    async handle({ db, params }) {
      const match = and(eq(goals.id, params.goal), eq(goals.siteId, params.id));
      const found = await db.select({ id: goals.id }).from(goals).where(match);
      if (found.length === 0) throw new HttpProblem(404, `No goal ${params.goal} on site ${params.id}.`, { field: "goal" });
      await db.batch([
        db.delete(conversions).where(eq(conversions.goalId, params.goal)),
        db.delete(alertRules).where(eq(alertRules.goalId, params.goal)),
        db.delete(goals).where(match),
      ]);
      return new Response(null, { status: 204 });
    },
  }),
];
