/**
 * The service's clock (worker/lib/clock.ts): the real clock plus WREN_TEST_CLOCK_OFFSET_MS as
 * the bindings give it, none when unset, empty or not a whole number; `realTime` undoes it for
 * a Durable Object alarm.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { clockOffsetMs, now, realTime, useClock } from "../../worker/lib/clock";

const REAL = Date.UTC(2026, 10, 26, 16, 59, 40);

afterEach(() => {
  useClock({});
  vi.useRealTimers();
});

describe("the service clock", () => {
  it("is the real clock plus the offset the bindings give", () => {
    vi.useFakeTimers({ now: REAL, toFake: ["Date"] });
    expect(now()).toBe(REAL);
    useClock({ WREN_TEST_CLOCK_OFFSET_MS: "20000" });
    expect(now()).toBe(REAL + 20_000);
    expect(realTime(REAL + 20_000)).toBe(REAL);
    useClock({ WREN_TEST_CLOCK_OFFSET_MS: "-3600000" });
    expect(now()).toBe(REAL - 3_600_000);
    useClock({ WREN_TEST_CLOCK_OFFSET_MS: null });
    expect(now()).toBe(REAL);
  });

  it("takes no offset from an unset, empty or malformed binding", () => {
    for (const setting of [undefined, null, "", " ", "1.5", "1e3", "soon", "99999999999999999999"]) {
      expect(clockOffsetMs(setting), String(setting)).toBe(0);
    }
    expect(clockOffsetMs(" 42 ")).toBe(42);
    expect(clockOffsetMs("-42")).toBe(-42);
  });
});
