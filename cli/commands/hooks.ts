/**
 * `wren hooks deployment SITE`: makes the site's inbound deployment webhook, or rotates its
 * secret, and prints the URL and the secret (shown this once; the previous secret stops at once).
 */
import { parseArgs } from "node:util";
import { rotateDeploymentHook } from "../../worker/domain/deployment-hook";
import { CliError, print } from "../output";
import { requireSecret } from "../secret";
import type { Settings } from "../settings";
import { openSite } from "../site";

export async function hooksCommand(settings: Settings, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: "boolean", default: false } },
  });
  const [kind, siteId] = positionals;
  if (kind !== "deployment" || !siteId || positionals.length > 2)
    throw new CliError("usage: wren hooks deployment SITE_ID [--json]", 2);
  const secret = requireSecret(settings);
  const { db, site } = await openSite(settings, siteId);
  const hook = await rotateDeploymentHook(db, secret, site.id, settings.publicUrl);
  print(values.json, { site: site.id, ...hook }, () =>
    [
      `Deployment webhook of ${site.id} (any earlier secret no longer works):`,
      `URL:    ${hook.url}`,
      `Secret: ${hook.secret}`,
      "In GitHub: Settings → Webhooks → Add webhook; Content type application/json; Let me select individual events → Deployment statuses.",
    ].join("\n"),
  );
}
