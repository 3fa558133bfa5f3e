/**
 * `wren deployments create|list --site SITE`: deployment markers as the operator (no key),
 * validated with the API's own body schema and recorded by the same domain code, so the CLI,
 * the API and the webhook make the same markers (idempotent per external id).
 */
import { parseArgs } from "node:util";
import { deploymentInput, listDeployments, recordDeployment, type DeploymentMarker } from "../../worker/domain/deployments";
import { deploymentCreateBody } from "../../worker/domain/schemas";
import { describeIssue } from "../../worker/lib/issues";
import { CliError, print, table } from "../output";
import type { Settings } from "../settings";
import { openSite } from "../site";

const USAGE =
  "usage: wren deployments create --site S --version V [--environment E] [--external-id X] [--description D] [--url U] [--deployed-at T] [--json]" +
  " | deployments list --site S [--limit N] [--json]";

/** Flag names as the CLI spells them, for the API field a problem names. */
const FLAG: Record<string, string> = { external_id: "external-id", deployed_at: "deployed-at" };

export async function deploymentsCommand(settings: Settings, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      site: { type: "string" },
      version: { type: "string" },
      environment: { type: "string" },
      "external-id": { type: "string" },
      description: { type: "string" },
      url: { type: "string" },
      "deployed-at": { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  if (action !== "create" && action !== "list") throw new CliError(USAGE, 2);
  if (!values.site) throw new CliError("--site: a site id is required", 2);
  const { db, site } = await openSite(settings, values.site);

  if (action === "create") {
    const input = {
      site: site.id,
      version: values.version,
      environment: values.environment,
      external_id: values["external-id"],
      description: values.description,
      url: values.url,
      deployed_at: values["deployed-at"],
    };
    const parsed = deploymentCreateBody.safeParse(input);
    if (!parsed.success) {
      const { field, message } = describeIssue(parsed.error, input);
      throw new CliError(`--${FLAG[field] ?? field}: ${message}`, 2);
    }
    const { marker, created } = await recordDeployment(db, site.id, deploymentInput(parsed.data, "api"));
    print(
      values.json,
      { ...marker, created },
      () =>
        `${created ? "Recorded" : "Already recorded:"} deployment ${marker.id} (${marker.version} to ${marker.environment} at ${marker.deployed_at}).`,
    );
    return;
  }
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500)
    throw new CliError("--limit: must be a whole number from 1 to 500", 2);
  const { deployments } = await listDeployments(db, site.id, { limit });
  const rows = deployments.map((d: DeploymentMarker) => ({
    id: d.id,
    version: d.version,
    environment: d.environment,
    deployed_at: d.deployed_at,
    source: d.source,
    smoke: d.smoke.length,
  }));
  print(values.json, { deployments }, () => table(rows, ["id", "version", "environment", "deployed_at", "source", "smoke"]));
}
