/**
 * The call counters a key's RateLimiter (ratelimit.ts) holds between two writes to the
 * database: calls per UTC day and route, and the latest use. Values are never changed in
 * place — counting makes a new object — so a flush can keep the object it wrote and later
 * take away exactly that, while calls counted during the write stay pending. Pure, so the
 * merge and the drain are tested without workerd (test/unit/pending-calls.test.ts).
 */
import { utcDay, type UsageRow } from "../domain/usage";

export interface PendingCalls {
  /** UTC day → route → calls not yet in `key_usage`. */
  calls: Record<string, Record<string, number>>;
  /** The latest use among those calls, for `api_keys.last_used_at`; null when none is pending. */
  lastUsedMs: number | null;
}

export const NO_PENDING_CALLS: PendingCalls = Object.freeze({ calls: Object.freeze({}), lastUsedMs: null });

export function hasPendingCalls(pending: PendingCalls): boolean {
  return Object.keys(pending.calls).length > 0;
}

/** `pending` with one more call of `route` at `nowMs`. */
export function countCall(pending: PendingCalls, route: string, nowMs: number): PendingCalls {
  const day = utcDay(nowMs);
  const routes = pending.calls[day] ?? {};
  return {
    calls: { ...pending.calls, [day]: { ...routes, [route]: (routes[route] ?? 0) + 1 } },
    lastUsedMs: Math.max(pending.lastUsedMs ?? nowMs, nowMs),
  };
}

/** The rows a flush adds to `key_usage`, by day and route. */
export function usageRows(pending: PendingCalls): UsageRow[] {
  return Object.entries(pending.calls)
    .flatMap(([day, routes]) => Object.entries(routes).map(([route, calls]) => ({ day, route, calls })))
    .sort((a, b) => compare(a.day, b.day) || compare(a.route, b.route));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * What stays pending once `flushed` (an earlier value of `current`) is in the database: the
 * calls counted since. Counts only grow between the two, so nothing goes below zero.
 */
export function drainFlushed(current: PendingCalls, flushed: PendingCalls): PendingCalls {
  const calls: PendingCalls["calls"] = {};
  for (const [day, routes] of Object.entries(current.calls)) {
    for (const [route, count] of Object.entries(routes)) {
      const left = count - (flushed.calls[day]?.[route] ?? 0);
      if (left > 0) (calls[day] ??= {})[route] = left;
    }
  }
  // The latest use belongs to the calls left, if any: they came after the flushed ones.
  return Object.keys(calls).length > 0 ? { calls, lastUsedMs: current.lastUsedMs } : NO_PENDING_CALLS;
}
