/**
 * The service's clock: the real clock plus WREN_TEST_CLOCK_OFFSET_MS, a test-only binding
 * (`wren start` refuses a value that is not a whole number of milliseconds, and warns when one
 * is set). Tests and benches set it to stand just before an hour's end instead of waiting for
 * one. In production it is unset, and `now()` is `Date.now()`.
 *
 * On this clock: everything that stamps data or judges its time — the collector's rows, sessions
 * and salts, s2s times, the publisher's cut and publication, report periods, the sessions list,
 * funnels' bounds, alerts (evaluation, outbox, rules), sites, goals, keys, deployments, and the
 * publisher's status in /healthz.
 * On the real clock (`Date.now()`), because they measure elapsed time or talk to something
 * outside the service: Durable Object alarms (workerd fires them on the real clock; `realTime`
 * converts a service instant for one), rate limits and the key usage they record, cache TTLs,
 * retry and deadline budgets, heartbeats and leases between boxes, storage-fault probes, and
 * webhook signatures' timestamps (the sender's clock).
 *
 * The offset is module state, set from the bindings at each entry (fetch handlers, Durable
 * Object constructors): the domain (worker/domain) reads `now()` without a worker's env, so no
 * layer imports a worker for the time. It is the same for every request of a process.
 */

/** The bindings the clock reads. */
export interface ClockBindings {
  /** Milliseconds added to the real clock, for tests (docs/operations.md); unset or empty: 0. */
  WREN_TEST_CLOCK_OFFSET_MS?: string | null;
}

let offsetMs = 0;

/** WREN_TEST_CLOCK_OFFSET_MS as milliseconds: a whole number, else 0 (`wren start` refuses anything else first). */
export function clockOffsetMs(setting: string | null | undefined): number {
  if (!setting || !/^\s*-?\d+\s*$/.test(setting)) return 0;
  const ms = Number(setting);
  return Number.isSafeInteger(ms) ? ms : 0;
}

/** Takes the offset from this process's bindings; called at every entry, before any time is read. */
export function useClock(env: ClockBindings): void {
  offsetMs = clockOffsetMs(env.WREN_TEST_CLOCK_OFFSET_MS);
}

/** The service's now, in ms since the epoch. */
export function now(): number {
  return Date.now() + offsetMs;
}

/** The real-clock instant of a service instant, for a Durable Object alarm meant to fire then. */
export function realTime(serviceMs: number): number {
  return serviceMs - offsetMs;
}
