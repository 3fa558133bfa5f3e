/**
 * Per-key request limits: a token bucket per key in a Durable Object, so every request of a
 * key on this workerd meets the same bucket. The bucket is persisted in the object's storage
 * (workerd keeps it on local disk), so eviction or a restart does not refill it early.
 */
import { DurableObject } from "cloudflare:workers";

export interface RateLimit {
  requests: number;
  perSeconds: number;
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

export class RateLimiter extends DurableObject {
  private bucket: Bucket | undefined;

  async take(limit: RateLimit, nowMs = Date.now()): Promise<RateDecision> {
    this.bucket ??= (await this.ctx.storage.get<Bucket>("bucket")) ?? { tokens: limit.requests, updatedMs: nowMs };
    const rate = limit.requests / limit.perSeconds;
    const elapsed = Math.max(0, nowMs - this.bucket.updatedMs) / 1000;
    let tokens = Math.min(limit.requests, this.bucket.tokens + elapsed * rate);
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    this.bucket = { tokens, updatedMs: nowMs };
    await this.ctx.storage.put("bucket", this.bucket);
    return {
      allowed,
      limit: limit.requests,
      remaining: Math.floor(tokens),
      resetSeconds: Math.ceil((limit.requests - tokens) / rate),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / rate)),
      windowSeconds: limit.perSeconds,
    };
  }
}

/** `WREN_RATE_LIMIT` is "REQUESTS/SECONDS", e.g. "600/60" (the default). */
export function parseDefaultLimit(value: string | null | undefined): RateLimit {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value ?? "");
  if (!match) return { requests: 600, perSeconds: 60 };
  return { requests: Math.max(1, Number(match[1])), perSeconds: Math.max(1, Number(match[2])) };
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
