/**
 * The inbound deployment webhook of a site, `POST /hooks/deployments/{site}`: its secret, and
 * what a verified delivery records.
 *
 * - **Secret.** `whsec_` + base64 of HMAC-SHA256(server secret, `deployment-hook:SITE:VERSION`):
 *   a Standard Webhooks secret (32 key bytes), which GitHub takes as it is. Never stored: it is
 *   recomputed from the server secret and the site's `deployment_hook_version`, which starts at
 *   0 (no hook: every delivery is refused) and is bumped by each `POST
 *   /api/v1/sites/{id}/deployment-hook`, so the previous secret stops verifying at once.
 * - **Deliveries.** GitHub `deployment_status` events whose state is `success` make a marker
 *   (external_id `github:<deployment id>`); any other state or event (`ping` too) is accepted and
 *   ignored. A Standard Webhooks delivery carries the API's body without `site`; its `webhook-id`
 *   is kept so a replay finds the marker it made. Nothing about who deployed is read or kept.
 * - **Replays.** A signed delivery stays valid for as long as the secret lives, so what a
 *   delivery recorded is remembered apart from its marker (`deployment_hook_receipts`: the
 *   GitHub deployment id, or the Standard Webhooks `webhook-id`). While the marker exists, the
 *   same delivery again (GitHub's "Redeliver" sends the same bytes and X-GitHub-Delivery) is a
 *   200 with that marker; once it has been deleted, a 202 that records nothing — a deleted
 *   marker stays deleted. The receipt is kept 48 h: older deliveries are refused by their age
 *   (`deployment_status.created_at` more than 24 h ago, `webhook-timestamp` more than 5 min
 *   off), so a receipt outlives every delivery it could match.
 */
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { hmacSha256, serverHmacKey, toBase64 } from "../lib/crypto";
import type { Database } from "../lib/db";
import { describeIssue } from "../lib/issues";
import { HttpProblem } from "../lib/problem";
import { deploymentHookReceipts, sites } from "../lib/schema";
import { WEBHOOK_SECRET_PREFIX } from "../lib/webhook-signature";
import {
  deploymentInput,
  findDeployment,
  markerIdOf,
  recordDeployment,
  type DeploymentInput,
  type DeploymentMarker,
} from "./deployments";
import { deployedAtProblem, deploymentHookBody } from "./schemas";
import { siteNotFound } from "./sites";
import { now as serviceNow } from "../lib/clock";

/** The secret of the site's hook at `version`. */
export async function deploymentHookSecret(serverSecret: string, siteId: string, version: number): Promise<string> {
  const mac = await hmacSha256(await serverHmacKey(serverSecret), `deployment-hook:${siteId}:${version}`);
  return WEBHOOK_SECRET_PREFIX + toBase64(mac);
}

export function deploymentHookUrl(baseUrl: string, siteId: string): string {
  return `${baseUrl}/hooks/deployments/${siteId}`;
}

/** The site's current hook version: null when there is no such site, 0 when it has no hook. */
export async function deploymentHookVersion(db: Database, siteId: string): Promise<number | null> {
  const row = await db.query.sites.findFirst({ columns: { deploymentHookVersion: true }, where: eq(sites.id, siteId) });
  return row ? row.deploymentHookVersion : null;
}

/**
 * Makes (or rotates) the site's hook: bumps its version and returns the new URL and secret,
 * which is shown this once. The previous secret stops verifying at once.
 */
export async function rotateDeploymentHook(
  db: Database,
  serverSecret: string,
  siteId: string,
  baseUrl: string,
): Promise<{ url: string; secret: string }> {
  const [row] = await db
    .update(sites)
    .set({ deploymentHookVersion: sql`${sites.deploymentHookVersion} + 1` })
    .where(eq(sites.id, siteId))
    .returning({ version: sites.deploymentHookVersion });
  if (!row) throw siteNotFound(siteId, "id");
  return { url: deploymentHookUrl(baseUrl, siteId), secret: await deploymentHookSecret(serverSecret, siteId, row.version) };
}

/** What a verified delivery asks for: a marker, or nothing (with the reason, for the sender's log). */
export type HookOutcome = { record: DeploymentInput } | { ignore: string };

/**
 * The part of a GitHub `deployment_status` payload Wren reads. Loose objects: GitHub sends much
 * more (the repository, the sender, the creator), which is dropped unread.
 */
const gitHubDeploymentStatus = z.object({
  deployment_status: z.object({
    state: z.string().max(100),
    environment: z.string().max(255).nullish(),
    environment_url: z.string().max(2048).nullish(),
    target_url: z.string().max(2048).nullish(),
    // Required: the delivery's age is what bounds a replay (module comment).
    created_at: z.string().max(64),
  }),
  deployment: z.object({
    id: z.union([z.number().int(), z.string().max(100)]),
    sha: z.string().max(128),
    environment: z.string().max(255).nullish(),
    description: z.string().max(100_000).nullish(),
  }),
});

