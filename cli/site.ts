/** The site a command names: the database opened, the site found, or a CliError saying there is none. */
import { getSite, type SiteRow } from "../worker/domain/sites";
import type { Database } from "../worker/lib/db";
import { openDatabase } from "./database";
import { CliError } from "./output";
import type { Settings } from "./settings";

export async function openSite(settings: Settings, siteId: string): Promise<{ db: Database; site: SiteRow }> {
  const db = await openDatabase(settings);
  const site = await getSite(db, siteId);
  if (!site) throw new CliError(`no site ${siteId}`);
  return { db, site };
}
