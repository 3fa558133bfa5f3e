/**
 * The utility part of the privacy issue against the real stack (`wren start`: the collector, the
 * api, the publisher, the embedded libSQL server), on real beacons: the day of 18
 * visitors keeps `/blog` and the six Google iPhone visitors in every report, and the cover's
 * remainder attack (the day's pageviews minus the shown pages') still meets a hidden page
 * wherever the sessions on hidden pages are fewer than k; and sessions that send no pageview
 * (a breakdown's rest) no longer let two pages' overlap through.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { postBeacon } from "../collector/helpers";

const IPHONE_UA =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";

let f: ApiFixture;
beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
}, 120_000);
afterAll(async () => {
  await f?.close();
});

/** Real beacons: each session's pageviews in order, from a browser, with the site's Origin. */
/** A session that sends an engagement beacon only: a visitor of the day with no pageview, and so no dimension. */
async function engageOnly(site: string, domain: string, session: string) {
  const events = [{ type: "engagement", path: "/a", seconds: 5, scroll: 10 }];
  const res = await postBeacon(f.stack.url, domain, { site, session: `${session}-abcdefghijklmnop`, events });
  expect(res.status).toBe(202);
}

async function visit(
  site: string,
  domain: string,
  session: string,
  paths: string[],
  extra: { ua?: string; referrer?: string } = {},
) {
  for (const [i, path] of paths.entries()) {
    const events = [{ type: "pageview", path, ...(i === 0 && extra.referrer ? { referrer: extra.referrer } : {}) }];
    const headers: Record<string, string> = extra.ua ? { "user-agent": extra.ua } : {};
    const res = await postBeacon(f.stack.url, domain, { site, session: `${session}-abcdefghijklmnop`, events }, headers);
    expect(res.status).toBe(202);
  }
}

/** Which rows are shown, by label; the pages hidden over the period are one `other` row naming none of them. */
const shownRows = (
  rows: { value?: string | null; path?: string | null; other?: boolean; visitors: { value: number | null } }[],
) => Object.fromEntries(rows.map((r) => [r.other ? "other" : (r.path ?? String(r.value)), r.visitors.value !== null]));

describe("utility: hide no more than the guarantee needs", () => {
  it("the issue's day shows /blog and its six Google iPhone visitors; a remainder of one session still hides its cover", async () => {
    const day = await f.makeSite("utility-day.example");
    const cover = await f.makeSite("utility-cover.example");
    // 18 visitors: six from Google on iPhones read /blog then /; one more reads /; six /pricing;
    // five read one page each, nothing else.
    for (let i = 0; i < 6; i++)
      await visit(day.id, day.domain, `blog-${i}`, ["/blog", "/"], { ua: IPHONE_UA, referrer: "https://www.google.com/" });
    await visit(day.id, day.domain, "home-0", ["/"]);
    for (let i = 0; i < 6; i++) await visit(day.id, day.domain, `pricing-${i}`, ["/pricing"]);
    for (let i = 0; i < 5; i++) await visit(day.id, day.domain, `single-${i}`, [`/x${i}`]);
    // 20 visitors on /, 10 go on to /x, one to /y: the day's pageviews − / − /x would be that one's.
    for (let i = 0; i < 20; i++)
      await visit(cover.id, cover.domain, `t-${i}`, ["/", ...(i < 10 ? ["/x"] : []), ...(i === 19 ? ["/y"] : [])]);
    await f.rewindDays(1);

    const read = async (site: string, report: string) => {
      const res = await f.admin("GET", `/api/v1/${report}${report.includes("?") ? "&" : "?"}site=${site}&period=day`);
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    expect(shownRows((await read(day.id, "pages")).rows)).toEqual({
      "/": true,
      "/blog": true,
      "/pricing": true,
      other: false,
    });
    for (const [dimension, value] of [
      ["source", "Google"],
      ["browser", "Safari"],
      ["os", "iOS"],
      ["device", "mobile"],
      ["entry_page", "/blog"],
      ["entry_page", "/pricing"],
    ]) {
      // Browser and system names carry their version ("Safari 18"): the row whose name starts so.
      const rows: { value: string | null; visitors: { value: number | null } }[] = (
        await read(day.id, `breakdown?dimension=${dimension}`)
      ).rows;
      const row = rows.find((r) => r.value === value) ?? rows.find((r) => r.value?.startsWith(`${value} `));
      expect(row?.visitors.value, `${dimension} ${value}: ${JSON.stringify(rows)}`).not.toBeNull();
      expect(row?.visitors.value, `${dimension} ${value}`).toBeDefined();
    }

    expect(shownRows((await read(cover.id, "pages")).rows)).toEqual({ "/": true, other: false });
  }, 180_000);

  it("two pages' overlap: the browser breakdown's rest is who sent no pageview, so the day minus it is the pages' union", async () => {
    const site = await f.makeSite("utility-pair.example");
    // /a only 5, /b only 5, both 1, and 5 sessions with an engagement beacon only: the day is 16,
    // |/a| + |/b| − 16 = −4, but the browser's one row (11, every session with a pageview) gives 6 + 6 − 11 = 1.
    for (let i = 0; i < 5; i++) await visit(site.id, site.domain, `a-${i}`, ["/a"]);
    for (let i = 0; i < 5; i++) await visit(site.id, site.domain, `b-${i}`, ["/b"]);
    await visit(site.id, site.domain, "both", ["/a", "/b"]);
    for (let i = 0; i < 5; i++) await engageOnly(site.id, site.domain, `quiet-${i}`);
    await f.rewindDays(1);
    const get = async (report: string) => {
      const res = await f.admin("GET", `/api/v1/${report}${report.includes("?") ? "&" : "?"}site=${site.id}&period=day`);
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    const day = (await get("timeseries")).points[0].visitors;
    const browsers = (await get("breakdown?dimension=browser")).rows as {
      value: string | null;
      visitors: { value: number | null };
    }[];
    // The reader's view: the day and the browser partition are shown (perturbed by the cell key method).
    expect(day.value).not.toBeNull();
    expect(browsers.map((r) => r.visitors.value !== null)).toEqual([true, true]);
    // Both pages shown would pin the overlap (up to the noise); one of them is hidden.
    expect(shownRows((await get("pages")).rows)).toEqual({ "/b": true, other: false });
  }, 180_000);
});
