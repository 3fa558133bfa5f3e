/** Ratios of figures (worker/reports/figures.ts): exact only when the value is the fraction itself. */
import { describe, expect, it } from "vitest";
import { ratio } from "../../worker/reports/figures";

const exact = (value: number) => ({ value, qualifier: "exact" as const });

describe("ratio", () => {
  it("is exact when rounding leaves the quotient as it is", () => {
    expect(ratio(exact(1), exact(2))).toEqual({ value: 0.5, qualifier: "exact" });
    expect(ratio(exact(3), exact(8))).toEqual({ value: 0.375, qualifier: "exact" });
    expect(ratio(exact(0), exact(7))).toEqual({ value: 0, qualifier: "exact" });
  });

  it("is estimated when rounding changed it", () => {
    expect(ratio(exact(1), exact(3))).toEqual({ value: 0.3333, qualifier: "estimated" });
    expect(ratio(exact(2), exact(3))).toEqual({ value: 0.6667, qualifier: "estimated" });
    expect(ratio(exact(1), exact(30000))).toEqual({ value: 0, qualifier: "estimated" });
  });

  it("keeps the weaker qualifier of its parts, caps at 1 and suppresses with either side", () => {
    expect(ratio({ value: 4, qualifier: "estimated" }, exact(8))).toEqual({ value: 0.5, qualifier: "estimated" });
    expect(ratio(exact(9), exact(8))).toEqual({ value: 1, qualifier: "estimated" });
    expect(ratio({ value: null, qualifier: "suppressed" }, exact(8))).toEqual({ value: null, qualifier: "suppressed" });
  });
});
