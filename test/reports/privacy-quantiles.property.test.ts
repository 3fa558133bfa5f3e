/**
 * Property test of the p75 rule (docs/reports.md, rule 8, "p75"; issue 36 item 3): an attacker sends
 * LCP samples from sybil sessions of its own — chosen values and counts around the rank, as
 * "k + 1 sessions at 10 ms and one at 60 s" put rank 6 of 7 on one victim's sample — beside
 * fewer than k victims anywhere and a few other visitors, on one or two days. The real rollup
 * folds them into a real database and the attacker reads the vitals report for every period.
 * Every p75 it shows, as a value or as the range p75_low–p75_high, must hold samples of at least
 * k distinct sessions, counted from the raw samples: otherwise the reading pins the samples of
 * fewer than k sessions (a victim's LCP to within its bucket, once the attacker's own are
 * subtracted). The range's ends must be the edges of one aligned block of the fixed grid, and a
 * value must lie inside its range.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUCKET_EDGES } from "../../worker/reports/histogram";
import { catchUp } from "../../worker/reports/rollup";
import { vitalsReport } from "../../worker/reports/vitals";
import { addEvents, addSite, addVitals, clearData, openTestDb, type TestDb } from "./helpers";

const SITE = "site_quantiles";
const DAYS = ["2026-11-02", "2026-11-03"];
const PERIODS: [number, number][] = [
  [0, 0],
  [1, 1],
  [0, 1],
];
/** LCP values (ms): far apart, and 2900 / 3100 / 3300 / 3500 in neighbouring buckets. */
const VALUES = [10, 1000, 2400, 2900, 3100, 3300, 3500, 60_000];

interface Group {
  who: "sybil" | "victim" | "other";
  /** Sessions in the group, each sending `samples` samples of `value`. */
  sessions: number;
  value: number;
  samples: number;
  day: number;
}
interface Dataset {
  k: number;
  groups: Group[];
}

const group = (who: Group["who"], max: number) =>
  fc.record({
    who: fc.constant(who),
    sessions: fc.integer({ min: 1, max }),
    value: fc.constantFrom(...VALUES),
    samples: fc.integer({ min: 1, max: 2 }),
    day: fc.integer({ min: 0, max: 1 }),
  });

/** Fewer than k victims in all; sybils in any number and place; a few other visitors. */
const random: fc.Arbitrary<Dataset> = fc.integer({ min: 3, max: 5 }).chain((k) =>
  fc
    .record({
      sybils: fc.array(group("sybil", k + 1), { minLength: 1, maxLength: 4 }),
      victims: fc.array(group("victim", k - 1), { minLength: 1, maxLength: 2 }),
      others: fc.array(group("other", 3), { maxLength: 2 }),
    })
    .filter(({ victims }) => victims.reduce((n, v) => n + v.sessions, 0) < k)
    .map(({ sybils, victims, others }) => ({ k, groups: [...sybils, ...victims, ...others] })),
);

/** The issue's attack: k sybils at 10 ms and one at 60 s put rank ⌈0.75·(k + 2)⌉ on one victim's sample. */
const issue: fc.Arbitrary<Dataset> = fc
  .record({ k: fc.integer({ min: 3, max: 5 }), value: fc.constantFrom(...VALUES) })
  .map(({ k, value }) => ({
    k,
    groups: [
      { who: "sybil", sessions: k, value: 10, samples: 1, day: 0 },
      { who: "sybil", sessions: 1, value: 60_000, samples: 1, day: 0 },
      { who: "victim", sessions: 1, value, samples: 1, day: 0 },
    ],
  }));

interface Sample {
  session: string;
  who: Group["who"];
  day: number;
  value: number;
}

function samplesOf(data: Dataset): Sample[] {
  return data.groups.flatMap((g, gi) =>
    Array.from({ length: g.sessions }, (_, si) =>
      Array.from({ length: g.samples }, () => ({ session: `${g.who}-${gi}-${si}`, who: g.who, day: g.day, value: g.value })),
    ).flat(),
  );
}

