/**
 * The publisher's Durable Object: its alarm runs the publisher (publisher.ts), retention
 * (retention.ts) included, every WREN_PUBLISH_INTERVAL seconds (default 10). workerd keeps the
 * alarm on disk, so the schedule survives restarts; the fold state lives in the database, so a
 * run cut short by a crash is picked up by the next one. Not a request path: no reader waits for it.
 *
 * Several instances on one database: every alarm first writes this instance's heartbeat
 * (lib/instances.ts), then runs only under the publisher lease (lib/lease.ts), so one instance
 * publishes at a time and another takes over within a lease of the holder's death. The lease
 * is for doing the work once, not for correctness: a fold that raced another would move the
 * same watermark in its own transaction and fold nothing twice (rollup/fold.ts).
 */
import { DurableObject } from "cloudflare:workers";
import { database } from "../lib/db";
import { describeError } from "../lib/errors";
import { noteStorageFault, serverFault } from "../lib/faults";
import { storedBoxId } from "../lib/box-id";
import { heartbeatStatements } from "../lib/instances";
import { PUBLISHER_LEASE, takeLease } from "../lib/lease";
import { BACKGROUND_DEADLINE_MS } from "../lib/libsql";
import { behindAfterMs, publishIntervalMs, publishOnce, type PublisherEnv } from "./publisher";
import { kAnonymity } from "./privacy";
import { auditRetentionDays, retentionDays } from "./retention";
import { now, useClock } from "../lib/clock";

/** The lease outlives a few runs, so a live holder keeps it; a dead one's runs out in this long. */
const MIN_LEASE_MS = 30_000;

export class Publisher extends DurableObject<PublisherEnv> {
  private instance: string | undefined;

  /** Sets the alarm unless one is set: the first run happens at once. */
  async start(): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
  }

  /** Writes to this object's storage, so that /healthz sees the Durable Object disk fail (full, read-only). */
  async probeStorage(nowMs: number): Promise<void> {
    await this.ctx.storage.put("health-probe", nowMs);
  }

  /** This instance's id (`box_…`), kept in the object's storage so that it is the same after a restart. */
  private async instanceId(): Promise<string> {
    return (this.instance ??= await storedBoxId(this.ctx.storage, "instance"));
  }

  override async alarm(): Promise<void> {
    useClock(this.env);
    const interval = publishIntervalMs(this.env.WREN_PUBLISH_INTERVAL);
    let next = Date.now() + interval;
    try {
      const client = database(this.env, BACKGROUND_DEADLINE_MS).$client;
      const instance = await this.instanceId();
      await client.batch(heartbeatStatements(instance, Date.now()), "write");
      if (!(await takeLease(client, PUBLISHER_LEASE, instance, Date.now(), Math.max(MIN_LEASE_MS, 3 * interval)))) {
        await this.ctx.storage.setAlarm(next);
        return;
      }
      const run = await publishOnce(client, {
        now,
        retentionDays: retentionDays(this.env.WREN_RAW_RETENTION_DAYS),
        auditRetentionDays: auditRetentionDays(this.env.WREN_AUDIT_RETENTION_DAYS),
        k: kAnonymity(this.env.WREN_K_ANONYMITY),
      });
      if (run.behind) {
        next = Date.now();
        console.warn(`publisher behind: folded ${run.folded} raw rows this run, more are waiting; continuing at once`);
      } else if (run.throughMs !== null && now() - run.throughMs > behindAfterMs(this.env)) {
        console.warn(`publisher behind: published through ${new Date(run.throughMs).toISOString()} after folding ${run.folded} raw rows`);
      }
    } catch (error) {
      // A lost database must not stop the schedule; the next run retries.
      const fault = serverFault(error);
      if (fault?.kind === "storage") noteStorageFault(fault, "the publisher");
      else console.error("publisher run failed:", describeError(error));
    }
    await this.ctx.storage.setAlarm(next);
  }
}
