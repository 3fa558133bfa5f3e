/** Path and query parameter schemas shared by the routes. */
import { z } from "zod";
import { deploymentId, goalId, keyId, siteId, alertRuleId } from "../lib/ids";

export const siteParams = z.strictObject({ id: siteId.meta({ param: { description: "Site id" } }) });
export const siteGoalParams = z.strictObject({
  id: siteId.meta({ param: { description: "Site id" } }),
  goal: goalId.meta({ param: { description: "Goal id" } }),
});
export const keyParams = z.strictObject({ id: keyId.meta({ param: { description: "Key id" } }) });
export const deploymentParams = z.strictObject({ id: deploymentId.meta({ param: { description: "Deployment id" } }) });

/** The page size of the lists that page by cursor (sessions, deployments). */
export const listLimit = z.coerce
  .number()
  .int()
  .min(1)
  .max(500)
  .default(100)
  .meta({ param: { description: "Page size (1–500, default 100)." } });

export const alertParams = z.strictObject({ id: alertRuleId.meta({ param: { description: "Alert rule id" } }) });
