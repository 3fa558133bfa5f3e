/**
 * The alert scheduler: a Durable Object whose alarm evaluates the rules (under the evaluator
 * lease, evaluate.ts), queues the digests whose period has ended (digests.ts, under its own
 * lease) and drains the outbox (drain.ts) every WREN_ALERT_INTERVAL seconds, and
 * sooner when a retry falls due. workerd keeps the alarm on disk, so the schedule survives a
 * restart; rule state and the outbox live in the database.
 *
 * The box's id (the lease holder and claimer) is kept in the object's storage, so it is the
 * same after a restart. Alarms of one object never overlap, so a claim of this box found when an
 * alarm begins belongs to a send that never finished (the process died, or the database went
 * away before the attempt was recorded): each alarm first releases them, and those rows go out
 * again at once with the same webhook-id.
 */
import { DurableObject } from "cloudflare:workers";
import { BACKGROUND_DEADLINE_MS, libsqlClient } from "../lib/libsql";
import { storedBoxId } from "../lib/box-id";
import { parseWebhookAllow } from "../lib/webhook-allow";
import { kAnonymity } from "../reports/privacy";
import { drainOutbox } from "./drain";
import { alertIntervalMs, type AlertsEnv } from "./env";
import { evaluateRules } from "./evaluate";
import { queueDueDigests } from "./digests";
import { mailConfigured } from "../domain/mail";
import { nextDue, releaseClaims, retryBaseMs } from "./outbox";
import { now, realTime, useClock } from "../lib/clock";

const MIN_LEASE_MS = 30_000;

export class AlertScheduler extends DurableObject<AlertsEnv> {
  private holder: string | undefined;
  /** Set when something is queued while an alarm runs, so that alarm does not push the send back. */
  private queued = false;

  /** Sets the alarm unless one is set: the first pass happens at once. */
  async start(): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
  }

  /** Something was queued (a test notification): send now rather than at the next pass. */
  async sendSoon(): Promise<void> {
    this.queued = true;
    await this.ctx.storage.setAlarm(Date.now());
  }

  private async boxId(): Promise<string> {
    return (this.holder ??= await storedBoxId(this.ctx.storage, "box"));
  }

  override async alarm(): Promise<void> {
    useClock(this.env);
    const interval = alertIntervalMs(this.env.WREN_ALERT_INTERVAL);
    const client = libsqlClient(this.env, BACKGROUND_DEADLINE_MS);
    const holder = await this.boxId();
    this.queued = false;
    let next = Date.now() + interval;
    try {
      await releaseClaims(client, holder);
      const run = await evaluateRules(client, {
        now: now(),
        holder,
        k: kAnonymity(this.env.WREN_K_ANONYMITY),
        publicUrl: (this.env.WREN_PUBLIC_URL ?? "").replace(/\/+$/, ""),
        leaseMs: Math.max(MIN_LEASE_MS, 3 * interval),
      });
      if (run.transitions > 0) console.log(`alerts: ${run.transitions} transition(s) of ${run.rules} rule(s)`);
    } catch (error) {
      console.error("alert evaluation failed:", error instanceof Error ? error.message : String(error));
    }
    try {
      // Digests whose period has ended (digests.ts); their webhook rows go out in the drain below.
      const digests = await queueDueDigests(client, {
        now: now(),
        holder,
        k: kAnonymity(this.env.WREN_K_ANONYMITY),
        publicUrl: (this.env.WREN_PUBLIC_URL ?? "").replace(/\/+$/, ""),
        leaseMs: Math.max(MIN_LEASE_MS, 3 * interval),
        mail: mailConfigured(this.env),
      });
      if (digests.queued > 0) console.log(`digests: ${digests.queued} queued`);
    } catch (error) {
      console.error("digest composition failed:", error instanceof Error ? error.message : String(error));
    }
    try {
      await drainOutbox(client, {
        holder,
        now,
        signedAt: () => Date.now(),
        serverSecret: this.env.WREN_SECRET,
        allow: parseWebhookAllow(this.env.WREN_WEBHOOK_ALLOW),
        retryBaseMs: retryBaseMs(this.env.WREN_WEBHOOK_RETRY_SECONDS),
      });
      const due = await nextDue(client);
      if (due !== null) next = Math.min(next, Math.max(Date.now() + 1000, realTime(due)));
    } catch (error) {
      // A lost database must not stop the schedule; the next pass retries.
      console.error("alert delivery failed:", error instanceof Error ? error.message : String(error));
    }
    await this.ctx.storage.setAlarm(this.queued ? Date.now() : next);
  }
}
