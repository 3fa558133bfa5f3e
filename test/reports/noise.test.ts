/**
 * The cell key method (worker/reports/noise.ts, noise-position.ts): the perturbation table, the
 * keyed position, the TypeScript and SQL twins giving the same results on a real libSQL
 * database, the post-processing that keeps a row from contradicting itself (read through the
 * real rollup and reports), and what a sybil attacker is left with: padding a small group with
 * sessions of its own and subtracting them no longer gives the victims' number.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { breakdownReport } from "../../worker/reports/breakdown";
import { conversionsReport } from "../../worker/reports/conversions";
import {
  MAX_PERTURBATION,
  NOISE_TABLE,
  perturb,
  perturbationAt,
  perturbSql,
  shownCounts,
  shownEventsSql,
  shownUnitsSql,
  unitKey,
  unitKeySql,
  type NoiseKey,
} from "../../worker/reports/noise";
import { noisePosition, noisePositionSql, TABLE_SIZE } from "../../worker/reports/noise-position";
import { pagesReport } from "../../worker/reports/pages";
import { catchUp } from "../../worker/reports/rollup";
import type { ReportScope } from "../../worker/reports/scope";
import { addConversions, addEvents, addGoal, addSite, at, noiseKey, openTestDb, sessions, type TestDb } from "./helpers";

let db: TestDb;
let secret: number;
let key: NoiseKey;
beforeAll(async () => {
  db = await openTestDb();
  secret = Number((await db.client.execute("SELECT secret FROM rollup_cell_key")).rows[0]!.secret);
  key = await noiseKey(db.client);
});
afterAll(() => db?.close());

/** A session id as the collector stores it: 16 random bytes, base64url. */
function sessionId(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
}

describe("the perturbation table", () => {
  it("holds −5…+5 in 4096 entries in the documented proportions, with mean 0 and variance 1.78", () => {
    expect(TABLE_SIZE).toBe(4096);
    expect(NOISE_TABLE).toHaveLength(4096);
    const d = Array.from({ length: TABLE_SIZE }, (_, i) => perturbationAt(i));
    const counts = new Array<number>(11).fill(0);
    for (const x of d) counts[x + 5]!++;
    expect(counts).toEqual([4, 16, 102, 369, 901, 1312, 901, 369, 102, 16, 4]);
    expect(d.reduce((a, b) => a + b, 0)).toBe(0);
    expect(d.reduce((a, b) => a + b * b, 0)).toBe(2 * 3651);
    expect((d.reduce((a, b) => a + b * b, 0) / TABLE_SIZE).toFixed(2)).toBe("1.78");
  });

  it("perturbs by at most 5, never below 1, and leaves no data at 0", () => {
    expect(MAX_PERTURBATION).toBe(5);
    for (let value = 1; value < 300; value++)
      for (let sum = 0; sum < 5000; sum += 97) {
        const shown = perturb(value, sum, key);
        expect(Math.abs(shown - value)).toBeLessThanOrEqual(5);
        expect(shown).toBeGreaterThanOrEqual(1);
      }
    expect(perturb(0, 12345, key)).toBe(0);
  });

  it("reads every one of the 4096 places, in proportion, from the keyed position", () => {
    // 400,000 cells: each place is expected 97.7 times; the ±5 tails (8 places) 781 times.
    const hits = new Array<number>(TABLE_SIZE).fill(0);
    for (let sum = 0; sum < 2000; sum++)
      for (let value = 1; value <= 200; value++) hits[noisePosition(sum * 7919, value, key)]!++;
    expect(Math.min(...hits)).toBeGreaterThan(40);
    expect(Math.max(...hits)).toBeLessThan(170);
    const tails = hits.filter((_, i) => Math.abs(perturbationAt(i)) === 5).reduce((a, b) => a + b, 0);
    expect(tails / 400_000).toBeGreaterThan(0.0017);
    expect(tails / 400_000).toBeLessThan(0.0023);
  });

  it("gives the TypeScript table position in SQL, over the whole table", async () => {
    const cases = Array.from({ length: 300 }, (_, i) => [i * 104_729 + 13, 1 + (i % 37)] as const);
    const rs = await db.client.execute({
      sql: `SELECT ${cases.map((_, i) => `${noisePositionSql(`json_extract(?1, '$[${i}][0]')`, `json_extract(?1, '$[${i}][1]')`)} AS x${i}`).join(", ")}`,
      args: [JSON.stringify(cases)],
    });
    const sql = cases.map((_, i) => Number(rs.rows[0]![`x${i}`]));
    expect(sql).toEqual(cases.map(([sum, value]) => noisePosition(sum, value, key)));
    expect(Math.max(...sql)).toBeGreaterThan(3500);
  });

  it("is one perturbation per unit set and value: the same key sum and value always read the same", () => {
    expect(perturb(17, 9001, key)).toBe(perturb(17, 9001, key));
    // Other values of the same unit set are other readings, spread over the whole table.
    const seen = new Set<number>();
    // 20,000 values: each ±5 (1 in 1024) is missed with probability e^−19.5.
    for (let value = 100; value < 20_100; value++) seen.add(perturb(value, 9001, key) - value);
    expect([...seen].sort((a, b) => a - b)).toEqual([-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5]);
  });

  it("reads the table at a place both secrets decide", () => {
    const moved = [0, 0];
    for (let sum = 0; sum < 2000; sum++) {
      const at = noisePosition(sum, 7, key);
      if (noisePosition(sum, 7, { ...key, secret: (key.secret % 2147483645) + 1 }) !== at) moved[0]!++;
      if (noisePosition(sum, 7, { ...key, positionSecret: (key.positionSecret % 2147483645) + 1 }) !== at) moved[1]!++;
    }
    // A changed secret moves almost every cell (1 in 4096 lands on the same place by chance).
    expect(moved[0]).toBeGreaterThan(1950);
    expect(moved[1]).toBeGreaterThan(1950);
  });
});

