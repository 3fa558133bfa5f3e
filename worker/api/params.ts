/** Path and query parameter schemas shared by the routes, and how a request's query is read for them. */
import { z } from "zod";
import { deploymentId, digestId, goalId, keyId, siteId, alertRuleId } from "../lib/ids";
import { HttpProblem } from "../lib/problem";

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

export const siteDigestParams = z.strictObject({
  id: siteId.meta({ param: { description: "Site id" } }),
  digestId: digestId.meta({ param: { description: "Digest id" } }),
});

export const alertParams = z.strictObject({ id: alertRuleId.meta({ param: { description: "Alert rule id" } }) });

/** The wrappers a query field's schema may sit in (optional, default, a coercion's pipe). */
interface WrappedDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
}

/** Whether `schema` (a query object) declares `name` a list: an array, however wrapped. */
function isListParam(schema: z.ZodType, name: string): boolean {
  let field: z.ZodType | undefined = (schema as Partial<z.ZodObject>).shape?.[name];
  while (field) {
    const def = field._zod.def as WrappedDef;
    if (def.type === "array") return true;
    field = def.innerType ?? def.in;
  }
  return false;
}

/**
 * A request's query as its route's schema is to read it: each parameter's one value, or every
 * value of a list parameter (an array in the schema), in order. A parameter that is not a list
 * and is given twice is a 400 naming it: keeping the first or the last value would answer a
 * different question than the one asked (`filter=country:DE&filter=source:Google` is not one
 * filter). Every route's query comes through here (api/pipeline.ts).
 */
export function queryValues(url: URL, schema: z.ZodType): Record<string, string | string[]> {
  const values: Record<string, string | string[]> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(name);
    if (isListParam(schema, name)) values[name] = all;
    else if (all.length > 1) throw new HttpProblem(400, `${name}: must be given once, not ${all.length} times.`, { field: name });
    else values[name] = all[0]!;
  }
  return values;
}
