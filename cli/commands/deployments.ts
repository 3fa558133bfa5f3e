/**
 * `wren deployments create|list --site SITE`: deployment markers as the operator (no key),
 * validated with the API's own body schema and recorded by the same domain code, so the CLI,
 * the API and the webhook make the same markers (idempotent per external id).
 */
import { deploymentInput, listDeployments, recordDeployment, type DeploymentMarker } from "../../worker/domain/deployments";
import { deploymentCreateBody } from "../../worker/domain/schemas";
import { describeIssue } from "../../worker/lib/issues";
import { CliError, print, table } from "../output";
import type { Settings } from "../settings";
import { openSiteFlag } from "../site";
import type { DEPLOYMENTS_CREATE_OPTIONS, DEPLOYMENTS_LIST_OPTIONS, Invocation } from "./registry";

/** Flag names as the CLI spells them, for the API field a problem names. */
const FLAG: Record<string, string> = { external_id: "external-id", deployed_at: "deployed-at" };

export async function createDeployment(
  settings: Settings,
  { values }: Invocation<typeof DEPLOYMENTS_CREATE_OPTIONS>,
): Promise<void> {
  const { db, site } = await openSiteFlag(settings, values.site);
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
    values.json ?? false,
    { ...marker, created },
    () =>
      `${created ? "Recorded" : "Already recorded:"} deployment ${marker.id} (${marker.version} to ${marker.environment} at ${marker.deployed_at}).`,
  );
}

export async function listDeploymentsCommand(
  settings: Settings,
  { values }: Invocation<typeof DEPLOYMENTS_LIST_OPTIONS>,
): Promise<void> {
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500)
    throw new CliError("--limit: must be a whole number from 1 to 500", 2);
  const { db, site } = await openSiteFlag(settings, values.site);
  const { deployments } = await listDeployments(db, site.id, { limit });
  const rows = deployments.map((d: DeploymentMarker) => ({
    id: d.id,
    version: d.version,
    environment: d.environment,
    deployed_at: d.deployed_at,
    source: d.source,
    smoke: d.smoke.length,
  }));
  print(values.json ?? false, { deployments }, () =>
    table(rows, ["id", "version", "environment", "deployed_at", "source", "smoke"]),
  );
}
