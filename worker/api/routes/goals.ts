/** Goals of a site: create (returns the existing goal for the same kind and match), list, rename, delete. */
import { z } from "zod";
import { auditActor, recordAudit } from "../../domain/audit";
import { createGoal, deleteGoal, goalsOfSite, updateGoal } from "../../domain/goals";
import { goalCreateBody, goalUpdateBody } from "../../domain/schemas";
import { siteGoalParams, siteParams } from "../params";
import { route } from "../registry";
import { goalResource, toGoal } from "../resources";

export const goalRoutes = [
  route({
    operationId: "createGoal",
    method: "POST",
    path: "/api/v1/sites/:id/goals",
    summary: "Create a goal (page, event, time or scroll)",
    tag: "Goals",
    auth: "key",
    scope: "write:goals",
    params: siteParams,
    body: goalCreateBody,
    site: { from: "params", name: "id" },
    responses: {
      201: { description: "Created.", schema: goalResource },
      200: { description: "A goal of the same kind, match and threshold exists: that goal.", schema: goalResource },
      404: { description: "No such site." },
    },
    async handle({ db, caller, params, body, reply }) {
      const { goal, created } = await createGoal(db, params.id, body);
      if (created)
        await recordAudit(db, {
          actor: auditActor(caller),
          action: "goal.create",
          siteId: params.id,
          target: goal.id,
          detail: { name: goal.name, kind: goal.kind },
        });
      return reply(created ? 201 : 200, toGoal(goal));
    },
  }),
  route({
    operationId: "listGoals",
    method: "GET",
    path: "/api/v1/sites/:id/goals",
    summary: "A site's goals",
    tag: "Goals",
    auth: "key",
    scope: "read:sites",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: {
      200: { description: "Goals.", schema: z.object({ goals: z.array(goalResource) }) },
      404: { description: "No such site." },
    },
    async handle({ db, params, reply }) {
      return reply(200, { goals: (await goalsOfSite(db, params.id)).map(toGoal) });
    },
  }),
  route({
    operationId: "updateGoal",
    method: "PATCH",
    path: "/api/v1/sites/:id/goals/:goal",
    summary: "Rename a goal or change its purpose (what it counts stays: make a new goal to count something else)",
    tag: "Goals",
    auth: "key",
    scope: "write:goals",
    params: siteGoalParams,
    body: goalUpdateBody,
    site: { from: "params", name: "id" },
    responses: {
      200: { description: "The goal as changed.", schema: goalResource },
      404: { description: "No such goal on this site." },
    },
    async handle({ db, caller, params, body, reply }) {
      const goal = await updateGoal(db, params.id, params.goal, body);
      await recordAudit(db, {
        actor: auditActor(caller),
        action: "goal.update",
        siteId: params.id,
        target: goal.id,
        detail: { fields: Object.keys(body) },
      });
      return reply(200, toGoal(goal));
    },
  }),
  route({
    operationId: "deleteGoal",
    method: "DELETE",
    path: "/api/v1/sites/:id/goals/:goal",
    summary: "Delete a goal (its conversions and alert rules go with it)",
    tag: "Goals",
    auth: "key",
    scope: "write:goals",
    params: siteGoalParams,
    site: { from: "params", name: "id" },
    responses: { 204: { description: "Deleted." }, 404: { description: "No such goal on this site." } },
    async handle({ db, caller, params, reply }) {
      await deleteGoal(db, params.id, params.goal);
      await recordAudit(db, { actor: auditActor(caller), action: "goal.delete", siteId: params.id, target: params.goal });
      return reply(204);
    },
  }),
];
