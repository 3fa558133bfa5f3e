/**
 * The cell key method (worker/reports/noise.ts): the perturbation table, the TypeScript and SQL
 * twins giving the same results on a real libSQL database, and what a sybil attacker is left
 * with: padding a small group with sessions of its own and subtracting them no longer gives
 * the victims' number.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOISE_COLUMN, NOISE_TABLE, perturb, perturbSql, unitKey, unitKeySql } from "../../worker/reports/noise";
import { openTestDb, type TestDb } from "./helpers";

let db: TestDb;
let secret: number;
beforeAll(async () => {
  db = await openTestDb();
  secret = Number((await db.client.execute("SELECT secret FROM rollup_cell_key")).rows[0]!.secret);
});
afterAll(() => db?.close());

/** A session id as the collector stores it: 16 random bytes, base64url. */
function sessionId(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
}

describe("the perturbation table", () => {
  it("holds −2…+2 in the documented proportions, with mean 0", () => {
    const counts = [0, 0, 0, 0, 0];
    for (const c of NOISE_TABLE) counts[Number(c)]!++;
    expect(counts).toEqual([26, 51, 102, 51, 26]);
    expect(NOISE_TABLE).toHaveLength(256);
  });

  it("perturbs by at most 2, never below 1, and leaves no data at 0", () => {
    for (let value = 1; value < 300; value++)
      for (let key = 0; key < 256; key += 7) {
        const shown = perturb(value, key, NOISE_COLUMN.units);
        expect(Math.abs(shown - value)).toBeLessThanOrEqual(2);
        expect(shown).toBeGreaterThanOrEqual(1);
      }
    expect(perturb(0, 12345, NOISE_COLUMN.events)).toBe(0);
  });

  it("is a function of the cell: the same key sum and value always read the same", () => {
    expect(perturb(17, 9001, NOISE_COLUMN.units)).toBe(perturb(17, 9001, NOISE_COLUMN.units));
    // Another column of the same cell draws from elsewhere in the table.
    const columns = new Set<number>();
    for (let key = 0; key < 256; key++) columns.add(perturb(50, key, NOISE_COLUMN.units) - perturb(50, key, NOISE_COLUMN.events));
    expect(columns.size).toBeGreaterThan(3);
  });
});

describe("the SQL twins", () => {
  it("give the TypeScript results for perturb and unit keys", async () => {
    const cases: [number, number, number][] = [];
    for (let i = 0; i < 200; i++) cases.push([1 + ((i * 37) % 400), (i * 7919) % 1_000_000, i % 6]);
    const rs = await db.client.execute({
      sql: `SELECT ${cases.map((_, i) => perturbSql(`json_extract(?1, '$[${i}][0]')`, `json_extract(?1, '$[${i}][1]')`, cases[i]![2] as never) + ` AS p${i}`).join(", ")}`,
      args: [JSON.stringify(cases)],
    });
    expect(cases.map((_, i) => Number(rs.rows[0]![`p${i}`]))).toEqual(cases.map(([v, k, c]) => perturb(v, k, c as never)));

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

describe("a sybil attacker", () => {
  it("pads 2 victims with 3 sessions of its own and subtracts them: right only as often as the table's 0", () => {
    // 2,000 trials: a fresh pair of victims each time, the same 3 sybils.
    const sybils = [sessionId(), sessionId(), sessionId()];
    const sybilKeys = sybils.reduce((n, s) => n + unitKey(s, secret), 0);
    const guesses = new Map<number, number>();
    for (let trial = 0; trial < 2000; trial++) {
      const victims = unitKey(sessionId(), secret) + unitKey(sessionId(), secret);
      const shown = perturb(5, victims + sybilKeys, NOISE_COLUMN.units);
      const guess = shown - 3;
      guesses.set(guess, (guesses.get(guess) ?? 0) + 1);
    }
    // Without noise every guess is 2. With it, 2 is right in about 40 % of trials (102/256).
    expect([...guesses.keys()].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(guesses.get(2)! / 2000).toBeGreaterThan(0.3);
    expect(guesses.get(2)! / 2000).toBeLessThan(0.5);
  });
});