function invalid(field: string, message: string): HttpProblem {
  return new HttpProblem(422, `${field}: ${message}`, { field });
}

/** The fields of a marker, checked with the API's own schema so a hook and the API agree. */
function checked(fields: Record<string, unknown>, where: (field: string) => string): DeploymentInput {
  const parsed = deploymentHookBody.safeParse(fields);
  if (!parsed.success) {
    const { field, message } = describeIssue(parsed.error, fields);
    throw invalid(where(field), message);
  }
  return deploymentInput(parsed.data, "webhook");
}

/** A GitHub delivery: `event` is its X-GitHub-Event header. */
export function gitHubDelivery(event: string | null, payload: unknown, now = serviceNow()): HookOutcome {
  if (event !== "deployment_status") {
    return {
      ignore: `GitHub event "${event ?? ""}" is not a deployment status; only deployment_status events with state success make a marker.`,
    };
  }
  const parsed = gitHubDeploymentStatus.safeParse(payload);
  if (!parsed.success) {
    const { field, message } = describeIssue(parsed.error, payload);
    throw invalid(field, message);
  }
  const { deployment_status: status, deployment } = parsed.data;
  if (status.state !== "success") return { ignore: `Deployment status "${status.state}" is not success; nothing was recorded.` };
  const createdAt = Date.parse(status.created_at);
  const why = deployedAtProblem(createdAt, now);
  if (why) throw invalid("deployment_status.created_at", why);
  const url = status.environment_url || status.target_url || null;
  // A free text GitHub passes on as its author typed it: kept printable and within bounds.
  const description = deployment.description
    ?.replace(/[^\P{Cc}\t\n\r]|\p{Cf}/gu, "")
    .slice(0, 1000)
    .trim();
  const environment = deployment.environment || status.environment || undefined;
  const fieldOf: Record<string, string> = {
    version: "deployment.sha",
    environment: "deployment.environment",
    description: "deployment.description",
    url: status.environment_url ? "deployment_status.environment_url" : "deployment_status.target_url",
  };
  const input = checked(
    {
      version: deployment.sha,
      ...(environment ? { environment } : {}),
      ...(description ? { description } : {}),
      ...(url ? { url } : {}),
    },
    (field) => fieldOf[field] ?? field,
  );
  return {
    record: { ...input, externalId: `github:${deployment.id}`, deployedAt: Math.min(createdAt, now), source: "github" },
  };
}

/** A Standard Webhooks delivery, already verified: the API's body without `site`. */
export function standardDelivery(webhookId: string, payload: unknown): HookOutcome {
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) throw invalid("body", "must be a JSON object");
  const input = checked(payload as Record<string, unknown>, (field) => field);
  return { record: { ...input, externalId: input.externalId ?? `webhook:${webhookId}`, webhookId } };
}

/** What a verified delivery that asks for a marker got: the marker (made or found), or nothing. */
export type HookRecorded = { marker: DeploymentMarker; created: boolean } | { ignore: string };

/** The receipt a delivery is remembered by (module comment). */
function receiptKey(record: DeploymentInput): string {
  return record.source === "github" ? record.externalId! : `webhook-id:${record.webhookId}`;
}

/**
 * Records a verified delivery's marker once: the marker again while it exists, nothing once it
 * has been deleted (module comment, Replays).
 */
export async function recordHookDelivery(
  db: Database,
  siteId: string,
  record: DeploymentInput,
  now = serviceNow(),
): Promise<HookRecorded> {
  const key = receiptKey(record);
  const [seen] = await db
    .select({ key: deploymentHookReceipts.key })
    .from(deploymentHookReceipts)
    .where(and(eq(deploymentHookReceipts.siteId, siteId), eq(deploymentHookReceipts.key, key)));
  if (seen) {
    const id = await markerIdOf(
      db,
      siteId,
      record.webhookId ? { webhookId: record.webhookId } : { externalId: record.externalId! },
    );
    const marker = id ? await findDeployment(db, siteId, id) : null;
    if (marker) return { marker, created: false };
    const what =
      record.source === "github"
        ? `GitHub deployment ${record.externalId!.slice("github:".length)}`
        : `Message ${record.webhookId}`;
    return {
      ignore: `${what} was recorded before and its marker has since been deleted; a delivery makes a marker once, so nothing was recorded.`,
    };
  }
  const recorded = await recordDeployment(db, siteId, record);
  await db.insert(deploymentHookReceipts).values({ siteId, key, createdAt: now }).onConflictDoNothing();
  return recorded;
}