describe("the noise secrets", () => {
  it("are drawn per database by the migrations, in 1…2^31 − 2", async () => {
    const other = await openTestDb();
    try {
      const [a, b] = [key, await noiseKey(other.client)];
      for (const k of [a, b]) {
        expect(k.positionSecret).toBeGreaterThanOrEqual(1);
        expect(k.positionSecret).toBeLessThanOrEqual(2 ** 31 - 2);
      }
      expect(a.positionSecret).not.toBe(b.positionSecret);
      expect(a.positionSecret).not.toBe(a.secret);
    } finally {
      other.close();
    }
  });
});

describe("the SQL twins", () => {
  it("give the TypeScript results for perturb and the post-processing, over key sums up to 2^50 and values up to 2^40", async () => {
    const value = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 2 ** 40 }));
    const sum = fc.oneof(fc.integer({ min: 0, max: 70_000 }), fc.integer({ min: 0, max: 2 ** 50 }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(value, sum, value), { minLength: 60, maxLength: 60 }), async (cases) => {
        const arg = (i: number, j: number) => `json_extract(?1, '$[${i}][${j}]')`;
        const columns = cases.flatMap((_, i) => [
          `${perturbSql(arg(i, 0), arg(i, 1))} AS p${i}`,
          `${shownUnitsSql(arg(i, 0), arg(i, 1), "5")} AS u${i}`,
          `${shownEventsSql(arg(i, 2), arg(i, 0), arg(i, 1), "5")} AS e${i}`,
        ]);
        const rs = await db.client.execute({ sql: `SELECT ${columns.join(", ")}`, args: [JSON.stringify(cases)] });
        const row = rs.rows[0]!;
        for (const [i, [v, s, events]] of cases.entries()) {
          const shown = shownCounts({ units: v, events, keySum: s }, key, 5, true);
          expect([row[`p${i}`], row[`u${i}`], row[`e${i}`]].map(Number)).toEqual([perturb(v, s, key), shown.units, shown.events]);
        }
      }),
      { numRuns: 15 },
    );
  });

  it("give the TypeScript unit keys", async () => {
    const units = [...Array.from({ length: 50 }, sessionId), "e:1", "c:982451653", "v:42", "s0", ""];
    const keys = await db.client.execute({
      sql: `SELECT ${units.map((_, i) => `${unitKeySql(`json_extract(?1, '$[${i}]')`)} AS k${i}`).join(", ")}`,
      args: [JSON.stringify(units)],
    });
    expect(units.map((_, i) => Number(keys.rows[0]![`k${i}`]))).toEqual(units.map((u) => unitKey(u, secret)));
  });

  it("spread session keys evenly over the cell keys", () => {
    const buckets = new Array<number>(8).fill(0);
    for (let i = 0; i < 8000; i++) buckets[unitKey(sessionId(), secret) % 8]!++;
    for (const n of buckets) expect(n).toBeGreaterThan(800);
  });
});

