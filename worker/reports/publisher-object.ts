/**
 * The publisher's Durable Object: its alarm runs the publisher (publisher.ts), retention
 * (retention.ts) included, every WREN_PUBLISH_INTERVAL seconds (default 10). workerd keeps the
 * alarm on disk, so the schedule survives restarts; the fold state lives in the database, so a
 * run cut short by a crash is picked up by the next one. Not a request path: no reader waits for it.
 */
import { DurableObject } from "cloudflare:workers";
import { database } from "../lib/db";
import { describeError } from "../lib/errors";
import { noteStorageFault, serverFault } from "../lib/faults";
import { BACKGROUND_DEADLINE_MS } from "../lib/libsql";
import { behindAfterMs, publishIntervalMs, publishOnce, type PublisherEnv } from "./publisher";
import { retentionDays } from "./retention";

export class Publisher extends DurableObject<PublisherEnv> {
  /** Sets the alarm unless one is set: the first run happens at once. */
  async start(): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
  }

  /** Writes to this object's storage, so that /healthz sees the Durable Object disk fail (full, read-only). */
  async probeStorage(nowMs: number): Promise<void> {
    await this.ctx.storage.put("health-probe", nowMs);
  }

  override async alarm(): Promise<void> {
    const interval = publishIntervalMs(this.env.WREN_PUBLISH_INTERVAL);
    let next = Date.now() + interval;
    try {
      const run = await publishOnce(database(this.env, BACKGROUND_DEADLINE_MS).$client, {
        now: Date.now,
        retentionDays: retentionDays(this.env.WREN_RAW_RETENTION_DAYS),
      });
      if (run.behind) {
        next = Date.now();
        console.warn(`publisher behind: folded ${run.folded} raw rows this run, more are waiting; continuing at once`);
      } else if (run.throughMs !== null && Date.now() - run.throughMs > behindAfterMs(this.env)) {
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
