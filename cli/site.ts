/** The site a command names: the database opened, the site found, or a CliError saying there is none. */
import { getSite, type SiteRow } from "../worker/domain/sites";
import type { Database } from "../worker/lib/db";
import { openExistingDatabase } from "./database";
import { CliError } from "./output";
import type { Settings } from "./settings";

export async function openSite(settings: Settings, siteId: string): Promise<{ db: Database; site: SiteRow }> {
  const db = await openExistingDatabase(settings);
  const site = await getSite(db, siteId);
  if (!site) throw new CliError(`no site ${siteId}`, 1, "not_found");
  return { db, site };
}

/** The site a `--site` flag names (a usage error when it is missing). */
export async function openSiteFlag(settings: Settings, siteId: string | undefined): Promise<{ db: Database; site: SiteRow }> {
  if (!siteId) throw new CliError("--site: a site id is required", 2);
  return openSite(settings, siteId);
}
