/** `wren token SITE`: prints the site's current s2s token (for X-Service-Token). */
import { importHmacKey } from "../../worker/lib/crypto";
import { siteToken } from "../../worker/lib/tokens";
import { print } from "../output";
import { requireSecret } from "../secret";
import type { Settings } from "../settings";
import { openSite } from "../site";
import type { Invocation, TOKEN_OPTIONS } from "./registry";

export async function tokenCommand(settings: Settings, { values, positionals }: Invocation<typeof TOKEN_OPTIONS>): Promise<void> {
  const { site } = await openSite(settings, positionals[0]!);
  const token = await siteToken(await importHmacKey(requireSecret(settings)), site.id, site.tokenVersion);
  print(values.json ?? false, { id: site.id, s2s_token: token }, () => token);
}
