/**
 * Attack 3 of issue 36 ("pinning a quantile") against the real stack (`wren start`: the
 * collector, the api, the publisher, the embedded libSQL server): the attacker sends vitals
 * beacons through the real collector from sybil sessions of its own — five at 10 ms and one at
 * 60,000 ms, so that rank ⌈0.75·7⌉ is the one foreign sample — beside a victim whose LCP is
 * 3,100 ms, then reads the vitals report once the day is published (rewindDays). p75 used to
 * read ≈ 2,868 ms, the victim's LCP to within its bucket (2,788–3,122 ms). Now a p75 is shown
 * only as a range of the fixed block grid that holds samples of k sessions, counted here from
 * the stored raw samples.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { postBeacon } from "../collector/helpers";

let f: ApiFixture;
beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
}, 120_000);
afterAll(async () => {
  await f?.close();
});

/** One visit as the tracker reports it: a pageview of /article, then its LCP. */
async function visit(domain: string, site: string, session: string, lcp: number): Promise<void> {
  // The attacker forges the Origin of the site and a browser's User-Agent.
  const res = await postBeacon(f.stack.url, domain, {
    site,
    session: `${session}-abcdefghij`,
    events: [
      { type: "pageview", path: "/article" },
      { type: "vital", path: "/article", metric: "LCP", value: lcp },
    ],
  });
  expect(res.status, await res.text()).toBe(202);
}

type Figure = { value: number | null; qualifier: string };
type Row = { path: string; metric: string; p75: Figure; p75_low: Figure; p75_high: Figure; samples: Figure };
const SUPPRESSED = { value: null, qualifier: "suppressed" };

describe("attack 3: pinning a quantile with sybil samples", () => {
  it("shows no p75 that places the victim's 3,100 ms LCP in one bucket: only ranges holding k sessions' samples", async () => {
    // Site a: the attack. Site b: the same, and four visitors at 2,600 ms.
    const sites: Record<"a" | "b", { domain: string; id: string }> = {
      a: { domain: "quantile-a.example", id: "" },
      b: { domain: "quantile-b.example", id: "" },
    };
    for (const s of Object.values(sites)) s.id = (await f.makeSite(s.domain)).id;
    for (const [name, s] of Object.entries(sites)) {
      for (let i = 0; i < 5; i++) await visit(s.domain, s.id, `${name}-sybil-fast-${i}`, 10);
      await visit(s.domain, s.id, `${name}-sybil-slow`, 60_000);
      await visit(s.domain, s.id, `${name}-victim`, 3100);
      if (name === "b") for (let i = 0; i < 4; i++) await visit(s.domain, s.id, `${name}-visitor-${i}`, 2600);
    }
    // What came in today through the real collector, moved to yesterday so a report can read it.
    await f.rewindDays(1);
    const read = async (site: string): Promise<Row> => {
      const res = await f.admin("GET", `/api/v1/vitals?site=${site}&period=day&metric=LCP`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.rows).toHaveLength(1);
      return res.body.rows[0];
    };
    const client = f.database();
    /** Sessions with a stored LCP sample in [low, high] ms, counted from the raw rows. */
    const sessionsIn = async (site: string, low: number, high: number) =>
      Number(
        (
          await client.execute({
            sql: "SELECT count(DISTINCT session_id) AS n FROM vitals WHERE site_id = ? AND metric = 'LCP' AND value >= ? AND value <= ?",
            args: [site, low, high],
          })
        ).rows[0]!.n,
      );

    // a: rank 6 of 7 is the victim's sample, and no block of the grid around its bucket up to the
    // widest shown (64 buckets, 1.3–131 s) holds 5 sessions' samples: nothing is shown.
    const a = await read(sites.a.id);
    expect(a.samples.qualifier).toBe("estimated");
    expect([a.p75, a.p75_low, a.p75_high]).toEqual([SUPPRESSED, SUPPRESSED, SUPPRESSED]);

    // b: rank 9 of 11 falls in the 2,600 ms bucket (2,489–2,788 ms: 4 sessions); the block of two
    // buckets with the victim's (2,489–3,122 ms) holds 5 sessions' samples. The range is shown,
    // the value is not, and the victim is one of the 5 sessions in it.
    const b = await read(sites.b.id);
    expect([b.p75, b.p75_low, b.p75_high]).toEqual([
      SUPPRESSED,
      { value: 2489, qualifier: "estimated" },
      { value: 3122, qualifier: "estimated" },
    ]);
    expect(await sessionsIn(sites.b.id, 2489, 3122)).toBe(5);
    expect(await sessionsIn(sites.b.id, 2788, 3122)).toBe(1); // the victim's bucket alone: never shown

    // CSV carries the range too.
    const csv = await fetch(`${f.stack.url}/api/v1/vitals?site=${sites.b.id}&period=day&metric=LCP`, {
      headers: { authorization: `Bearer ${f.stack.adminKey}`, accept: "text/csv" },
    }).then((r) => r.text());
    const [header, line] = csv.trim().split("\n");
    const cell = (name: string) => line!.split(",")[header!.split(",").indexOf(name)];
    expect([cell("p75"), cell("p75_qualifier"), cell("p75_low"), cell("p75_high")]).toEqual(["", "suppressed", "2489", "3122"]);
  }, 180_000);
});
