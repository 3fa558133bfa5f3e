/** The tracker bundles: the core stays within its size budget, the vitals part is web-vitals. */
import { describe, expect, it } from "vitest";
import { bundleTracker, gzipSize } from "../../tracker/build";

describe("tracker build", () => {
  it("keeps the core at or under 3 KB gzip", async () => {
    const { core } = await bundleTracker();
    expect(gzipSize(core)).toBeLessThanOrEqual(3 * 1024);
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
});
