/**
 * Scheduled digests and the mail outbox (issue 40, part D).
 *
 * - `digest_schedules`: a site's weekly or monthly digest, to email addresses and/or one alert
 *   destination. `last_period_end` (the last local date of the last period queued) makes the
 *   scheduler's queueing once per period (worker/alerts/digests.ts).
 * - `mail_outbox`: one row per message and recipient, written by the workers, sent by the Node
 *   supervisor (cli/mail-sender.ts) over SMTP: the SMTP credentials never reach a worker. A row is
 *   claimed (claimed_by, claimed_until) before it is sent, so two supervisors on one database
 *   never send it twice at once; `next_attempt_at` is NULL once it is sent or given up.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const DIGEST_FREQUENCIES = ["weekly", "monthly"] as const;
export type DigestFrequency = (typeof DIGEST_FREQUENCIES)[number];
export const MAIL_PURPOSES = ["digest", "invitation"] as const;
export type MailPurpose = (typeof MAIL_PURPOSES)[number];

export const digestSchedules = sqliteTable(
  "digest_schedules",
  {
    id: text("id").primaryKey(),
    siteId: text("site_id").notNull(),
    frequency: text("frequency", { enum: DIGEST_FREQUENCIES }).notNull(),
    /** JSON array of addresses, or NULL. */
    emailTo: text("email_to"),
    /** An alert destination (alert_destinations.id), or NULL. */
    destinationId: text("destination_id"),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull(),
    /** The last local date (YYYY-MM-DD) of the last period queued; the next is due after it. */
    lastPeriodEnd: text("last_period_end"),
  },
  (t) => [index("digest_schedules_site").on(t.siteId)],
);

export const mailOutbox = sqliteTable(
  "mail_outbox",
  {
    id: text("id").primaryKey(),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html"),
    purpose: text("purpose", { enum: MAIL_PURPOSES }).notNull(),
    createdAt: integer("created_at").notNull(),
    sentAt: integer("sent_at"),
    attempts: integer("attempts").notNull().default(0),
    /** The last failure's reason (the SMTP answer or the error), never the password or the body. */
    lastError: text("last_error"),
    /** When the row may be tried next; NULL once sent or given up. */
    nextAttemptAt: integer("next_attempt_at"),
    claimedBy: text("claimed_by"),
    claimedUntil: integer("claimed_until"),
  },
  (t) => [index("mail_outbox_due").on(t.nextAttemptAt)],
);
