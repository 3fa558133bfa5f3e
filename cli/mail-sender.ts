/**
 * The mail sender of `wren start`: sends the workers' `mail_outbox` rows (worker/domain/mail.ts)
 * over SMTP with nodemailer. SMTP runs here, in the Node supervisor, rather than in a worker:
 * the SMTP credentials (WREN_SMTP_URL) stay out of every worker, and workerd needs no TCP
 * socket to the mail server (docs/operations.md, "Email (SMTP)").
 *
 * WREN_SMTP_URL is `smtp://user:pass@host:port` (STARTTLS when the server offers it, nodemailer's
 * default) or `smtps://…` (TLS from the first byte); WREN_MAIL_FROM is required with it. Rows
 * are claimed (claimed_by, claimed_until) before they are sent, so several supervisors on one
 * database never send one at the same time; each attempt is recorded (attempts, last_error). A
 * failed attempt waits WREN_MAIL_RETRY_SECONDS (default 30), doubling up to an hour, and is
 * tried again for as long as the server cannot be reached or answers with a temporary (4xx)
 * error, so mail is not lost while the server is down; a permanent (5xx) answer gives up after
 * MAX_PERMANENT_ATTEMPTS. Log lines name the row's id and purpose and the reason: never the
 * password, the recipient or the body.
 */
import { createClient, type Client } from "@libsql/client";
import { randomUUID } from "node:crypto";
import nodemailer from "nodemailer";
import { CliError } from "./output";

export const DEFAULT_MAIL_RETRY_MS = 30_000;
export const MAX_MAIL_DELAY_MS = 3_600_000;
export const MAX_PERMANENT_ATTEMPTS = 5;
const CLAIM_MS = 120_000;
const BATCH = 10;

export interface MailSettings {
  url: string;
  from: string;
  retryBaseMs: number;
  /**
   * smtp:// beyond this machine must upgrade with STARTTLS before the password is sent: a server
   * (or someone between) that does not offer it gets no plain-text credentials. smtps:// is TLS
   * from the start; a loopback relay needs neither.
   */
  requireTls: boolean;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

const ADDRESS = /^[^\s@<>",;]+@[^\s@<>",;]+$/;

/** WREN_SMTP_URL, WREN_MAIL_FROM and WREN_MAIL_RETRY_SECONDS, checked; null when no SMTP is configured. */
export function mailSettings(env: NodeJS.ProcessEnv): MailSettings | null {
  const raw = env.WREN_SMTP_URL?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CliError("WREN_SMTP_URL must be a URL: smtp://user:password@host:port or smtps://user:password@host:port");
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:")
    throw new CliError(`WREN_SMTP_URL must start with smtp:// or smtps://, got ${url.protocol}//`);
  if (!url.hostname) throw new CliError("WREN_SMTP_URL names no host");
  const from = env.WREN_MAIL_FROM?.trim();
  if (!from)
    throw new CliError(
      'WREN_MAIL_FROM is required with WREN_SMTP_URL: the sender address, e.g. wren@example.com or "Wren <wren@example.com>"',
    );
  const address = /<([^>]*)>\s*$/.exec(from)?.[1] ?? from;
  if (!ADDRESS.test(address) || /[\r\n]/.test(from))
    throw new CliError(`WREN_MAIL_FROM must be an email address, optionally with a name ("Wren <wren@example.com>")`);
  const retry = env.WREN_MAIL_RETRY_SECONDS?.trim();
  let retryBaseMs = DEFAULT_MAIL_RETRY_MS;
  if (retry) {
    const seconds = Number(retry);
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > 3600)
      throw new CliError(`WREN_MAIL_RETRY_SECONDS must be a whole number of seconds from 1 to 3600, got "${retry}"`);
    retryBaseMs = seconds * 1000;
  }
  return { url: raw, from, retryBaseMs, requireTls: url.protocol === "smtp:" && !LOOPBACK_HOSTS.has(url.hostname) };
}

/** The wait after failed attempt `attempt` (1-based): the base, doubling, at most an hour. */
export function mailRetryDelay(attempt: number, baseMs: number): number {
  return Math.min(MAX_MAIL_DELAY_MS, baseMs * 2 ** Math.min(attempt - 1, 20));
}

/** An error's reason, on one line, without the URL's user or password should it quote them. */
export function failureReason(error: unknown, settings: MailSettings): string {
  const e = error as { responseCode?: number; code?: string; message?: string };
  let reason = `${e.responseCode ? `SMTP ${e.responseCode}: ` : e.code ? `${e.code}: ` : ""}${(e.message ?? String(error)).split("\n")[0]}`;
  const url = new URL(settings.url);
  for (const secret of [settings.url, decodeURIComponent(url.password), url.password, decodeURIComponent(url.username)]) {
    if (secret) reason = reason.split(secret).join("***");
  }
  return reason.slice(0, 300);
}

