/**
 * First start: make the server secret and, when the database has no key yet, issue a first
 * admin key. Later starts change nothing. The key is shown once: on the terminal when there is
 * one; under a service manager (no TTY, output going to a journal that others may read) it is
 * written to a 0600 file in the data folder instead, and only the file's path is printed.
 */
import { writeFileSync } from "node:fs";
import { countKeys, issueKey } from "../worker/domain/apikeys";
import type { Database } from "../worker/lib/db";
import { ensureSecret } from "./secret";
import { firstAdminKeyFile, type Settings } from "./settings";

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

const MORE_KEYS = ["  Make more keys, each with only the scopes it needs:", "    npx wren keys create --scopes read:reports,read:sites,read:sessions --sites SITE_ID   # a viewer", ""];

/** What to print after onboarding ("" when nothing happened); writes the key file when not on a terminal. */
export function announceOnboarding(result: OnboardingResult, settings: Settings, terminal = process.stdout.isTTY === true): string {
  if (!result.adminKey) return "";
  if (terminal) {
    return ["", "  Welcome to Wren. Your first admin key (shown once, store it now):", "", `    ${result.adminKey.key}`, "", ...MORE_KEYS].join("\n");
  }
  const file = firstAdminKeyFile(settings);
  writeFileSync(file, `${result.adminKey.key}\n`, { mode: 0o600 });
  return [
    "",
    `  Welcome to Wren. Your first admin key is in ${file} (mode 0600; no terminal to show it on).`,
    "  Store it elsewhere, then delete the file.",
    "",
    ...MORE_KEYS,
  ].join("\n");
}
