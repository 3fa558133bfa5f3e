/** `wren sites create|list`: registers sites as the operator (no key), with the snippet and s2s token. */
import { parseArgs } from "node:util";
import { siteCreateBody } from "../../worker/domain/schemas";
import { describeIssue } from "../../worker/lib/issues";
import { insertSite, listSites } from "../../worker/domain/sites";
import { snippetFor } from "../../worker/domain/snippet";
import { importHmacKey } from "../../worker/lib/crypto";
import { siteToken } from "../../worker/lib/tokens";
import { openDatabase } from "../database";
import { CliError, print, table } from "../output";
import { requireSecret } from "../secret";
import type { Settings } from "../settings";

export async function sitesCommand(settings: Settings, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: { name: { type: "string" }, domain: { type: "string" }, timezone: { type: "string" }, json: { type: "boolean", default: false } },
  });
  const db = await openDatabase(settings);

  if (action === "create") {
    const input = { name: values.name, domain: values.domain, timezone: values.timezone };
    const parsed = siteCreateBody.safeParse(input);
    if (!parsed.success) {
      const { field, message } = describeIssue(parsed.error, input);
      throw new CliError(`--${field}: ${message}`, 2);
    }
    const key = await importHmacKey(requireSecret(settings));
    const { site, created } = await insertSite(db, { ...parsed.data, createdByKey: null });
    const out = {
      id: site.id,
      name: site.name,
      domain: site.domain,
      allowlist: site.allowlist,
      timezone: site.timezone,
      snippet: snippetFor(settings.publicUrl, site.id),
      s2s_token: await siteToken(key, site.id, site.tokenVersion),
      created,
    };
    print(values.json, out, () =>
      [
        `${created ? "Created" : "Already registered:"} site ${out.id} for ${out.domain}.`,
        `Snippet:   ${out.snippet}`,
        `s2s token: ${out.s2s_token}`,
      ].join("\n"),
    );
    return;
  }
  if (action === "list") {
    const rows = (await listSites(db, null)).map((s) => ({
      id: s.id,
      name: s.name,
      domain: s.domain,
      created_at: new Date(s.createdAt).toISOString(),
    }));
    print(values.json, { sites: rows }, () => table(rows, ["id", "name", "domain", "created_at"]));
    return;
  }
  throw new CliError("usage: wren sites create --name N --domain D [--timezone Europe/Berlin] [--json] | sites list [--json]", 2);
}
