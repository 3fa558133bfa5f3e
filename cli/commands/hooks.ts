/**
 * `wren hooks deployment SITE`: makes the site's inbound deployment webhook, or rotates its
 * secret, and prints the URL (under WREN_PUBLIC_URL, as the snippet) and the secret (shown
 * this once; the previous secret stops at once).
 */
import { rotateDeploymentHook } from "../../worker/domain/deployment-hook";
import { print } from "../output";
import { requireSecret } from "../secret";
import { serviceUrl } from "../service-url";
import type { Settings } from "../settings";
import { openSite } from "../site";
import type { HOOKS_DEPLOYMENT_OPTIONS, Invocation } from "./registry";

export async function hooksCommand(
  settings: Settings,
  { values, positionals }: Invocation<typeof HOOKS_DEPLOYMENT_OPTIONS>,
): Promise<void> {
  const { db, site } = await openSite(settings, positionals[0]!);
  const hook = await rotateDeploymentHook(db, requireSecret(settings), site.id, serviceUrl(settings));
  print(values.json ?? false, { site: site.id, ...hook }, () =>
    [
      `Deployment webhook of ${site.id} (any earlier secret no longer works):`,
      `URL:    ${hook.url}`,
      `Secret: ${hook.secret}`,
      "In GitHub: Settings → Webhooks → Add webhook; Content type application/json; Let me select individual events → Deployment statuses.",
    ].join("\n"),
  );
}
