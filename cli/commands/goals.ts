/** `wren goals create|list --site SITE`: a site's goals, validated with the API's own body schema. */
import { parseArgs } from "node:util";
import { insertGoal, listGoals } from "../../worker/domain/goals";
import { goalCreateBody } from "../../worker/domain/schemas";
import { describeIssue } from "../../worker/lib/issues";
import { CliError, print, table } from "../output";
import type { Settings } from "../settings";
import { openSite } from "../site";

export async function goalsCommand(settings: Settings, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      site: { type: "string" },
      kind: { type: "string" },
      match: { type: "string" },
      threshold: { type: "string" },
      name: { type: "string" },
      purpose: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  if (action !== "create" && action !== "list") {
    throw new CliError(
      "usage: wren goals create --site S --kind page|event|time|scroll --match M [--threshold N] [--name N] [--purpose P] [--json] | goals list --site S",
      2,
    );
  }
  if (!values.site) throw new CliError("--site: a site id is required", 2);
  const { db, site } = await openSite(settings, values.site);

  if (action === "create") {
    const input = {
      name: values.name,
      kind: values.kind,
      match: values.match,
      threshold: values.threshold === undefined ? undefined : Number(values.threshold),
      purpose: values.purpose,
    };
    const parsed = goalCreateBody.safeParse(input);
    if (!parsed.success) {
      const { field, message } = describeIssue(parsed.error, input);
      throw new CliError(`--${field}: ${message}`, 2);
    }
    const { goal, created } = await insertGoal(db, { siteId: site.id, ...parsed.data });
    const out = { id: goal.id, site: goal.siteId, name: goal.name, kind: goal.kind, match: goal.match, threshold: goal.threshold, purpose: goal.purpose, created };
    print(values.json, out, () => `${created ? "Created" : "Already exists:"} goal ${goal.id} (${goal.kind} ${goal.match}).`);
    return;
  }
  const rows = (await listGoals(db, site.id)).map((g) => ({
    id: g.id,
    name: g.name,
    kind: g.kind,
    match: g.match,
    threshold: g.threshold,
    purpose: g.purpose,
  }));
  print(values.json, { goals: rows }, () => table(rows, ["id", "name", "kind", "match", "threshold", "purpose"]));
}
