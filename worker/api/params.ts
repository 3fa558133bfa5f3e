/** Path and query parameter schemas shared by the routes. */
import { z } from "zod";

export const siteIdParam = z.string().regex(/^site_[A-Za-z0-9_-]{1,40}$/, "must be a site id (site_…)");
export const goalIdParam = z.string().regex(/^goal_[A-Za-z0-9_-]{1,40}$/, "must be a goal id (goal_…)");
export const keyIdParam = z.string().regex(/^key_[A-Za-z0-9_-]{1,40}$/, "must be a key id (key_…)");

export const siteParams = z.strictObject({ id: siteIdParam.meta({ param: { description: "Site id" } }) });
export const siteGoalParams = z.strictObject({
  id: siteIdParam.meta({ param: { description: "Site id" } }),
  goal: goalIdParam.meta({ param: { description: "Goal id" } }),
});
export const keyParams = z.strictObject({ id: keyIdParam.meta({ param: { description: "Key id" } }) });
