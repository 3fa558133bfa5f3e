/** `wren keys create|list|revoke`: API keys from the operator's shell; the secret is printed once. */
import { issueKey, listKeys, revokeKey } from "../../worker/domain/apikeys";
import { keyCreateBody } from "../../worker/domain/schemas";
import { describeIssue } from "../../worker/lib/issues";
import { EVERY_SITE, SCOPES } from "../../worker/lib/keys";
import { openExistingDatabase } from "../database";
import { CliError, print, table } from "../output";
import type { Settings } from "../settings";
import type { Invocation, KEYS_CREATE_OPTIONS, KEYS_LIST_OPTIONS, KEYS_REVOKE_OPTIONS } from "./registry";

const list = (value: string | undefined) =>
  value
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);

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

/** `wren keys create`: the body the API takes (its schema), issued by the same domain code (which refuses unknown sites). */
export async function createKey(settings: Settings, { values }: Invocation<typeof KEYS_CREATE_OPTIONS>): Promise<void> {
  const rateRequests = values["rate-requests"];
  const input = {
    name: values.name,
    scopes: list(values.scopes) ?? [],
    sites: list(values.sites) ?? null,
    rate_limit: rateRequests
      ? { requests: Number(rateRequests), per_seconds: Number(values["rate-per-seconds"] ?? 60) }
      : undefined,
  };
  // The scopes said plainly: which one is wrong and which there are, rather than the schema's words.
  const scopesHelp = `give one or more, comma-separated: ${SCOPES.join(", ")}`;
  if (input.scopes.length === 0) throw new CliError(`--scopes: no scope given; ${scopesHelp}`, 2);
  const unknown = input.scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0)
    throw new CliError(`--scopes: unknown scope ${unknown.map((s) => `"${s}"`).join(", ")}; ${scopesHelp}`, 2);
  const parsed = keyCreateBody.safeParse(input);
  if (!parsed.success) {
    const { field, message } = describeIssue(parsed.error, input);
    throw new CliError(`--${field.split(".")[0]}: ${message}`, 2);
  }
  const body = parsed.data;
  const db = await openExistingDatabase(settings);
  const { row, key } = await issueKey(db, {
    name: body.name,
    scopes: body.scopes,
    sites: body.sites ?? null,
    rateLimit: body.rate_limit ? { requests: body.rate_limit.requests, perSeconds: body.rate_limit.per_seconds } : null,
  });
  print(values.json ?? false, { id: row.id, key, prefix: row.prefix, name: row.name, scopes: row.scopes, sites: row.sites }, () =>
    [
      `Created key ${row.id} (${row.scopes.join(", ")}; sites: ${describeSites(row.scopes, row.sites)}).`,
      `Key (shown once, store it now): ${key}`,
      ...(reachesNoSite(row.scopes, row.sites)
        ? ["Note: it can act on no site yet (it cannot create one): give it --sites SITE_ID,… or --sites '*'."]
        : []),
    ].join("\n"),
  );
}

export async function listKeysCommand(settings: Settings, { values }: Invocation<typeof KEYS_LIST_OPTIONS>): Promise<void> {
  const rows = await listKeys(await openExistingDatabase(settings));
  const out = rows.map((r) => ({
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    scopes: r.scopes,
    sites: r.sites,
    created_at: new Date(r.createdAt).toISOString(),
    last_used_at: r.lastUsedAt ? new Date(r.lastUsedAt).toISOString() : null,
  }));
  print(values.json ?? false, { keys: out }, () => table(out, ["id", "name", "prefix", "scopes", "sites", "last_used_at"]));
}

export async function revokeKeyCommand(
  settings: Settings,
  { values, positionals }: Invocation<typeof KEYS_REVOKE_OPTIONS>,
): Promise<void> {
  const id = positionals[0]!;
  await revokeKey(await openExistingDatabase(settings), id);
  print(values.json ?? false, { id, revoked: true }, () => `Revoked ${id}.`);
}
