/**
 * The mail outbox's writing side: `enqueueMail` checks and stores one message per recipient;
 * the Node supervisor sends it (cli/mail-sender.ts). Workers never hold SMTP credentials and
 * need no TCP socket: they only write rows (docs/operations.md, "Email (SMTP)").
 *
 * Bounded: an address as zod's email check takes it (no display names, no line breaks, so no
 * header can be smuggled in), at most MAX_ADDRESS characters; a subject without line breaks;
 * text and HTML bodies of bounded size. A message that breaks a bound is a 422 naming the
 * field and writes nothing.
 *
 * Mail is configured when `wren start` was given WREN_SMTP_URL: it then sets WREN_MAIL=smtp
 * for the workers (never the URL). Without it no mail row is made: callers check
 * `mailConfigured` first (an email digest is refused with 409, an invitation keeps its link).
 */
import type { InStatement } from "@libsql/client/web";
import { z } from "zod";
import { newId } from "../lib/ids";
import { HttpProblem } from "../lib/problem";
import type { MailPurpose } from "../lib/schema";
import type { Database } from "../lib/db";
import { now } from "../lib/clock";

export const MAX_ADDRESS = 254;
export const MAX_SUBJECT = 200;
export const MAX_TEXT = 64 * 1024;
export const MAX_HTML = 256 * 1024;

/** One email address as Wren accepts it: what the API's schemas and enqueueMail check. */
export const emailAddress = z.email("must be an email address (name@example.com)").max(MAX_ADDRESS);

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string | null;
  purpose: MailPurpose;
}

/** The bindings that say whether mail is configured. */
export interface MailBindings {
  /** `smtp` when `wren start` has WREN_SMTP_URL (set by it, not by the operator). */
  WREN_MAIL?: string | null;
}

export function mailConfigured(env: MailBindings): boolean {
  return env.WREN_MAIL === "smtp";
}

/** The 409 an email digest (or any mail) gets when no SMTP server is configured. */
export function mailNotConfigured(field: string): HttpProblem {
  return new HttpProblem(
    409,
    `${field}: mail is not configured on this server (WREN_SMTP_URL, docs/operations.md "Email (SMTP)").`,
    { field },
  );
}

function invalid(field: string, message: string): HttpProblem {
  return new HttpProblem(422, `${field}: ${message}`, { field });
}

/** Checks a message against the bounds above; a 422 naming the field otherwise. */
export function checkMail(mail: Mail): void {
  if (!emailAddress.safeParse(mail.to).success) throw invalid("to", "must be an email address (name@example.com).");
  if (mail.subject.length === 0 || mail.subject.length > MAX_SUBJECT || /[\r\n]/.test(mail.subject))
    throw invalid("subject", `must be 1–${MAX_SUBJECT} characters on one line.`);
  if (mail.text.length > MAX_TEXT) throw invalid("text", `must be at most ${MAX_TEXT} characters.`);
  if (mail.html && mail.html.length > MAX_HTML) throw invalid("html", `must be at most ${MAX_HTML} characters.`);
}

/**
 * The statement that queues `mail` (checked first). `id` makes it idempotent (INSERT OR
 * IGNORE): a digest's rows are named after the digest, period and recipient, so a second
 * pass queues nothing.
 */
export function mailStatement(mail: Mail, now: number, id: string = newId("mail")): InStatement {
  checkMail(mail);
  return {
    sql:
      'INSERT OR IGNORE INTO mail_outbox (id, "to", subject, text, html, purpose, created_at, attempts, next_attempt_at) ' +
      "VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)",
    args: [id, mail.to, mail.subject, mail.text, mail.html ?? null, mail.purpose, now, now],
  };
}

/** Queues one message for the supervisor to send; its id. */
export async function enqueueMail(db: Database, mail: Mail, at: number = now()): Promise<string> {
  const id = newId("mail");
  await db.$client.execute(mailStatement(mail, at, id));
  return id;
}
