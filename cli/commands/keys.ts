/** `wren keys create|list|revoke`: API keys from the operator's shell; the secret is printed once. */
import { parseArgs } from "node:util";
import { issueKey, listKeys, revokeKey } from "../../worker/domain/apikeys";
import { keyCreateBody } from "../../worker/domain/schemas";
import { describeIssue } from "../../worker/lib/issues";
import { EVERY_SITE } from "../../worker/lib/keys";
import { openDatabase } from "../database";
import { CliError, print, table } from "../output";
import type { Settings } from "../settings";

const list = (value: string | undefined) => value?.split(",").map((s) => s.trim()).filter(Boolean);

/** How far a key reaches, in words (the rules are in worker/domain/access.ts). */
function describeSites(scopes: string[], sites: string[] | null): string {
  if (scopes.includes("admin")) return "every site (admin)";
  if (sites?.includes(EVERY_SITE)) return "every site";
  if (!sites || sites.length === 0) return "only the sites it creates";
  return `${sites.join(", ")} and the sites it creates`;
}

function reachesNoSite(scopes: string[], sites: string[] | null): boolean {
  return !scopes.includes("admin") && !scopes.includes("write:sites") && (sites ?? []).length === 0;
}

export async function keysCommand(settings: Settings, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      scopes: { type: "string" },
      sites: { type: "string" },
      name: { type: "string" },
      "rate-requests": { type: "string" },
      "rate-per-seconds": { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const db = await openDatabase(settings);
  const json = values.json;

  if (action === "create") {
    const rateRequests = values["rate-requests"];
    const input = {
      name: values.name,
      scopes: list(values.scopes) ?? [],
      sites: list(values.sites) ?? null,
      rate_limit: rateRequests
        ? { requests: Number(rateRequests), per_seconds: Number(values["rate-per-seconds"] ?? 60) }
        : undefined,
    };
    const parsed = keyCreateBody.safeParse(input);
    if (!parsed.success) {
      const { field, message } = describeIssue(parsed.error, input);
      throw new CliError(`--${field.split(".")[0]}: ${message}`, 2);
    }
    const body = parsed.data;
    const { row, key } = await issueKey(db, {
      name: body.name,
      scopes: body.scopes,
      sites: body.sites ?? null,
      rateLimit: body.rate_limit ? { requests: body.rate_limit.requests, perSeconds: body.rate_limit.per_seconds } : null,
    });
    print(json, { id: row.id, key, prefix: row.prefix, name: row.name, scopes: row.scopes, sites: row.sites }, () =>
      [
        `Created key ${row.id} (${row.scopes.join(", ")}; sites: ${describeSites(row.scopes, row.sites)}).`,
        `Key (shown once, store it now): ${key}`,
        ...(reachesNoSite(row.scopes, row.sites) ? ["Note: it can act on no site yet (it cannot create one): give it --sites SITE_ID,… or --sites '*'."] : []),
      ].join("\n"),
    );
    return;
  }
  if (action === "list") {
    const rows = await listKeys(db);
    const out = rows.map((r) => ({
      id: r.id,
      name: r.name,
      prefix: r.prefix,
      scopes: r.scopes,
      sites: r.sites,
      created_at: new Date(r.createdAt).toISOString(),
      last_used_at: r.lastUsedAt ? new Date(r.lastUsedAt).toISOString() : null,
    }));
    print(json, { keys: out }, () => table(out, ["id", "name", "prefix", "scopes", "sites", "last_used_at"]));
    return;
  }
  if (action === "revoke") {
    const id = positionals[0];
    if (!id) throw new CliError("usage: wren keys revoke KEY_ID", 2);
    await revokeKey(db, id);
    print(json, { id, revoked: true }, () => `Revoked ${id}.`);
    return;
  }
  throw new CliError("usage: wren keys create --scopes A,B [--sites S1,S2] [--name N] [--json] | keys list | keys revoke ID", 2);
}
