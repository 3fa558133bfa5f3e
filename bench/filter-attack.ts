/**
 * The averaging attacker on filters (docs/reports.md "Filters"; attack FX in
 * test/reports/privacy-filters.property.test.ts), simulated: v victims (uniform in 1 … k − 1) are
 * in a combination the attacker can name; it adds M sybils there, each tagged with a campaign of
 * its own (utm_campaign c_1 … c_M), and reads N different cells that all hold the victims: the
 * combination with no campaign filter, then with `utm_campaign!:c_i`, then with two and three
 * such filters (a filtered report takes up to three), so that cell i holds v + M − jᵢ units, jᵢ
 * the sybils it leaves out (each cell a different set of them). Each cell is another unit set, hence another key sum and another
 * draw: the shown figure is computed by the rule's own code (privacy/filtered.ts) with the
 * victims' and sybils' unit keys drawn at random and a random database secret. The attacker
 * knows M, every jᵢ, the public table (noise.ts SPREAD), its tails and the rule, and takes the
 * maximum-likelihood v over the readings (draws of different cells: independent to anyone without
 * the secrets); "certain" is when one v alone has any likelihood.
 *
 * For each N (1, 4, 16, 64, 256) every M from 0 to 3k, reading N cells or fewer of them, is tried
 * on a few thousand groups and the best by ML (and, separately, by certainty) is run on fresh ones: for the rule served
 * (filteredRule) and with its noisy threshold taken out (filteredOnTrueCounts). Pure arithmetic
 * over the rule's code; run by `npm run bench filter-attack`.
 */
import { MAX_PERTURBATION, SPREAD } from "../worker/reports/noise";
import type { NoiseKey } from "../worker/reports/noise-position";
import { filteredOnTrueCounts, filteredRule, type FilteredRule } from "../worker/reports/privacy";
import { printJson } from "./load";
import { generator } from "./noise-attack";

const K = 5;
const READINGS = [1, 4, 16, 64, 256];
/** Filters per report (explore/filters.ts MAX_FILTERS): the most sybils one cell leaves out. */
const MAX_LEFT_OUT = 3;
const SEARCH_TRIALS = 2_000;
const TRIALS = 20_000;
const HIDDEN = -1;
const TOTAL = SPREAD.reduce((a, b) => a + b, 0);

/** The sybils each of the first n cells leaves out: none, then each one, each two and each three of M. */
function leftOut(m: number, n: number): number[][] | null {
  const out: number[][] = [[]];
  for (let size = 1; size <= MAX_LEFT_OUT && out.length < n; size++) {
    const walk = (from: number, chosen: number[]) => {
      if (out.length >= n) return;
      if (chosen.length === size) return void out.push(chosen);
      for (let s = from; s < m; s++) walk(s + 1, [...chosen, s]);
    };
    walk(0, []);
  }
  return out.length >= n ? out.slice(0, n) : null;
}

/** Tail steps the attacker's model follows (each halves the mass; past this the rest is below 2^-40). */
const TAIL_STEPS = 40;

/**
 * P(what is shown | u true units) under the rule, from the public table and its tails
 * (privacy/filtered.ts: a ±5 draw goes on by t more with odds 2^-(t+1)): observation → probability.
 */
function distribution(rule: FilteredRule, u: number): Map<number, number> {
  const out = new Map<number, number>();
  const add = (p: number, mass: number) => {
    const perturbed = Math.max(1, u + p);
    const shown = u < K || (rule === filteredRule && perturbed < K) ? HIDDEN : Math.max(K, perturbed);
    out.set(shown, (out.get(shown) ?? 0) + mass);
  };
  SPREAD.forEach((count, i) => {
    const p = i - MAX_PERTURBATION;
    if (Math.abs(p) < MAX_PERTURBATION) return add(p, count / TOTAL);
    for (let t = 0; t <= TAIL_STEPS; t++) add(p + Math.sign(p) * t, (count / TOTAL) * 2 ** -(t + 1));
  });
  return out;
}

