/**
 * Queues the digests whose period has ended (issue 40): on each scheduler alarm, for every
 * digest whose next period's last local day is published, compose it (reports/digest.ts: the
 * API's figures for that period and the one before), render it (domain/digests/render.ts) and
 * write, in one transaction, its mail rows (domain/mail.ts; only when mail is configured), its
 * alert-outbox row to the destination (sent, signed and retried by drain.ts like any
 * notification) and the digest's new `last_period_end`.
 *
 * Once per period: the pass runs under its own lease, a digest whose `last_period_end` already
 * covers the period is skipped, and every row's id is named after the digest and the period
 * (INSERT OR IGNORE), so a second pass, a restart mid-pass or a second box writes nothing new.
 * Missed periods (the service was down for weeks) are not made up: only the latest is sent.
 * A pass composes at most DIGESTS_PER_PASS digests, so one alarm stays short; the rest follow in
 * the next. Which digests are due is known from the sites' zones and the publication alone.
 */
import type { Client, InStatement } from "@libsql/client/web";
import { latestPeriodEnd, periodEnding, previousPeriod, renderDigest, type Digest, loadDigests } from "../domain/digests";
import { mailStatement } from "../domain/mail";
import { leaseHeld, takeLease } from "../lib/lease";
import { readOnly } from "../lib/read-only";
import { composeDigest, digestSite } from "../reports/digest";
import { lastCompleteDay } from "../reports/period";
import { PUBLICATION_SQL, publicationOf } from "../reports/publication";
import { effectiveZone } from "../reports/rollup";

export const DIGEST_LEASE = "digest-composer";

export interface DigestPassOptions {
  now: number;
  holder: string;
  k: number;
  publicUrl: string;
  leaseMs: number;
  /** Whether mail is configured (WREN_MAIL): without it, email recipients are skipped. */
  mail: boolean;
  /** Digests composed at most in this pass (default DIGESTS_PER_PASS). */
  limit?: number;
}

/** The ids of a digest's rows for one period: the same on every pass. */
export const digestMailId = (digest: string, periodEnd: string, n: number) => `mail_${digest.slice(4)}.${periodEnd}.${n}`;
export const digestMessageId = (digest: string, periodEnd: string) => `msg_${digest}.${periodEnd}`;

/** Digests composed per pass at most (about 0.1 s each at 1 M events, bench/digests.ts): the rest go in the next alarm. */
export const DIGESTS_PER_PASS = 25;

export async function queueDueDigests(client: Client, o: DigestPassOptions): Promise<{ leader: boolean; queued: number }> {
  if (!(await takeLease(client, DIGEST_LEASE, o.holder, o.now, o.leaseMs))) return { leader: false, queued: 0 };
  const digests = await loadDigests(client, "1 = 1", []);
  if (digests.length === 0) return { leader: true, queued: 0 };
  // Which are due, from the sites' zones and the publication alone: a pass with nothing due reads no figures.
  const [zones, publication] = await client.batch([{ sql: "SELECT id, timezone FROM sites", args: [] }, PUBLICATION_SQL], "read");
  const published = publicationOf(publication!);
  if (!published) return { leader: true, queued: 0 };
  const zoneOf = new Map(zones!.rows.map((r) => [String(r.id), effectiveZone(String(r.timezone))]));
  const bySite = new Map<string, Digest[]>();
  for (const d of digests) {
    const zone = zoneOf.get(d.siteId);
    if (zone === undefined) continue;
    const end = latestPeriodEnd(d.frequency, lastCompleteDay(zone, published.throughMs));
    if (d.lastPeriodEnd !== null && end <= d.lastPeriodEnd) continue;
    bySite.set(d.siteId, [...(bySite.get(d.siteId) ?? []), d]);
  }
  const reader = readOnly(client);
  let queued = 0;
  for (const [siteId, list] of bySite) {
    if (queued >= (o.limit ?? DIGESTS_PER_PASS)) break;
    const site = await digestSite(reader, siteId, o.k);
    if (!site) continue;
    for (const digest of list) {
      if (queued >= (o.limit ?? DIGESTS_PER_PASS)) break;
      const end = latestPeriodEnd(digest.frequency, site.publishedThrough);
      if (digest.lastPeriodEnd !== null && end <= digest.lastPeriodEnd) continue;
      const period = periodEnding(digest.frequency, end);
      const figures = await composeDigest(reader, site, period, previousPeriod(digest.frequency, period));
      const rendered = renderDigest(figures, digest.frequency, o.publicUrl, o.now);
      const statements: InStatement[] = [
        {
          sql: `UPDATE digest_schedules SET last_period_end = ? WHERE id = ? AND (last_period_end IS NULL OR last_period_end < ?) AND ${leaseHeld(DIGEST_LEASE)}`,
          args: [end, digest.id, end, o.holder, o.now],
        },
      ];
      if (o.mail) {
        digest.emailTo.forEach((to, n) =>
          statements.push(
            mailStatement(
              { to, subject: rendered.subject, text: rendered.text, html: rendered.html, purpose: "digest" },
              o.now,
              digestMailId(digest.id, end, n),
            ),
          ),
        );
      }
      if (digest.destination) {
        const body = digest.destination.format === "slack" ? rendered.slack : rendered.payload;
        statements.push({
          sql:
            "INSERT OR IGNORE INTO alert_outbox (id, rule_id, transition_id, destination_id, type, payload, next_attempt_at, created_at) " +
            "SELECT ?, ?, NULL, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM alert_destinations WHERE id = ?)",
          args: [
            digestMessageId(digest.id, end),
            digest.destination.ruleId,
            digest.destination.id,
            rendered.payload.type,
            JSON.stringify(body),
            o.now,
            o.now,
            digest.destination.id,
          ],
        });
      }
      await client.batch(statements, "write");
      queued++;
    }
  }
  return { leader: true, queued };
}
