/**
 * The authenticator of signed webhook deliveries (auth kind `webhook-signature`): the body is
 * read under its bound as raw bytes, and its signature verified with WebCrypto against the
 * site's deployment-hook secret (domain/deployment-hook.ts) before anything is parsed or written.
 *
 * A delivery for an unknown site, for a site without a hook, or with a wrong, rotated or missing
 * signature gets one and the same 401: the hook tells no one without the secret which sites
 * exist. The secret is derived for an unknown site too (version 0, never handed out), so both
 * refusals take the same work.
 */
import { deploymentHookSecret, deploymentHookVersion } from "../domain/deployment-hook";
import type { Database } from "../lib/db";
import { hasMediaType, readBoundedBytes } from "../lib/body";
import { isSiteId } from "../lib/ids";
import { HttpProblem } from "../lib/problem";
import { verifyGitHubSignature, verifyStandardWebhook } from "../lib/webhook-signature";
import type { ApiEnv } from "./env";
import type { SignedDelivery } from "./registry";

export const HOOK_BODY_LIMIT = 1024 * 1024;

/** How a delivery is signed, as the OpenAPI document says it. */
export const HOOK_SIGNING = {
  description:
    "No API key: each delivery is signed with the site's deployment-hook secret (POST /api/v1/sites/{id}/deployment-hook), verified over the raw body before anything is read: X-Hub-Signature-256 (GitHub) or webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks).",
  headers: {
    "X-Hub-Signature-256": "GitHub: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string (`whsec_…`).",
    "X-GitHub-Event":
      "GitHub: the event; `deployment_status` makes a marker when its state is `success`, any other is accepted and ignored.",
    "webhook-id": "Standard Webhooks: the message id; a replayed id returns the marker it made.",
    "webhook-timestamp": "Standard Webhooks: Unix seconds, within 5 minutes of the server's clock.",
    "webhook-signature":
      "Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the base64-decoded secret after `whsec_` (space-separated for several).",
  },
};

/** The one refusal for a signature that does not verify, whatever the reason. */
function refused(field: string): HttpProblem {
  return new HttpProblem(
    401,
    "The delivery's signature does not verify: an unknown site, a site without a deployment hook, or a wrong or rotated secret.",
    { field },
  );
}

export async function authenticateDelivery(
  request: Request,
  env: ApiEnv,
  db: Database,
  siteId: string,
  maxBytes = HOOK_BODY_LIMIT,
): Promise<SignedDelivery> {
  if (!hasMediaType(request, "application/json")) {
    throw new HttpProblem(
      415,
      "Send the delivery as application/json (in GitHub's webhook settings: Content type application/json).",
      {
        field: "content-type",
      },
    );
  }
  const body = await readBoundedBytes(request, maxBytes);
  const headers = request.headers;
  const gitHubSignature = headers.get("x-hub-signature-256");
  const standardSignature = headers.get("webhook-signature");
  if (gitHubSignature === null && standardSignature === null) {
    throw new HttpProblem(
      401,
      "Sign the delivery: X-Hub-Signature-256 (GitHub), or webhook-id, webhook-timestamp and webhook-signature (Standard Webhooks).",
      { field: "signature" },
    );
  }

  const version = isSiteId(siteId) ? await deploymentHookVersion(db, siteId) : null;
  const hooked = version !== null && version > 0;
  const secret = await deploymentHookSecret(env.WREN_SECRET, siteId, hooked ? version : 0);

  if (gitHubSignature !== null) {
    const ok = await verifyGitHubSignature(secret, body, gitHubSignature);
    if (!ok || !hooked) throw refused("X-Hub-Signature-256");
    return { siteId, scheme: "github", body, gitHubEvent: headers.get("x-github-event"), webhookId: null };
  }
  const check = await verifyStandardWebhook(
    secret,
    body,
    { id: headers.get("webhook-id"), timestamp: headers.get("webhook-timestamp"), signature: standardSignature },
    Date.now(),
  );
  if (!check.ok && check.reason === "malformed") {
    throw new HttpProblem(401, "webhook-id, webhook-timestamp (Unix seconds) and webhook-signature are all required.", {
      field: "webhook-signature",
    });
  }
  if (!check.ok && check.reason === "stale" && hooked) {
    throw new HttpProblem(401, "webhook-timestamp is more than 5 minutes from the server's clock; send a fresh delivery.", {
      field: "webhook-timestamp",
    });
  }
  if (!check.ok || !hooked) throw refused("webhook-signature");
  return { siteId, scheme: "standard", body, gitHubEvent: null, webhookId: check.id };
}