describe("post-processing: no row contradicts itself", () => {
  const SITE = "site_noise";
  const Y = "2026-11-02";
  let scope: ReportScope;
  beforeAll(async () => {
    await addSite(db.client, SITE);
    await addGoal(db.client, SITE, "goal_n");
    // 60 pages of 5 to 9 sessions, one pageview each: visitors and pageviews are the same
    // sessions with the same count. Every session converts once; their countries cut the day.
    const events = [];
    const conversions = [];
    for (let p = 0; p < 60; p++)
      for (const s of sessions(`p${p}-`, 5 + (p % 5))) {
        events.push({ site: SITE, session: s, path: `/p${p}`, ts: at(Y, 10), dims: { country: `C${p % 30}` } });
        conversions.push({ site: SITE, goal: "goal_n", session: s, ts: at(Y, 10) });
      }
    await addEvents(db.client, events);
    await addConversions(db.client, conversions);
    await catchUp(db.client as never);
    scope = { siteId: SITE, from: Y, to: Y, timeZone: "UTC", k: 5, noise: true, noiseKey: key };
  });

  it("shows a page-day of k or more visitors as at least k, its pageviews as its visitors when they are the same count", async () => {
    const report = await pagesReport(db.reader, scope);
    expect(report.rows).toHaveLength(60);
    for (const r of report.rows) {
      expect(r.visitors.value!).toBeGreaterThanOrEqual(5);
      expect(r.pageviews.value).toBe(r.visitors.value);
    }
    // Re-reading never changes a figure.
    expect(await pagesReport(db.reader, scope)).toEqual(report);
  });

  it("shows a goal's conversions at least its converting sessions, and a breakdown value's pageviews at least its visitors", async () => {
    const conversions = await conversionsReport(db.reader, scope);
    for (const r of conversions.rows) expect(r.conversions.value).toBe(r.converting_sessions.value);
    const countries = await breakdownReport(db.reader, scope, "country", "goal_n");
    const shown = countries.rows.filter((r) => r.visitors.value !== null);
    expect(shown.length).toBeGreaterThan(20);
    for (const r of shown) {
      expect(r.visitors.value!).toBeGreaterThanOrEqual(5);
      expect(r.pageviews.value).toBe(r.visitors.value);
      expect(r.conversions!.value).toBe(r.converting_sessions!.value);
      // The same sessions with the same count: the converting sessions read as the visitors.
      expect(r.converting_sessions!.value).toBe(r.visitors.value);
    }
  });
});

describe("a sybil attacker", () => {
  it("pads 2 victims with 3 sessions of its own and subtracts them: 2 to 7 victims, right only as often as the table's 0 and below", () => {
    // 4,000 trials: a fresh pair of victims each time, the same 3 sybils.
    const sybils = [sessionId(), sessionId(), sessionId()];
    const sybilKeys = sybils.reduce((n, s) => n + unitKey(s, secret), 0);
    const guesses = new Map<number, number>();
    for (let trial = 0; trial < 4000; trial++) {
      const victims = unitKey(sessionId(), secret) + unitKey(sessionId(), secret);
      const shown = shownCounts({ units: 5, events: 0, keySum: victims + sybilKeys }, key, 5, false).units;
      const guess = shown - 3;
      guesses.set(guess, (guesses.get(guess) ?? 0) + 1);
    }
    // Without noise every guess is 2. A shown cell never reads below k = 5 (its visibility says
    // that much), so 5 reads 5 to 10 and 2 is right when the table gives 0 or less (2704/4096 =
    // 66 %); guesses 6 and 7 need the rare +4 and +5 (20 in 4096), so they may not show up here.
    const guessed = [...guesses.keys()].sort((a, b) => a - b);
    expect(guessed.slice(0, 4)).toEqual([2, 3, 4, 5]);
    expect(guessed.every((g) => g >= 2 && g <= 7)).toBe(true);
    expect(guesses.get(2)! / 4000).toBeGreaterThan(0.6);
    expect(guesses.get(2)! / 4000).toBeLessThan(0.72);
  });
});
