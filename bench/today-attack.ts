/**
 * The best attacker on today's pages (docs/reports.md "Today"; attack TD in
 * test/reports/privacy-today.property.test.ts), simulated: v real visitors (uniform in 1 … k − 1)
 * view one path once each before the day's first reading, and nobody else comes; the attacker
 * reads the path's row after N closed hours (N = 1, 6, 12, 23) and adds sybils before each hour
 * so that every reading is a new unit set, hence a fresh draw of the cell-key noise for its units
 * and one for its pageviews. Reading i holds U = v + cᵢ units and E = v + dᵢ pageviews (cᵢ its
 * sybils, dᵢ their pageviews, both nondecreasing; one view each makes E = U, the same draw): it
 * shows nothing below k, true or perturbed, else the bands of width k of the perturbed counts
 * (privacy/today.ts bandedToday, noise.ts shownCounts' floors). The attacker knows v is constant
 * and takes the maximum-likelihood v; "determined" is certainty (one v has any likelihood).
 *
 * "Pads optimally": for each N every schedule of the family cᵢ = c₀ + i·step, dᵢ = cᵢ (one view
 * each) or cᵢ + shift + i·extra is tried on a few thousand groups, and the best by ML is run on
 * 100,000 fresh ones (or the best by certainty), any c₀ (hidden readings step the threshold).
 * Printed for the rule served, by ML and padded for certainty; with the threshold on true counts
 * only (k − 1 − j sybils tell "at most j", k − j "at least j": certain); and with the band removed
 * (noise only, as a whole day's cell). Pure arithmetic; run by `npm run bench today-attack`.
 */
import { MAX_PERTURBATION, NOISE_TABLE, perturbationAt, SPREAD } from "../worker/reports/noise";
import { bandOf } from "../worker/reports/privacy";
import { printJson } from "./load";
import { generator } from "./noise-attack";

const K = 5;
const READINGS = [1, 6, 12, 23];
const SEARCH_TRIALS = 2_000;
const TRIALS = 100_000;
const TOTAL = NOISE_TABLE.length;
const HIDDEN = -1;

/** A padding schedule: sybils and their pageviews before reading i. */
interface Schedule {
  c0: number;
  step: number;
  /** null: one view per sybil (pageviews = units: the same draw). */
  events: { shift: number; extra: number } | null;
}

const sybils = (s: Schedule, i: number) => s.c0 + i * s.step;
const sybilViews = (s: Schedule, i: number) => (s.events ? sybils(s, i) + s.events.shift + i * s.events.extra : sybils(s, i));

/** A rule: bands or counts; the threshold on the perturbed units too (served) or on the true ones only. */
interface Rule {
  banded: boolean;
  noisyThreshold: boolean;
}

/** What a reading of u units and e pageviews shows with perturbations pu, pe: one number per observation. */
function shown(u: number, e: number, pu: number, pe: number, rule: Rule): number {
  if (u < K || (rule.noisyThreshold && u + pu < K)) return HIDDEN;
  const banded = rule.banded;
  const units = Math.max(K, Math.max(1, u + pu));
  const views = Math.max(units, Math.max(1, e + (e === u ? pu : pe)));
  return banded ? bandOf(units, K).low * 10_000 + bandOf(views, K).low : units * 10_000 + views;
}

const PERTURBATIONS = SPREAD.map((count, i) => ({ p: i - MAX_PERTURBATION, weight: count / TOTAL }));

/** P(observation | v) for reading i of a schedule. */
function distribution(s: Schedule, i: number, v: number, banded: Rule): Map<number, number> {
  const out = new Map<number, number>();
  const u = v + sybils(s, i);
  const e = v + sybilViews(s, i);
  for (const a of PERTURBATIONS)
    for (const b of e === u ? [{ p: 0, weight: 1 }] : PERTURBATIONS) {
      const o = shown(u, e, a.p, b.p, banded);
      out.set(o, (out.get(o) ?? 0) + a.weight * b.weight);
    }
  return out;
}