export interface MailSenderOptions {
  settings: MailSettings;
  databaseUrl: string;
  databaseToken: string | undefined;
  /** The service's now (the real clock plus WREN_TEST_CLOCK_OFFSET_MS): rows are stamped on it. */
  now: () => number;
  log: (line: string) => void;
  /** How often the outbox is looked at (ms); default min(5 s, the retry base). */
  pollMs?: number;
}

export interface MailSender {
  /** One pass: claim what is due and send it; how many were sent. */
  pass(): Promise<number>;
  stop(): Promise<void>;
}

interface Row {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  purpose: string;
  attempts: number;
}

export function startMailSender(options: MailSenderOptions): MailSender {
  const { settings } = options;
  const holder = randomUUID();
  const client: Client = createClient({ url: options.databaseUrl, authToken: options.databaseToken });
  const transport = nodemailer.createTransport(settings.url, {
    from: settings.from,
    requireTLS: settings.requireTls,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  } as never);
  let running: Promise<number> | undefined;
  let stopped = false;

  async function pass(): Promise<number> {
    let sent = 0;
    for (;;) {
      const now = options.now();
      const claimed = await client.execute({
        sql:
          "UPDATE mail_outbox SET claimed_by = ?1, claimed_until = ?2 WHERE id IN (SELECT id FROM mail_outbox WHERE sent_at IS NULL " +
          "AND next_attempt_at IS NOT NULL AND next_attempt_at <= ?3 AND (claimed_until IS NULL OR claimed_until <= ?3) ORDER BY next_attempt_at, id LIMIT ?4) " +
          'RETURNING id, "to", subject, text, html, purpose, attempts',
        args: [holder, now + CLAIM_MS, now, BATCH],
      });
      if (claimed.rows.length === 0) return sent;
      for (const r of claimed.rows) {
        const row = r as unknown as Row;
        if (stopped) return sent;
        sent += (await sendRow(row)) ? 1 : 0;
      }
    }
  }

  async function sendRow(row: Row): Promise<boolean> {
    const attempt = Number(row.attempts) + 1;
    try {
      await transport.sendMail({
        from: settings.from,
        to: String(row.to),
        subject: String(row.subject),
        text: String(row.text),
        ...(row.html ? { html: String(row.html) } : {}),
      });
      await client.execute({
        // An invitation's body holds its one-time link: cleared once sent (domain/invitation-mail.ts).
        sql:
          "UPDATE mail_outbox SET sent_at = ?, attempts = ?, next_attempt_at = NULL, claimed_by = NULL, claimed_until = NULL, " +
          "text = CASE WHEN purpose = 'invitation' THEN '' ELSE text END, html = CASE WHEN purpose = 'invitation' THEN NULL ELSE html END " +
          "WHERE id = ? AND claimed_by = ?",
        args: [options.now(), attempt, row.id, holder],
      });
      return true;
    } catch (error) {
      const reason = failureReason(error, settings);
      const code = (error as { responseCode?: number }).responseCode;
      const permanent = code !== undefined && code >= 500;
      const giveUp = permanent && attempt >= MAX_PERMANENT_ATTEMPTS;
      const delay = mailRetryDelay(attempt, settings.retryBaseMs);
      await client.execute({
        sql: "UPDATE mail_outbox SET attempts = ?, last_error = ?, next_attempt_at = ?, claimed_by = NULL, claimed_until = NULL WHERE id = ? AND claimed_by = ?",
        args: [attempt, reason, giveUp ? null : options.now() + delay, row.id, holder],
      });
      options.log(
        `mail not sent: ${row.id} (${row.purpose}), attempt ${attempt}: ${reason}; ` +
          (giveUp ? "no more attempts" : `next attempt in ${Math.round(delay / 1000)} s`),
      );
      return false;
    }
  }

  const pollMs = options.pollMs ?? Math.min(5_000, settings.retryBaseMs);
  const tick = async () => {
    if (stopped || running) return;
    running = pass().catch((error: unknown) => {
      // A database away for a moment: the next tick tries again.
      options.log(`mail outbox unreadable: ${failureReason(error, settings)}`);
      return 0;
    });
    await running;
    running = undefined;
  };
  const timer = setInterval(() => void tick(), pollMs);
  timer.unref();
  void tick();
  return {
    pass,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      transport.close();
      client.close();
    },
  };
}
