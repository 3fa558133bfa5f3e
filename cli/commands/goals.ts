/** `wren goals create|list --site SITE`: a site's goals, validated with the API's own body schema. */
import { insertGoal, listGoals } from "../../worker/domain/goals";
import { goalCreateBody } from "../../worker/domain/schemas";
import { describeIssue } from "../../worker/lib/issues";
import { CliError, print, table } from "../output";
import type { Settings } from "../settings";
import { openSiteFlag } from "../site";
import type { GOALS_CREATE_OPTIONS, GOALS_LIST_OPTIONS, Invocation } from "./registry";

export async function createGoal(settings: Settings, { values }: Invocation<typeof GOALS_CREATE_OPTIONS>): Promise<void> {
  const { db, site } = await openSiteFlag(settings, values.site);
  const input = {
    name: values.name,
    kind: values.kind,
    match: values.match,
    threshold: values.threshold === undefined ? undefined : Number(values.threshold),
    purpose: values.purpose,
    ...(values.currency === undefined ? {} : { revenue: { currency: values.currency } }),
  };
  const parsed = goalCreateBody.safeParse(input);
  if (!parsed.success) {
    const { field, message } = describeIssue(parsed.error, input);
    throw new CliError(`--${field === "revenue.currency" ? "currency" : field}: ${message}`, 2);
  }
  const { goal, created } = await insertGoal(db, { siteId: site.id, ...parsed.data });
  const out = {
    id: goal.id,
    site: goal.siteId,
    name: goal.name,
    kind: goal.kind,
    match: goal.match,
    threshold: goal.threshold,
    purpose: goal.purpose,
    currency: goal.currency,
    created,
  };
  print(
    values.json ?? false,
    out,
    () => `${created ? "Created" : "Already exists:"} goal ${goal.id} (${goal.kind} ${goal.match}).`,
  );
}

export async function listGoalsCommand(settings: Settings, { values }: Invocation<typeof GOALS_LIST_OPTIONS>): Promise<void> {
  const { db, site } = await openSiteFlag(settings, values.site);
  const rows = (await listGoals(db, site.id)).map((g) => ({
    id: g.id,
    name: g.name,
    kind: g.kind,
    match: g.match,
    threshold: g.threshold,
    purpose: g.purpose,
    currency: g.currency,
  }));
  print(values.json ?? false, { goals: rows }, () =>
    table(rows, ["id", "name", "kind", "match", "threshold", "purpose", "currency"]),
  );
}
