/**
 * What the cell key method (worker/reports/noise.ts) costs in accuracy on realistic data: the
 * reports bench's traffic (30 days, ~1,000 Zipf-distributed pages, sessions, conversions on
 * three goals) is folded by the real rollup, and every report is computed twice on the same
 * rollups, exact and perturbed. For every figure shown in both, the absolute and relative
 * error; printed per report with the share of figures changed, and for the top 10 pages and
 * sources (by exact visitors over 30 days), what a small site's reader looks at first. It first
 * runs the attacker simulation (noise-attack.ts).
 *
 *   npm run bench noise                         (100 k and 1 M events; a few minutes)
 *   BENCH_NOISE_SCALES=100000,1000000,10000000 npm run bench noise
 */
import { createClient } from "@libsql/client";
import { readOnly } from "../worker/lib/read-only";
import type { Figure } from "../worker/reports/figures";
import { breakdownReport } from "../worker/reports/breakdown";
import { conversionsReport } from "../worker/reports/conversions";
import { funnelReport } from "../worker/reports/funnels";
import { NOISE_KEY_SQL, noiseKeyOf } from "../worker/reports/noise";
import { pagesReport } from "../worker/reports/pages";
import { catchUp } from "../worker/reports/rollup";
import { printJson } from "./load";
import { run as attackSimulation } from "./noise-attack";
import type { ReportScope } from "../worker/reports/scope";
import { timeseriesReport } from "../worker/reports/timeseries";
import { addDays } from "../worker/reports/timezone";
import { benchHistory, GOALS, SITE } from "./reports";
import { benchScales, inScratchFolder } from "./scratch";

interface Errors {
  figures: number;
  changed: number;
  absolute: number[];
  relative: number[];
}

function compare(errors: Errors, exact: Figure, noisy: Figure): void {
  if (exact.value === null || noisy.value === null || exact.value === 0) return;
  errors.figures++;
  const diff = Math.abs(noisy.value - exact.value);
  if (diff > 0) errors.changed++;
  errors.absolute.push(diff);
  errors.relative.push(diff / exact.value);
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const pct = (x: number) => `${(x * 100).toFixed(2)} %`;

type Pair = [Figure, Figure][];

async function reportPairs(client: ReturnType<typeof createClient>, scope: ReportScope): Promise<Record<string, Pair>> {
  const db = readOnly(client as never);
  const noisy = { ...scope, noise: true, noiseKey: noiseKeyOf((await client.execute(NOISE_KEY_SQL)).rows[0] as never) };
  const out: Record<string, Pair> = {};
  const pages = [await pagesReport(db, scope), await pagesReport(db, noisy)] as const;
  const byPath = new Map(pages[1].rows.map((r) => [r.path, r]));
  out["pages: visitors per page"] = pages[0].rows.map((r) => [r.visitors, byPath.get(r.path)!.visitors]);
  out["pages: pageviews per page"] = pages[0].rows.map((r) => [r.pageviews, byPath.get(r.path)!.pageviews]);
  const top = <T extends { visitors: Figure }>(rows: T[]) =>
    [...rows].sort((a, b) => (b.visitors.value ?? -1) - (a.visitors.value ?? -1)).slice(0, 10);
  out["pages: top 10 by visitors"] = top(pages[0].rows).map((r) => [r.visitors, byPath.get(r.path)!.visitors]);
  const sources = [await breakdownReport(db, scope, "source"), await breakdownReport(db, noisy, "source")] as const;
  const bySource = new Map(sources[1].rows.map((r) => [r.value, r]));
  out["sources: visitors per source"] = sources[0].rows.map((r) => [r.visitors, bySource.get(r.value)!.visitors]);
  out["sources: top 10 by visitors"] = top(sources[0].rows).map((r) => [r.visitors, bySource.get(r.value)!.visitors]);
  const days = [await timeseriesReport(db, scope, "day"), await timeseriesReport(db, noisy, "day")] as const;
  out["timeseries: visitors per day"] = days[0].points.map((p, i) => [p.visitors, days[1].points[i]!.visitors]);
  out["timeseries: pageviews per day"] = days[0].points.map((p, i) => [p.pageviews, days[1].points[i]!.pageviews]);
  const conversions = [await conversionsReport(db, scope), await conversionsReport(db, noisy)] as const;
  out["conversions: converting sessions per goal"] = conversions[0].rows.map((r, i) => [
    r.converting_sessions,
    conversions[1].rows[i]!.converting_sessions,
  ]);
  out["conversions: rate per goal"] = conversions[0].rows.map((r, i) => [r.rate, conversions[1].rows[i]!.rate]);
  const funnel = [await funnelReport(db, scope, GOALS), await funnelReport(db, noisy, GOALS)] as const;
  out["funnels: sessions per step"] = funnel[0].map((s, i) => [s.sessions, funnel[1][i]!.sessions]);
  return out;
}

async function scale(events: number): Promise<void> {
  return inScratchFolder("noise", async (dir) => {
    const { g, client } = await benchHistory(dir, events);
    await catchUp(client as never);
    console.log(
      `\n${events.toLocaleString("en")} events (${g.sessions.toLocaleString("en")} sessions) over ${g.from} … ${g.to}, k = 5`,
    );
    const results: Record<string, unknown> = {};
    for (const [period, from] of [
      ["1 day", g.to],
      ["30 days", addDays(g.to, -29)],
    ] as const) {
      const pairs = await reportPairs(client, { siteId: SITE, from, to: g.to, timeZone: "UTC", k: 5 });
      console.log(`\n${period}:\n| figure | shown | changed | median error | p95 error | max error | max abs |`);
      console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
      for (const [name, list] of Object.entries(pairs)) {
        const errors: Errors = { figures: 0, changed: 0, absolute: [], relative: [] };
        for (const [exact, noisy] of list) compare(errors, exact, noisy);
        const row = {
          shown: errors.figures,
          changed: errors.figures === 0 ? 0 : errors.changed / errors.figures,
          median: quantile(errors.relative, 0.5),
          p95: quantile(errors.relative, 0.95),
          max: quantile(errors.relative, 1),
          maxAbsolute: Number(quantile(errors.absolute, 1).toFixed(4)),
        };
        results[`${period}: ${name}`] = row;
        console.log(
          `| ${name} | ${row.shown} | ${pct(row.changed)} | ${pct(row.median)} | ${pct(row.p95)} | ${pct(row.max)} | ${row.maxAbsolute} |`,
        );
      }
    }
    printJson({ bench: "noise", events, results });
    client.close();
  });
}

export async function run(): Promise<void> {
  await attackSimulation();
  const scales = benchScales("BENCH_NOISE_SCALES", "100000,1000000");
  for (const events of scales) await scale(events);
}
