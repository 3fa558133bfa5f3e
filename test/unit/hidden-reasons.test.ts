/** Why a figure is hidden (dashboard/src/ui/hidden.ts): one plain sentence per reason the API names, and the general one otherwise. */
import { describe, expect, it } from "vitest";
import { HIDDEN_REASONS, hiddenLabel, hiddenReason } from "../../dashboard/src/ui/hidden";

describe("hidden reasons", () => {
  it("say each reason in one sentence, with the report's k", () => {
    expect(Object.fromEntries(HIDDEN_REASONS.map((reason) => [reason, hiddenReason(5, reason)]))).toEqual({
      quiet_hours: "The day has not yet had 5 sessions in one hour, so quiet hours are not told apart from empty ones.",
      small_group: "Fewer than 5 sessions.",
      day_protection: "Hidden so that the day's total cannot be subtracted down to a few people.",
    });
    expect(hiddenReason(3, "small_group")).toBe("Fewer than 3 sessions.");
  });

  it("fall back to the general sentence when the API names no reason, or one this dashboard does not know", () => {
    const general =
      "Hidden: fewer than 5 sessions, or hiding it keeps a small group from being worked out from the figures shown.";
    expect(hiddenReason(5)).toBe(general);
    expect(hiddenReason(5, "a_future_reason")).toBe(general);
  });

  it("give the chart's legend short words for a gap", () => {
    expect(HIDDEN_REASONS.map((reason) => hiddenLabel(5, reason))).toEqual(["< 5: quiet hours", "< 5: small group", "< 5: protects the day"]);
    expect(hiddenLabel(5)).toBe("< 5");
  });
});
