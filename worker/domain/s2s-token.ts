/**
 * Handing out a site's s2s token. Whoever holds the token can post conversions for the site,
 * so it goes only to a key that may itself write events; any other key learns the site but
 * not its token.
 */
import { serverHmacKey } from "../lib/crypto";
import { siteToken } from "../lib/tokens";
import type { Caller } from "./access";
import type { SiteRow } from "./sites";

export async function s2sTokenFor(caller: Caller, serverSecret: string, site: SiteRow): Promise<string | undefined> {
  if (!caller.hasScope("write:events")) return undefined;
  return siteToken(await serverHmacKey(serverSecret), site.id, site.tokenVersion);
}
