/**
 * First start: make the server secret and, when the database has no key yet, issue a first
 * admin key. Later starts change nothing. The key is shown once: on the terminal when there is
 * one; under a service manager (no TTY, output going to a journal that others may read) it is
 * written to a 0600 file in the data folder instead, and only the file's path is printed.
 *
 * Beside the key, the first start makes a one-time invitation for the first admin account
 * (admin of all sites): the operator opens it and registers a passkey. It is shown (or filed)
 * the same way as the key, and expires like any invitation (7 days); `wren people invite`
 * makes another.
 */
import { writeFileSync } from "node:fs";
import { countKeys, issueKey } from "../worker/domain/apikeys";
import { recordAudit, SYSTEM_ACTOR } from "../worker/domain/audit";
import { createInvitation, invitationLink } from "../worker/domain/people/invitations";
import type { Database } from "../worker/lib/db";
import { ensureSecret } from "./secret";
import { firstAdminInvitationFile, firstAdminKeyFile, type Settings } from "./settings";

export interface OnboardingResult {
  secretCreated: boolean;
  adminKey: { id: string; key: string } | null;
  /** The first admin account's invitation link (shown once). */
  adminInvitation?: string | null;
}

export async function onboard(settings: Settings, db: Database): Promise<OnboardingResult> {
  const { created: secretCreated } = ensureSecret(settings);
  if ((await countKeys(db)) > 0) return { secretCreated, adminKey: null, adminInvitation: null };
  const { row, key } = await issueKey(db, { name: "first admin key", scopes: ["admin"], sites: null });
  const invitation = await createInvitation(db, { siteId: "*", role: "admin", invitedBy: "system" });
  await recordAudit(db, {
    actor: SYSTEM_ACTOR,
    action: "account.invite",
    target: invitation.id,
    detail: { site: "*", role: "admin" },
  });
  return { secretCreated, adminKey: { id: row.id, key }, adminInvitation: invitationLink(settings.publicUrl, invitation.token) };
}

const MORE_KEYS = ["  Make more keys, each with only the scopes it needs:", "    npx wren keys create --scopes read:reports,read:sites,read:sessions --sites SITE_ID   # a viewer", ""];

/** What to print after onboarding ("" when nothing happened); writes the key file when not on a terminal. */
export function announceOnboarding(result: OnboardingResult, settings: Settings, terminal = process.stdout.isTTY === true): string {
  if (!result.adminKey) return "";
  const link = result.adminInvitation ?? null;
  if (terminal) {
    return [
      "",
      "  Welcome to Wren. Your first admin key (shown once, store it now):",
      "",
      `    ${result.adminKey.key}`,
      "",
      ...(link
        ? ["  Open this one-time link to make the first admin account with a passkey (expires in 7 days):", "", `    ${link}`, ""]
        : []),
      ...MORE_KEYS,
    ].join("\n");
  }
  const file = firstAdminKeyFile(settings);
  writeFileSync(file, `${result.adminKey.key}\n`, { mode: 0o600 });
  const linkFile = firstAdminInvitationFile(settings);
  if (link) writeFileSync(linkFile, `${link}\n`, { mode: 0o600 });
  return [
    "",
    `  Welcome to Wren. Your first admin key is in ${file} (mode 0600; no terminal to show it on).`,
    ...(link ? [`  The first admin account's one-time invitation link is in ${linkFile} (mode 0600).`] : []),
    "  Store them elsewhere, then delete the files.",
    "",
    ...MORE_KEYS,
  ].join("\n");
}
