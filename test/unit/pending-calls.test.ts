/** The counters a key's RateLimiter keeps between flushes: counting, the rows a flush writes, and the drain after it. */
import { describe, expect, it } from "vitest";
import { countCall, drainFlushed, hasPendingCalls, NO_PENDING_CALLS, usageRows } from "../../worker/api/pending-calls";

// The last millisecond of a UTC day: t + 1 is the next day.
const t = Date.parse("2026-11-23T23:59:59.999Z");
const count = (...calls: [string, number][]) => calls.reduce((p, [route, ms]) => countCall(p, route, ms), NO_PENDING_CALLS);

describe("pending calls", () => {
  it("counts per UTC day and route and keeps the latest use", () => {
    const pending = count(
      ["GET /api/v1/pages", t],
      ["GET /api/v1/pages", t - 5],
      ["GET /api/v1/sites", t + 1],
      ["GET /api/v1/pages", t + 2],
    );
    expect(pending).toEqual({
      calls: { "2026-11-23": { "GET /api/v1/pages": 2 }, "2026-11-24": { "GET /api/v1/sites": 1, "GET /api/v1/pages": 1 } },
      lastUsedMs: t + 2,
    });
    expect(usageRows(pending)).toEqual([
      { day: "2026-11-23", route: "GET /api/v1/pages", calls: 2 },
      { day: "2026-11-24", route: "GET /api/v1/pages", calls: 1 },
      { day: "2026-11-24", route: "GET /api/v1/sites", calls: 1 },
    ]);
    expect([hasPendingCalls(pending), hasPendingCalls(NO_PENDING_CALLS), usageRows(NO_PENDING_CALLS)]).toEqual([true, false, []]);
  });

  it("never changes a value it was given, so a flush can keep what it wrote", () => {
    const flushed = count(["GET /api/v1/pages", t]);
    countCall(flushed, "GET /api/v1/pages", t + 1);
    expect(flushed).toEqual({ calls: { "2026-11-23": { "GET /api/v1/pages": 1 } }, lastUsedMs: t });
    expect(NO_PENDING_CALLS).toEqual({ calls: {}, lastUsedMs: null });
  });

  it("drains exactly what was flushed; calls counted during the flush stay", () => {
    const flushed = count(["GET /api/v1/pages", t], ["GET /api/v1/pages", t], ["GET /api/v1/keys", t]);
    const meanwhile = countCall(countCall(flushed, "GET /api/v1/pages", t + 1), "GET /api/v1/sites", t + 2);
    expect(drainFlushed(meanwhile, flushed)).toEqual({
      calls: { "2026-11-24": { "GET /api/v1/pages": 1, "GET /api/v1/sites": 1 } },
      lastUsedMs: t + 2,
    });
    expect(drainFlushed(countCall(flushed, "GET /api/v1/pages", t - 9), flushed)).toEqual({
      calls: { "2026-11-23": { "GET /api/v1/pages": 1 } },
      lastUsedMs: t,
    });
    expect(drainFlushed(flushed, flushed)).toEqual(NO_PENDING_CALLS);
    expect(drainFlushed(NO_PENDING_CALLS, NO_PENDING_CALLS)).toEqual(NO_PENDING_CALLS);
  });
});
