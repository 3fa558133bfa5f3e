/** `wren people invite`: a one-time invitation link from the operator's shell (shown once; only its hash is stored). */
import { recordAudit, SYSTEM_ACTOR } from "../../worker/domain/audit";
import { createInvitation, invitationLink } from "../../worker/domain/people/invitations";
import { ROLES, type Role } from "../../worker/domain/people/roles";
import { requireSite } from "../../worker/domain/sites";
import { EVERY_SITE } from "../../worker/lib/keys";
import { openExistingDatabase } from "../database";
import { CliError, print } from "../output";
import type { Settings } from "../settings";
import type { Invocation, PEOPLE_INVITE_OPTIONS } from "./registry";

export async function invitePerson(settings: Settings, { values }: Invocation<typeof PEOPLE_INVITE_OPTIONS>): Promise<void> {
  const role = values.role as Role;
  if (!(ROLES as readonly string[]).includes(role)) throw new CliError(`--role: give one of ${ROLES.join(", ")}`, 2);
  const site = (values.site ?? "").trim();
  const db = await openExistingDatabase(settings);
  if (site !== EVERY_SITE)
    await requireSite(db, site, "site").catch(() => Promise.reject(new CliError(`--site: no site ${site}`, 2)));
  const made = await createInvitation(db, { siteId: site, role, email: values.email ?? null, invitedBy: "system" });
  await recordAudit(db, {
    actor: SYSTEM_ACTOR,
    action: "account.invite",
    siteId: site === EVERY_SITE ? null : site,
    target: made.id,
    detail: { site, role },
  });
  const link = invitationLink(settings.publicUrl, made.token);
  print(values.json ?? false, { id: made.id, link, site, role, expires_at: new Date(made.expiresAt).toISOString() }, () =>
    [
      `Invitation ${made.id} (${role} on ${site === EVERY_SITE ? "every site" : site}), single use, expires ${new Date(made.expiresAt).toISOString()}.`,
      `Link (shown once): ${link}`,
    ].join("\n"),
  );
}
