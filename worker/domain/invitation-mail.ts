/**
 * The invitation by email (issue 40): when an admin invites with an address and mail is
 * configured, the one-time link goes out through the mail outbox (domain/mail.ts) with the
 * role, the site and the expiry. Without mail configured nothing is queued and the admin hands
 * the link over themselves. The link's token is in the message only: the sender clears an
 * invitation's body once it is sent (cli/mail-sender.ts), so no live token stays in the outbox.
 */
import type { Database } from "../lib/db";
import { now } from "../lib/clock";
import { escapeHtml } from "./digests/render";
import { mailConfigured, mailStatement, type MailBindings } from "./mail";

export interface InvitationMail {
  email: string;
  /** The one-time link (people/invitations.ts invitationLink). */
  link: string;
  role: string;
  /** The site's name, or null for every site ("*"). */
  siteName: string | null;
  expiresAt: number;
  invitedBy: string;
}

export function invitationMessage(m: InvitationMail): { subject: string; text: string; html: string } {
  const where = m.siteName === null ? "all sites" : `the site ${m.siteName}`;
  const expires = new Date(m.expiresAt)
    .toISOString()
    .replace(/\.\d{3}Z$/, " UTC")
    .replace("T", " ");
  const lines = [
    `${m.invitedBy} invites you to Wren as ${m.role} of ${where}.`,
    "",
    `Accept (once; the link expires ${expires}):`,
    m.link,
    "",
    "If you did not expect this, ignore this message: nothing happens unless the link is opened.",
    "",
  ];
  const html =
    `<!doctype html><html><body><p>${escapeHtml(lines[0]!)}</p>` +
    `<p><a href="${escapeHtml(m.link)}">Accept the invitation</a> (once; the link expires ${escapeHtml(expires)}).</p>` +
    `<p>${escapeHtml(lines[5]!)}</p></body></html>`;
  return {
    subject: `You are invited to Wren (${m.role}, ${where})`.replace(/[\r\n]+/g, " ").slice(0, 200),
    text: lines.join("\n"),
    html,
  };
}

/** Queues the invitation mail when mail is configured; false (nothing queued) otherwise. */
export async function queueInvitationMail(
  db: Database,
  env: MailBindings,
  m: InvitationMail,
  at: number = now(),
): Promise<boolean> {
  if (!mailConfigured(env)) return false;
  const { subject, text, html } = invitationMessage(m);
  await db.$client.execute(mailStatement({ to: m.email, subject, text, html, purpose: "invitation" }, at));
  return true;
}
