/**
 * `wren sites create|list`: registers sites as the operator (no key), with the snippet and s2s
 * token. The snippet points at the public URL `npm start` serves on: the command's own settings
 * (WREN_PUBLIC_URL, else http://HOST:PORT) when given, else the last start's (cli/service-url.ts).
 */
import { siteCreateBody } from "../../worker/domain/schemas";
import { describeIssue } from "../../worker/lib/issues";
import { insertSite, listSites } from "../../worker/domain/sites";
import { snippetFor } from "../../worker/domain/snippet";
import { importHmacKey } from "../../worker/lib/crypto";
import { siteToken } from "../../worker/lib/tokens";
import { openExistingDatabase } from "../database";
import { CliError, print, table } from "../output";
import { requireSecret } from "../secret";
import { serviceUrl } from "../service-url";
import type { Settings } from "../settings";
import type { Invocation, SITES_CREATE_OPTIONS, SITES_LIST_OPTIONS } from "./registry";

export async function createSite(settings: Settings, { values }: Invocation<typeof SITES_CREATE_OPTIONS>): Promise<void> {
  const input = { name: values.name, domain: values.domain, timezone: values.timezone };
  const parsed = siteCreateBody.safeParse(input);
  if (!parsed.success) {
    const { field, message } = describeIssue(parsed.error, input);
    throw new CliError(`--${field}: ${message}`, 2);
  }
  const db = await openExistingDatabase(settings);
  const key = await importHmacKey(requireSecret(settings));
  const { site, created } = await insertSite(db, { ...parsed.data, createdByKey: null });
  const out = {
    id: site.id,
    name: site.name,
    domain: site.domain,
    allowlist: site.allowlist,
    timezone: site.timezone,
    snippet: snippetFor(serviceUrl(settings), site.id),
    s2s_token: await siteToken(key, site.id, site.tokenVersion),
    created,
  };
  print(values.json ?? false, out, () =>
    [
      `${created ? "Created" : "Already registered:"} site ${out.id} for ${out.domain}.`,
      `Snippet:   ${out.snippet}`,
      `s2s token: ${out.s2s_token}`,
    ].join("\n"),
  );
}

export async function listSitesCommand(settings: Settings, { values }: Invocation<typeof SITES_LIST_OPTIONS>): Promise<void> {
  const rows = (await listSites(await openExistingDatabase(settings), null)).map((s) => ({
    id: s.id,
    name: s.name,
    domain: s.domain,
    timezone: s.timezone,
    created_at: new Date(s.createdAt).toISOString(),
  }));
  print(values.json ?? false, { sites: rows }, () => table(rows, ["id", "name", "domain", "timezone", "created_at"]));
}
