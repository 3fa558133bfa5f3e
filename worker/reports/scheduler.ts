/**
 * Keeps the rollups caught up between report requests: a Durable Object whose alarm runs the
 * catch-up every minute, so the first report after a quiet night does not fold a day of raw
 * rows itself. Reports catch up on read anyway; this only shortens the backlog. The api worker
 * starts it (start-scheduler.ts) when it serves a report, if the ROLLUP_SCHEDULER binding exists.
 */
import { DurableObject } from "cloudflare:workers";
import { database } from "../lib/db";
import type { DatabaseBindings } from "../lib/env";
import { catchUp } from "./rollup";

export const ROLLUP_INTERVAL_MS = 60_000;

export class RollupScheduler extends DurableObject<DatabaseBindings> {
  /** Sets the alarm unless one is already set. */
  async start(): Promise<void> {
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + ROLLUP_INTERVAL_MS);
  }

  override async alarm(): Promise<void> {
    try {
      await catchUp(database(this.env).$client);
    } catch (error) {
      // A lost database must not stop the schedule; the next alarm (or a report) retries.
      console.error("rollup catch-up failed", error instanceof Error ? error.message : String(error));
    }
    await this.ctx.storage.setAlarm(Date.now() + ROLLUP_INTERVAL_MS);
  }
}
