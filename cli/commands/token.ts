/** `wren token SITE`: prints the site's current s2s token (for X-Service-Token). */
import { parseArgs } from "node:util";
import { importHmacKey } from "../../worker/lib/crypto";
import { siteToken } from "../../worker/lib/tokens";
import { CliError, print } from "../output";
import { requireSecret } from "../secret";
import type { Settings } from "../settings";
import { openSite } from "../site";

export async function tokenCommand(settings: Settings, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { json: { type: "boolean", default: false } } });
  const siteId = positionals[0];
  if (!siteId) throw new CliError("usage: wren token SITE_ID [--json]", 2);
  const { site } = await openSite(settings, siteId);
  const token = await siteToken(await importHmacKey(requireSecret(settings)), site.id, site.tokenVersion);
  print(values.json, { id: site.id, s2s_token: token }, () => token);
}
