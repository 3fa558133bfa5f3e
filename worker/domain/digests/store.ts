/**
 * Digest schedules of a site: make, list, find and delete them. A digest goes to up to
 * MAX_RECIPIENTS email addresses (only when mail is configured: domain/mail.ts) and/or one
 * existing alert destination of the same site (its webhook or Slack format and signing,
 * through the alert outbox). A new digest's first period is the next to end: `last_period_end`
 * starts at the end of the latest period that ended before today, so nothing is sent for a past
 * period at creation.
 */
import type { Client } from "@libsql/client/web";
import type { Database } from "../../lib/db";
import { newId } from "../../lib/ids";
import { HttpProblem } from "../../lib/problem";
import type { DigestFrequency } from "../../lib/schema";
import { effectiveZone } from "../../reports/rollup";
import { addDays, localDate } from "../../reports/timezone";
import { requireSite } from "../sites";
import { mailConfigured, mailNotConfigured, type MailBindings } from "../mail";
import { latestPeriodEnd } from "./period";

export const MAX_RECIPIENTS = 10;
/** Digests per site: each is composed once per period; a bound keeps a pass short. */
export const MAX_DIGESTS_PER_SITE = 20;

export interface Digest {
  id: string;
  siteId: string;
  frequency: DigestFrequency;
  emailTo: string[];
  destinationId: string | null;
  /** The destination's rule and format, when it still exists. */
  destination: { id: string; ruleId: string; url: string; format: "standard" | "slack" } | null;
  createdBy: string;
  createdAt: number;
  lastPeriodEnd: string | null;
}

export interface DigestInput {
  frequency: DigestFrequency;
  email_to?: string[] | undefined;
  destination_id?: string | undefined;
}

const SELECT =
  "SELECT d.id, d.site_id, d.frequency, d.email_to, d.destination_id, d.created_by, d.created_at, d.last_period_end, " +
  "a.rule_id AS dst_rule, a.url AS dst_url, a.format AS dst_format FROM digest_schedules d " +
  "LEFT JOIN alert_destinations a ON a.id = d.destination_id";

function toDigest(r: Record<string, unknown>): Digest {
  return {
    id: String(r.id),
    siteId: String(r.site_id),
    frequency: String(r.frequency) as DigestFrequency,
    emailTo: r.email_to === null ? [] : (JSON.parse(String(r.email_to)) as string[]),
    destinationId: r.destination_id === null ? null : String(r.destination_id),
    destination:
      r.dst_rule === null || r.dst_rule === undefined
        ? null
        : {
            id: String(r.destination_id),
            ruleId: String(r.dst_rule),
            url: String(r.dst_url),
            format: String(r.dst_format) as "standard" | "slack",
          },
    createdBy: String(r.created_by),
    createdAt: Number(r.created_at),
    lastPeriodEnd: r.last_period_end === null ? null : String(r.last_period_end),
  };
}

export async function loadDigests(client: Client, where: string, args: (string | number)[]): Promise<Digest[]> {
  const rs = await client.execute({ sql: `${SELECT} WHERE ${where} ORDER BY d.created_at, d.id`, args });
  return rs.rows.map((r) => toDigest(r as unknown as Record<string, unknown>));
}

export async function siteDigests(db: Database, siteId: string): Promise<Digest[]> {
  await requireSite(db, siteId);
  return loadDigests(db.$client, "d.site_id = ?", [siteId]);
}

const notFound = (id: string) => new HttpProblem(404, `digestId: no digest ${id} on this site.`, { field: "digestId" });

/** The digest `id` of `siteId`; 404 (one text whether it is absent or another site's). */
export async function requireDigest(db: Database, siteId: string, id: string): Promise<Digest> {
  const [digest] = await loadDigests(db.$client, "d.id = ? AND d.site_id = ?", [id, siteId]);
  if (!digest) throw notFound(id);
  return digest;
}

function invalid(field: string, message: string): HttpProblem {
  return new HttpProblem(422, `${field}: ${message}`, { field });
}

export async function createDigest(
  db: Database,
  siteId: string,
  input: DigestInput,
  env: MailBindings,
  createdBy: string,
  now: number,
): Promise<Digest> {
  const site = await requireSite(db, siteId);
  const emails = [...new Set((input.email_to ?? []).map((e) => e.toLowerCase()))];
  if (emails.length === 0 && input.destination_id === undefined)
    throw invalid("email_to", "give email_to or destination_id (or both).");
  if (emails.length > MAX_RECIPIENTS) throw invalid("email_to", `at most ${MAX_RECIPIENTS} addresses.`);
  if (emails.length > 0 && !mailConfigured(env)) throw mailNotConfigured("email_to");
  if (input.destination_id !== undefined) {
    const found = await db.$client.execute({
      sql: "SELECT 1 FROM alert_destinations a JOIN alert_rules r ON r.id = a.rule_id WHERE a.id = ? AND r.site_id = ?",
      args: [input.destination_id, siteId],
    });
    if (found.rows.length === 0) throw invalid("destination_id", `no alert destination ${input.destination_id} on this site.`);
  }
  const count = await db.$client.execute({ sql: "SELECT count(*) AS n FROM digest_schedules WHERE site_id = ?", args: [siteId] });
  if (Number(count.rows[0]!.n) >= MAX_DIGESTS_PER_SITE)
    throw new HttpProblem(409, `site: at most ${MAX_DIGESTS_PER_SITE} digests per site.`, { field: "site" });
  const zone = effectiveZone(site.timezone);
  const id = newId("dgs");
  await db.$client.execute({
    sql: "INSERT INTO digest_schedules (id, site_id, frequency, email_to, destination_id, created_by, created_at, last_period_end) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    args: [
      id,
      siteId,
      input.frequency,
      emails.length > 0 ? JSON.stringify(emails) : null,
      input.destination_id ?? null,
      createdBy,
      now,
      latestPeriodEnd(input.frequency, addDays(localDate(zone, now), -1)),
    ],
  });
  return requireDigest(db, siteId, id);
}

export async function deleteDigest(db: Database, siteId: string, id: string): Promise<Digest> {
  const digest = await requireDigest(db, siteId, id);
  await db.$client.execute({ sql: "DELETE FROM digest_schedules WHERE id = ? AND site_id = ?", args: [id, siteId] });
  return digest;
}

/** The statement that deletes a site's digests (domain/sites.ts deleteSite). */
export const siteDigestDeletes = (siteId: string) => ({ sql: "DELETE FROM digest_schedules WHERE site_id = ?", args: [siteId] });
