/** The tracker bundles: the core stays within its size budget, the vitals part is web-vitals, the link part is loaded apart. */
import { describe, expect, it } from "vitest";
import { TRACKER_BUDGETS, bundleTracker, gzipSize } from "../../tracker/build";

describe("tracker build", () => {
  it("keeps the core at or under 2,560 B gzip", async () => {
    const { core } = await bundleTracker();
    expect(gzipSize(core)).toBeLessThanOrEqual(2560);
    // No cookies, no storage other than sessionStorage.
    expect(core).not.toMatch(/document\.cookie|localStorage|indexedDB/);
    expect(core).toContain("sessionStorage");
    expect(core).toContain("sendBeacon");
  });

  it("bundles Google's web-vitals into the lazily loaded part", async () => {
    const { vitals } = await bundleTracker();
    for (const entryType of ["largest-contentful-paint", "layout-shift", "event", "paint", "navigation"]) {
      expect(vitals).toContain(entryType);
    }
    expect(vitals).toContain("_vital");
  });

  it("keeps outbound links and downloads in the part loaded only under data-track, within its budget", async () => {
    const { core, track } = await bundleTracker();
    for (const name of ["Outbound Link: Click", "File Download", "auxclick", "mp4"]) {
      expect(track).toContain(name);
      expect(core).not.toContain(name);
    }
    expect(core).toContain("?${");
    expect(gzipSize(track)).toBeLessThanOrEqual(TRACKER_BUDGETS.track);
  });
});