async function load(db: TestDb, samples: Sample[]): Promise<void> {
  await clearData(db.client);
  await addSite(db.client, SITE);
  const sessions = [...new Map(samples.map((s) => [s.session, s])).values()];
  const noon = (s: Sample, i: number) => Date.parse(`${DAYS[s.day]}T12:00:00Z`) + i * 1000;
  // Every session views the page and sends its samples there: the vitals atom is the page's.
  await addEvents(
    db.client,
    sessions.map((s, i) => ({ site: SITE, session: s.session, path: "/p", ts: noon(s, i) })),
  );
  await addVitals(
    db.client,
    samples.map((s, i) => ({ site: SITE, session: s.session, path: "/p", metric: "LCP", value: s.value, ts: noon(s, i) + 500 })),
  );
  await catchUp(db.client as never);
}

/** The bucket's index whose lower or upper edge is shown as `value` (ms, rounded). */
const edgeIndex = (value: number) => BUCKET_EDGES.LCP.findIndex((e) => Math.round(e) === value);

/** What each period's p75 shows that it should not: ranges of fewer than k sessions, ends off the grid. */
async function leaks(db: TestDb, data: Dataset, samples: Sample[]): Promise<string[]> {
  const found: string[] = [];
  for (const [a, b] of PERIODS) {
    const scope = { siteId: SITE, from: DAYS[a]!, to: DAYS[b]!, timeZone: "UTC", k: data.k, noise: false };
    const row = (await vitalsReport(db.reader, scope)).find((r) => r.metric === "LCP");
    if (!row || row.p75_low.value === null || row.p75_high.value === null) {
      if (row?.p75.value !== null && row?.p75.value !== undefined) found.push(`${a}-${b}: a value without a range`);
      continue;
    }
    const [low, high] = [row.p75_low.value, row.p75_high.value];
    const inside = samples.filter((s) => s.day >= a && s.day <= b && s.value >= low && s.value <= high);
    const sessions = new Set(inside.map((s) => s.session));
    const whose = [...new Set(inside.map((s) => `${s.who} ${s.value} ms`))].join(", ");
    if (sessions.size < data.k)
      found.push(`${a}-${b}: p75 ${row.p75.value ?? "–"} in ${low}–${high} ms holds ${sessions.size} sessions (${whose})`);
    if (row.p75.value !== null && (row.p75.value < low || row.p75.value > high))
      found.push(`${a}-${b}: p75 ${row.p75.value} outside ${low}–${high}`);
    // The ends are one aligned block of the grid: first = i·2^j, last = first + 2^j − 1 (the
    // buckets above the last edge read at that edge).
    const first = low === 0 ? 0 : edgeIndex(low) + 1;
    const last = edgeIndex(high);
    const block = [0, 1, 2, 3, 4, 5, 6].some(
      (j) => first % 2 ** j === 0 && Math.min(first + 2 ** j - 1, BUCKET_EDGES.LCP.length - 1) === last,
    );
    if (!block) found.push(`${a}-${b}: ${low}–${high} is not a block of the grid`);
  }
  return found;
}

describe("p75 under attack: sybil samples around the rank", () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb();
  });
  afterAll(() => db?.close());

  it("every p75 shown, as a value or a range, holds samples of at least k sessions", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof({ arbitrary: issue, weight: 1 }, { arbitrary: random, weight: 3 }), async (data) => {
        const samples = samplesOf(data);
        await load(db, samples);
        expect(await leaks(db, data, samples)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  it("the issue's attack reads a range of k sessions, not the victim's bucket", async () => {
    // k = 5: five sybils at 10 ms, one at 60 s, the victim at 3,100 ms (bucket 2,788–3,122 ms).
    const data: Dataset = {
      k: 5,
      groups: [
        { who: "sybil", sessions: 5, value: 10, samples: 1, day: 0 },
        { who: "sybil", sessions: 1, value: 60_000, samples: 1, day: 0 },
        { who: "victim", sessions: 1, value: 3100, samples: 1, day: 0 },
      ],
    };
    const samples = samplesOf(data);
    await load(db, samples);
    const row = (await vitalsReport(db.reader, { siteId: SITE, from: DAYS[0]!, to: DAYS[0]!, timeZone: "UTC", k: 5 })).find(
      (r) => r.metric === "LCP",
    )!;
    // Rank 6 of 7 is the victim's sample; the smallest block around it with 5 sessions' samples
    // would be wider than the widest shown (64 buckets): nothing is shown.
    expect([row.p75, row.p75_low, row.p75_high]).toEqual([0, 0, 0].map(() => ({ value: null, qualifier: "suppressed" })));
    expect(await leaks(db, data, samples)).toEqual([]);
  });
});
