/**
 * The best attacker on the noise, simulated (docs/reports.md "Noise", Limits): a small group of
 * v victims (1 … k − 1, uniform prior) is read N times, each reading v + c_i + noise with c_i the
 * attacker's own known sessions (or pageviews, samples) and the noise drawn from the public
 * table at a place it cannot predict (independent draws: the keyed position). It takes the
 * maximum-likelihood v. Printed per N = 1 … 12, 16, 18, 20 (a hidden page-day yields about 16
 * a day, plus at most 2 through goals): how often that estimate is right, and how often v is
 * determined with certainty (only one v has any likelihood), for the first table (±2:
 * 10/20/40/20/10 %), the second (±3: 3/9/22/32/22/9/3 %) and the one in use (±5 in 4096,
 * worker/reports/noise.ts SPREAD); then the same for the two shapes
 * of issue 36 (nested goals; one page-day and its vitals), with the post-processing (a cell of
 * k or more never reads below k). Pure arithmetic, a few seconds; run by `npm run bench noise`.
 */
import { SPREAD } from "../worker/reports/noise";
import { printJson } from "./load";

const K = 5;
const OLD = [26, 51, 102, 51, 26];
const MID = [8, 23, 56, 82, 56, 23, 8];
const NEW: number[] = [...SPREAD];
const total = (spread: number[]) => spread.reduce((a, b) => a + b, 0);

interface Reading {
  /** The attacker's own part of the true value. */
  offset: number;
  /** A count of units: a true value of k or more never reads below k. */
  units: boolean;
}

/** P(shown | true value) for one reading under a table spread. */
function likelihood(spread: number[], reading: Reading, value: number, shown: number): number {
  const half = (spread.length - 1) / 2;
  let p = 0;
  spread.forEach((count, i) => {
    const raw = Math.max(1, value + i - half);
    const post = reading.units && value >= K ? Math.max(K, raw) : raw;
    if (post === shown) p += count / total(spread);
  });
  return p;
}

/** A perturbation drawn from the table. */
function draw(spread: number[], random: () => number): number {
  let r = random() * total(spread);
  const half = (spread.length - 1) / 2;
  for (let i = 0; i < spread.length; i++) {
    r -= spread[i]!;
    if (r < 0) return i - half;
  }
  return half;
}

/** A small fixed-seed generator (mulberry32): the bench prints the same figures every run. */
export function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Monte Carlo over the prior: P(ML estimate right), P(v determined). */
export function attack(
  spread: number[],
  readings: Reading[],
  trials = 100_000,
  fixedV?: number,
): { right: number; determined: number } {
  const random = generator(0x5eed + readings.length);
  let right = 0;
  let determined = 0;
  for (let t = 0; t < trials; t++) {
    const v = fixedV ?? 1 + Math.floor(random() * (K - 1));
    const shown = readings.map((r) => {
      const raw = Math.max(1, v + r.offset + draw(spread, random));
      return r.units && v + r.offset >= K ? Math.max(K, raw) : raw;
    });
    let best = 0;
    let bestL = -1;
    let possible = 0;
    for (let c = 1; c < K; c++) {
      const l = readings.reduce((acc, r, i) => acc * likelihood(spread, r, c + r.offset, shown[i]!), 1);
      if (l > 0) possible++;
      if (l > bestL) [best, bestL] = [c, l];
    }
    if (best === v) right++;
    if (possible === 1) determined++;
  }
  return { right: right / trials, determined: determined / trials };
}

const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
const TABLES = [
  ["±2", OLD],
  ["±3", MID],
  ["±5", NEW],
] as const;
const header = (lead: string[]) => {
  const cells = [...lead, ...TABLES.flatMap(([name]) => [`${name}: right`, `${name}: determined`])];
  console.log(`| ${cells.join(" | ")} |`);
  console.log(`| ${cells.map((_, i) => (i < lead.length - 1 ? "---" : "---:")).join(" | ")} |`);
};

export async function run(): Promise<void> {
  const results: Record<string, unknown> = {};
  console.log(
    `\nN independent readings of v + c_i + noise, v uniform in 1…${K - 1}, maximum likelihood (no clamps: c_i = 10 + i):`,
  );
  header(["N"]);
  for (const n of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 18, 20]) {
    const readings = Array.from({ length: n }, (_, i) => ({ offset: 10 + i, units: false }));
    const row = TABLES.map(([, spread]) => attack(spread, readings));
    results[`N=${n}`] = Object.fromEntries(TABLES.map(([name], i) => [name, row[i]]));
    console.log(`| ${n} | ${row.map((r) => `${pct(r.right)} | ${pct(r.determined)}`).join(" | ")} |`);
  }
  // The issue's two shapes, through the post-processing, for 2 victims and over the prior.
  const nested = [3, 8, 13, 18, 23, 28].map((offset) => ({ offset, units: true }));
  const vitals = [4, 9, 4, 7, 10, 13, 16].map((offset, i) => ({ offset, units: i !== 1 }));
  console.log("\nThe issue's shapes (readings after post-processing; one draw per distinct value):");
  header(["attack", "readings", "v"]);
  for (const [name, readings] of [
    ["nested goals (3, 8 … 28 sybils)", nested],
    ["page-day + 5 vitals samples", vitals],
  ] as const) {
    for (const v of [2, undefined]) {
      const row = TABLES.map(([, spread]) => attack(spread, readings, 100_000, v));
      results[`${name}, v=${v ?? "prior"}`] = Object.fromEntries(TABLES.map(([n], i) => [n, row[i]]));
      console.log(
        `| ${name} | ${readings.length} | ${v ?? `1…${K - 1}`} | ${row.map((r) => `${pct(r.right)} | ${pct(r.determined)}`).join(" | ")} |`,
      );
    }
  }
  printJson({ bench: "noise-attack", k: K, results });
}
