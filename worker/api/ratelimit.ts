/**
 * Per-key request limits and call counters: one Durable Object per key, so every request of a
 * key on this workerd meets the same bucket. Bucket and counters live in memory and go to the
 * object's storage (workerd keeps it on local disk) at most PERSIST_AFTER_MS after a change,
 * in one put: a put per request was a third of a cached report read's CPU. The write comes
 * within a second, long before an idle object is evicted, so eviction never refills a bucket
 * early; a crash (kill -9) may forget the last second of a key's use.
 *
 * The same object counts the key's calls (per UTC day and route, and the latest use), so a
 * request writes nothing to the database: the object adds them to the database in one batch
 * from its alarm, at most every FLUSH_INTERVAL_MS, or at once when asked (`flush()`, before
 * GET /keys/:id/usage reads them). One that stops between a database write and the storage
 * put after it would write that batch twice.
 */
import { DurableObject } from "cloudflare:workers";
import { addCalls } from "../domain/usage";
import { database } from "../lib/db";
import type { DatabaseBindings } from "../lib/env";
import { countCall, drainFlushed, hasPendingCalls, NO_PENDING_CALLS, usageRows, type PendingCalls } from "./pending-calls";

/** How long counted calls may wait before they are written; `last_used_at` lags by as much. */
export const FLUSH_INTERVAL_MS = 10_000;
/** How long a changed bucket may stay in memory only. */
export const PERSIST_AFTER_MS = 1_000;

export interface RateLimit {
  requests: number;
  perSeconds: number;
}

/** The call a token is taken for: the key it counts for and the route pattern it called. */
export interface CountedCall {
  keyId: string;
  /** e.g. "GET /api/v1/pages" */
  route: string;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until one request is allowed, when refused. */
  retryAfterSeconds: number;
  windowSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class RateLimiter extends DurableObject<DatabaseBindings> {
  private bucket: Bucket | undefined;
  private pending: PendingCalls = NO_PENDING_CALLS;
  private keyId: string | undefined;
  private loading: Promise<void> | undefined;
  /** Whether a flush alarm is set, kept here so that take() need not ask storage each time. */
  private alarmSet = false;
  private persisting: ReturnType<typeof setTimeout> | undefined;
  private flushing: Promise<boolean> | undefined;

  /** Takes a token for `call` and counts the call — refused or not, a call is a call. */
  async take(limit: RateLimit, call: CountedCall, nowMs = Date.now()): Promise<RateDecision> {
    await this.load();
    const bucket = this.bucket ?? { tokens: limit.requests, updatedMs: nowMs };
    const rate = limit.requests / limit.perSeconds;
    const elapsed = Math.max(0, nowMs - bucket.updatedMs) / 1000;
    let tokens = Math.min(limit.requests, bucket.tokens + elapsed * rate);
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    this.bucket = { tokens, updatedMs: nowMs };
    this.pending = countCall(this.pending, call.route, nowMs);
    this.keyId = call.keyId;
    this.persistSoon();
    if (!this.alarmSet) await this.scheduleFlush();
    return {
      allowed,
      limit: limit.requests,
      remaining: Math.floor(tokens),
      resetSeconds: Math.ceil((limit.requests - tokens) / rate),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / rate)),
      windowSeconds: limit.perSeconds,
    };
  }

  /**
   * Writes the calls counted so far to the database now. False when the database failed: they
   * stay pending for the next alarm.
   */
  async flush(): Promise<boolean> {
    // One write at a time: two flushes of the same counters would add them twice.
    while (this.flushing) await this.flushing.catch(() => false);
    this.flushing = this.writePending();
    try {
      return await this.flushing;
    } finally {
      this.flushing = undefined;
    }
  }

  override async alarm(): Promise<void> {
    await this.flush();
    // Calls counted during the write, or a failed write, wait for the next alarm.
    if (hasPendingCalls(this.pending)) await this.scheduleFlush();
    else this.alarmSet = false;
  }

  private async writePending(): Promise<boolean> {
    await this.load();
    const flushed = this.pending;
    if (!hasPendingCalls(flushed) || this.keyId === undefined) return true;
    try {
      await addCalls(database(this.env), this.keyId, usageRows(flushed), flushed.lastUsedMs ?? Date.now());
    } catch (error) {
      console.error("could not write call counters for key", this.keyId, error instanceof Error ? error.message : String(error));
      return false;
    }
    // Take away exactly what was written; calls counted meanwhile stay.
    this.pending = drainFlushed(this.pending, flushed);
    await this.ctx.storage.put("pending", this.pending);
    return true;
  }

  /** Writes bucket, counters and key id in one put, PERSIST_AFTER_MS after the first change since the last write. */
  private persistSoon(): void {
    if (this.persisting) return;
    this.persisting = setTimeout(() => {
      this.persisting = undefined;
      void this.ctx.storage.put({ bucket: this.bucket, pending: this.pending, keyId: this.keyId }).catch((error: unknown) => {
        console.error("could not keep a key's rate-limit state", error instanceof Error ? error.message : String(error));
      });
    }, PERSIST_AFTER_MS);
  }

  private async scheduleFlush(): Promise<void> {
    this.alarmSet = true;
    await this.ctx.storage.setAlarm(Date.now() + FLUSH_INTERVAL_MS);
  }

  /** Reads bucket, counters and alarm from storage once per object lifetime. */
  private load(): Promise<void> {
    this.loading ??= (async () => {
      const stored = await this.ctx.storage.get(["bucket", "pending", "keyId"]);
      this.bucket = stored.get("bucket") as Bucket | undefined;
      this.pending = (stored.get("pending") as PendingCalls | undefined) ?? NO_PENDING_CALLS;
      this.keyId = stored.get("keyId") as string | undefined;
      this.alarmSet = (await this.ctx.storage.getAlarm()) !== null;
      // Counters left without an alarm (one stopped before it was set) get one now.
      if (hasPendingCalls(this.pending) && !this.alarmSet) await this.scheduleFlush();
    })().catch((error: unknown) => {
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }
}

/** `WREN_RATE_LIMIT` is "REQUESTS/SECONDS", e.g. "600/60" (the default). */
export function parseDefaultLimit(value: string | null | undefined): RateLimit {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value ?? "");
  if (!match) return { requests: 600, perSeconds: 60 };
  return { requests: Math.max(1, Number(match[1])), perSeconds: Math.max(1, Number(match[2])) };
}

/**
 * One instance's share of a limit when `instances` share the database: the requests divided
 * evenly, rounded down (at least 1), over the same window — so N instances admit at most the
 * limit together, and a client whose requests a proxy spreads evenly gets all of it.
 */
export function instanceShare(limit: RateLimit, instances: number): RateLimit {
  if (instances <= 1) return limit;
  return { requests: Math.max(1, Math.floor(limit.requests / instances)), perSeconds: limit.perSeconds };
}

/** IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers) for a decision. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    "ratelimit-limit": String(decision.limit),
    "ratelimit-remaining": String(decision.remaining),
    "ratelimit-reset": String(decision.resetSeconds),
    "ratelimit-policy": `${decision.limit};w=${decision.windowSeconds}`,
  };
  if (!decision.allowed) headers["retry-after"] = String(decision.retryAfterSeconds);
  return headers;
}