/** Monte Carlo over the prior: P(ML estimate right), P(v determined). */
function attack(s: Schedule, n: number, banded: Rule, trials: number, seed: number): { right: number; determined: number } {
  const tables = Array.from({ length: n }, (_, i) =>
    Array.from({ length: K }, (_, v) => (v === 0 ? null : distribution(s, i, v, banded))),
  );
  const random = generator(seed);
  const draw = () => perturbationAt(Math.floor(random() * TOTAL));
  let right = 0;
  let determined = 0;
  const likelihood = new Array<number>(K).fill(1);
  for (let t = 0; t < trials; t++) {
    const v = 1 + Math.floor(random() * (K - 1));
    likelihood.fill(1);
    for (let i = 0; i < n; i++) {
      const o = shown(v + sybils(s, i), v + sybilViews(s, i), draw(), draw(), banded);
      for (let c = 1; c < K; c++) likelihood[c]! *= tables[i]![c]!.get(o) ?? 0;
    }
    let best = 1;
    let possible = 0;
    for (let c = 1; c < K; c++) {
      if (likelihood[c]! > 0) possible++;
      if (likelihood[c]! > likelihood[best]!) best = c;
    }
    if (best === v) right++;
    if (possible === 1) determined++;
  }
  return { right: right / trials, determined: determined / trials };
}

function schedules(minC0: number): Schedule[] {
  const out: Schedule[] = [];
  for (let c0 = minC0; c0 <= 3 * K; c0++)
    for (let step = 1; step <= K; step++) {
      out.push({ c0, step, events: null });
      for (let shift = 1; shift < 2 * K; shift++)
        for (let extra = 0; extra <= 2; extra++) out.push({ c0, step, events: { shift, extra } });
    }
  return out;
}

/** The schedule with the most ML hits (or certainties) on a search sample, then measured on fresh groups. */
function best(n: number, banded: Rule, minC0: number, goal: "right" | "determined") {
  let top = { schedule: schedules(minC0)[0]!, score: -1 };
  for (const schedule of schedules(minC0)) {
    const { right, determined } = attack(schedule, n, banded, SEARCH_TRIALS, 0x7d + n);
    const score = goal === "right" ? right + determined / 1000 : determined + right / 1000;
    if (score > top.score) top = { schedule, score };
  }
  return { schedule: top.schedule, ...attack(top.schedule, n, banded, TRIALS, 0x5eed + n) };
}

const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
const describe = (s: Schedule) =>
  `${s.c0}+${s.step}/h${s.events ? `, views +${s.events.shift}+${s.events.extra}/h` : ", 1 view"}`;

export async function run(): Promise<void> {
  const served: Rule = { banded: true, noisyThreshold: true };
  const cases = [
    ["served", served, 0, "right"],
    ["served, padded for certainty", served, 0, "determined"],
    ["threshold on true counts", { banded: true, noisyThreshold: false }, 0, "determined"],
    ["band removed (noise only)", { banded: false, noisyThreshold: true }, 0, "right"],
  ] as const;
  console.log(
    `\n${K - 1} or fewer visitors on one path, read after N closed hours with fresh sybils each hour, maximum likelihood (k = ${K}):`,
  );
  const cells = cases.flatMap(([name]) => [`${name}: right`, `${name}: determined`, `${name}: schedule`]);
  console.log(`| N | ${cells.join(" | ")} |`);
  console.log(`| ---: | ${cells.map(() => "---:").join(" | ")} |`);
  const results: Record<string, unknown> = {};
  for (const n of READINGS) {
    const row = cases.map(([, banded, minC0, goal]) => best(n, banded, minC0, goal));
    results[`N=${n}`] = Object.fromEntries(cases.map(([name], i) => [name, row[i]]));
    console.log(`| ${n} | ${row.map((r) => `${pct(r.right)} | ${pct(r.determined)} | ${describe(r.schedule)}`).join(" | ")} |`);
  }
  printJson({ bench: "today-attack", k: K, results });
}
