/**
 * Issue 36 item 7 against the real stack, with real beacons: the noise never yields figures that
 * contradict each other within one row. The issue saw "iOS 18: visitors ≈ 6, pageviews ≈ 4"
 * where every session had a pageview, and a shown cell of 5 real sessions reading "≈ 3" beside
 * rows marked "< 5". Each site here has a row of exactly k sessions with one pageview each
 * (iPhones on /ios) and one of k + 1 sessions with two pageviews each (desktops on /two); on
 * sixteen sites (sixteen draws of the database's secrets' places) every shown row must read at
 * least k visitors and at least as many pageviews as visitors (noise.ts shownCounts). With the
 * post-processing taken out, a 5 reads below 5 on a site in about one draw in three.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { BROWSER_UA, postBeacon } from "../collector/helpers";

const K = 5;
const SITES = 16;
const IPHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";

let f: ApiFixture;
beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
}, 120_000);
afterAll(async () => {
  await f?.close();
});

/** One session's pageviews through the real collector, the site's Origin forged as a client can. */
async function visit(site: string, domain: string, session: string, paths: string[], ua: string): Promise<void> {
  const events = paths.map((path) => ({ type: "pageview", path }));
  const res = await postBeacon(
    f.stack.url,
    domain,
    { site, session: `${session}-abcdefghijklmnop`, events },
    { "user-agent": ua },
  );
  expect(res.status).toBe(202);
}

interface Row {
  path?: string | null;
  value?: string | null;
  other?: boolean;
  visitors: { value: number | null; qualifier: string };
  pageviews: { value: number | null; qualifier: string };
}

describe("item 7: no row contradicts itself", () => {
  it("reads every shown row at k visitors or more and never fewer pageviews than visitors", async () => {
    const sites = [];
    for (let n = 0; n < SITES; n++) {
      const site = await f.makeSite(`consistent-${n}.example`);
      sites.push(site);
      for (let i = 0; i < K; i++) await visit(site.id, site.domain, `ios-${n}-${i}`, ["/ios"], IPHONE_UA);
      for (let i = 0; i <= K; i++) await visit(site.id, site.domain, `two-${n}-${i}`, ["/two", "/two"], BROWSER_UA);
    }
    await f.rewindDays(1);

    const shown: Row[] = [];
    for (const site of sites) {
      for (const report of ["pages", "breakdown?dimension=os", "breakdown?dimension=device", "breakdown?dimension=entry_page"]) {
        const res = await f.admin("GET", `/api/v1/${report}${report.includes("?") ? "&" : "?"}site=${site.id}&period=day`);
        expect(res.status, res.text).toBe(200);
        const rows = (res.body.rows as Row[]).filter((r) => !r.other && r.visitors.value !== null);
        // Both groups are k or more, every session had a pageview: each report shows both rows.
        expect(
          rows.map((r) => r.visitors.qualifier),
          `${report} ${JSON.stringify(res.body.rows)}`,
        ).toEqual(["estimated", "estimated"]);
        shown.push(...rows);
      }
    }
    const contradictions = shown.filter((r) => r.visitors.value! < K || r.pageviews.value! < r.visitors.value!);
    expect(contradictions).toEqual([]);
    // The figures are perturbed (not the true 5, 6 and 12 everywhere), so the rule had work to do.
    expect(shown.some((r) => ![5, 6].includes(r.visitors.value!))).toBe(true);
  }, 300_000);
});
