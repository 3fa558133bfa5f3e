/** How the dashboard writes today's bands (dashboard/src/ui/band.ts): "low–high", and a tooltip naming the hour they run through. */
import { describe, expect, it } from "vitest";
import { bandReason, bandText, isBand } from "../../dashboard/src/ui/band";

/** Today in Europe/Berlin through 15:00 CET, as the API's period says it. */
const TODAY = {
  from: "2026-11-26",
  to: "2026-11-26",
  days: 1,
  timezone: "Europe/Berlin",
  start: "2026-11-25T23:00:00.000Z",
  end: "2026-11-26T14:00:00.000Z",
};

describe("bands", () => {
  it("are the figures that carry a high, never a suppressed one", () => {
    expect(isBand({ value: 10, qualifier: "estimated", high: 14 })).toBe(true);
    expect(isBand({ value: 12, qualifier: "estimated" })).toBe(false);
    expect(isBand({ value: null, qualifier: "suppressed", high: 4 } as never)).toBe(false);
  });

  it("are written as their two ends with an en dash, each in the screen's number format, without ≈", () => {
    expect(bandText({ value: 10, qualifier: "estimated", high: 14 })).toBe("10–14");
    expect(bandText({ value: 1000, qualifier: "estimated", high: 1004 }, (n) => n.toLocaleString("en"))).toBe("1,000–1,004");
  });

  it("say through which closed hour they run, in the site's zone, and why they are ranges; a total says it sums the shown rows", () => {
    expect(bandReason(5, TODAY)).toBe(
      "Today so far, through 15:00 CET (Europe/Berlin): a range of width 5 read from counts with noise added, so one visitor more or less cannot be read from it.",
    );
    expect(bandReason(5, TODAY, true)).toBe(
      "Today so far, through 15:00 CET (Europe/Berlin): the sum of the shown rows' ranges; hidden rows (fewer than 5) are left out.",
    );
  });
});