/** Monte Carlo over the prior: P(ML estimate right), P(v certain). */
function attack(rule: FilteredRule, m: number, cells: number[][], trials: number, seed: number) {
  const random = generator(seed);
  const tables = new Map<number, Map<number, number>>();
  const table = (u: number) => {
    if (!tables.has(u)) tables.set(u, distribution(rule, u));
    return tables.get(u)!;
  };
  const key: NoiseKey = { secret: 1 + Math.floor(random() * 2147483645), positionSecret: 1 + Math.floor(random() * 2147483645) };
  const unitKey = () => Math.floor(random() * 65536);
  let right = 0;
  let certain = 0;
  // Log-likelihoods: a product of 256 probabilities underflows a double.
  const likelihood = new Array<number>(K).fill(0);
  for (let t = 0; t < trials; t++) {
    const v = 1 + Math.floor(random() * (K - 1));
    let victims = 0;
    for (let i = 0; i < v; i++) victims += unitKey();
    const sybils = Array.from({ length: m }, unitKey);
    const all = victims + sybils.reduce((a, b) => a + b, 0);
    likelihood.fill(0);
    cells.forEach((out) => {
      // Another unit set: another key sum, so another place in the table.
      const keySum = all - out.reduce((n, s) => n + sybils[s]!, 0);
      const j = out.length;
      const units = v + m - j;
      const shown = rule.shown({ units, events: units, keySum }, key, K, true);
      const o = shown ? shown.units : HIDDEN;
      for (let c = 1; c < K; c++) likelihood[c]! += Math.log(table(c + m - j).get(o) ?? 0);
    });
    let best = 1;
    let possible = 0;
    for (let c = 1; c < K; c++) {
      if (likelihood[c]! > -Infinity) possible++;
      if (likelihood[c]! > likelihood[best]!) best = c;
    }
    if (best === v) right++;
    if (possible === 1) certain++;
  }
  return { right: right / trials, certain: certain / trials };
}

/**
 * The M, and how many of the N cells to read (fewer can be better: cells near the threshold need
 * few sybils, and few sybils make few cells), with the most ML hits (or certainties) on a search
 * sample, then measured on fresh groups.
 */
function best(rule: FilteredRule, n: number, goal: "right" | "certain") {
  let top: { m: number; used: number; score: number } | null = null;
  for (const used of READINGS.filter((r) => r <= n))
    for (let m = 0; m <= 3 * K; m++) {
      const cells = leftOut(m, used);
      if (!cells) continue;
      const r = attack(rule, m, cells, SEARCH_TRIALS, 0x7d + used + m);
      const score = goal === "right" ? r.right + r.certain / 1000 : r.certain + r.right / 1000;
      if (!top || score > top.score) top = { m, used, score };
    }
  const { m, used } = top!;
  return { m, used, ...attack(rule, m, leftOut(m, used)!, TRIALS, 0x5eed + n) };
}

const pct = (x: number) => `${(x * 100).toFixed(2)} %`;

export async function run(): Promise<void> {
  const cases = [
    ["served", filteredRule, "right"],
    ["served, padded for certainty", filteredRule, "certain"],
    ["threshold on true counts", filteredOnTrueCounts, "certain"],
  ] as const;
  console.log(
    `\n1 … ${K - 1} victims read in N different filtered cells with M campaign-tagged sybils (up to ${MAX_LEFT_OUT} left out per cell), maximum likelihood (k = ${K}):`,
  );
  const heads = cases.flatMap(([name]) => [`${name}: right`, `${name}: certain`, `${name}: M, cells read`]);
  console.log(`| N | ${heads.join(" | ")} |`);
  console.log(`| ---: | ${heads.map(() => "---:").join(" | ")} |`);
  const results: Record<string, unknown> = {};
  for (const n of READINGS) {
    const row = cases.map(([, rule, goal]) => best(rule, n, goal));
    results[`N=${n}`] = Object.fromEntries(cases.map(([name], i) => [name, row[i]]));
    console.log(`| ${n} | ${row.map((r) => `${pct(r.right)} | ${pct(r.certain)} | ${r.m}, ${r.used}`).join(" | ")} |`);
  }
  printJson({ bench: "filter-attack", k: K, results });
}
