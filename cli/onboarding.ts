/**
 * First start: make the server secret and, when the database has no key yet, issue a first
 * admin key and print it once. Later starts change nothing.
 */
import { countKeys, issueKey } from "../worker/domain/apikeys";
import type { Database } from "../worker/lib/db";
import { ensureSecret } from "./secret";
import type { Settings } from "./settings";

export interface OnboardingResult {
  secretCreated: boolean;
  adminKey: { id: string; key: string } | null;
}

export async function onboard(settings: Settings, db: Database): Promise<OnboardingResult> {
  const { created: secretCreated } = ensureSecret(settings);
  if ((await countKeys(db)) > 0) return { secretCreated, adminKey: null };
  const { row, key } = await issueKey(db, { name: "first admin key", scopes: ["admin"], sites: null });
  return { secretCreated, adminKey: { id: row.id, key } };
}

export function onboardingMessage(result: OnboardingResult): string {
  if (!result.adminKey) return "";
  return [
    "",
    "  Welcome to Wren. Your first admin key (shown once, store it now):",
    "",
    `    ${result.adminKey.key}`,
    "",
    "  Make more keys, each with only the scopes it needs:",
    "    npx wren keys create --scopes read:reports --sites SITE_ID",
    "",
  ].join("\n");
}
