/**
 * Revenue figures (docs/reports.md "Revenue"): the bench traffic of bench/reports.ts with the
 * purchase goal made a revenue goal (each conversion 5–205 EUR), folded by the real catch-up, then
 * each revenue figure timed computed cold (what a reader waits for after a fold) and compared with
 * the exact sums: the conversions report's revenue per goal over 30 days (unfiltered: every
 * converting unit; filtered by country:DE), a breakdown by country with the goal, and the query
 * metrics per goal. Accuracy: the relative error of each shown total against the exact one.
 *
 *   npm run bench revenue                          (100 k and 1 M events)
 *   BENCH_REVENUE_SCALES=1000000 npm run bench revenue
 *
 * Target: the revenue step of a report p95 ≤ 150 ms at 1 M events (the filtered reports' target,
 * bench/explore.ts). The last line is one JSON object with the figures.
 */
import { readOnly } from "../worker/lib/read-only";
import { parseFilter, type Filter } from "../worker/reports/explore/filters";
import { NOISE_KEY_SQL, noiseKeyOf } from "../worker/reports/noise";
import { exactRevenue } from "../worker/reports/privacy";
import { queryBody } from "../worker/reports/query/schema";
import { runQuery } from "../worker/reports/query/run";
import { withBreakdownRevenue, withConversionsRevenue, type RevenueOptions } from "../worker/reports/revenue";
import { catchUp } from "../worker/reports/rollup";
import type { ReportScope } from "../worker/reports/scope";
import { printJson } from "./load";
import { benchHistory, GOALS, SITE } from "./reports";
import { benchScales, inScratchFolder } from "./scratch";

const RUNS = 20;
const TARGET_P95_MS = 150;
const BUY = GOALS[2]!;
const COUNTRIES = ["DE", "US", "FR", "GB", "NL", "IN", "BR", "JP"];

const filter = (text: string): Filter => {
  const f = parseFilter(text);
  if ("error" in f) throw new Error(f.error);
  return f;
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function run(): Promise<void> {
  const out: Record<string, unknown> = {};
  for (const events of benchScales("BENCH_REVENUE_SCALES", "100000,1000000")) {
    await inScratchFolder("revenue", async (dir) => {
      const { g, client } = await benchHistory(dir, events);
      // The purchase goal becomes a revenue goal; each conversion 5–205 EUR (a fixed hash of its id).
      await client.execute({ sql: "UPDATE goals SET currency = 'EUR' WHERE id = ?", args: [BUY] });
      await client.execute({
        sql: "UPDATE conversions SET revenue = 500 + ((id * 2654435761) % 4294967296) % 20000, currency = 'EUR' WHERE goal_id = ?",
        args: [BUY],
      });
      const t0 = performance.now();
      await catchUp(client as never);
      const foldMs = performance.now() - t0;
      const db = readOnly(client as never);
      const scope: ReportScope = {
        siteId: SITE,
        from: g.from,
        to: g.to,
        timeZone: "UTC",
        k: 5,
        noise: true,
        noiseKey: noiseKeyOf((await client.execute(NOISE_KEY_SQL)).rows[0] as Record<string, unknown>),
      };
      const row = { goal: { id: BUY }, converting_sessions: { value: 1, qualifier: "estimated" as const } };
      const rows = COUNTRIES.map((value) => ({
        value,
        other: false,
        converting_sessions: { value: 1, qualifier: "estimated" as const },
      }));
      const body = queryBody.parse({
        site_id: SITE,
        metrics: ["visitors", "total_revenue", "average_revenue"],
        dimensions: ["event:goal"],
        date_range: [g.from, g.to],
      });
      const cases: [string, (o?: RevenueOptions) => Promise<(number | null)[]>][] = [
        ["conversions 30d", async (o) => [(await withConversionsRevenue(db, scope, [row], null, o))[0]!.total_revenue!.value]],
        [
          "conversions 30d country:DE",
          async (o) => [(await withConversionsRevenue(db, scope, [row], [filter("country:DE")], o))[0]!.total_revenue!.value],
        ],
        [
          "breakdown country goal",
          async (o) => (await withBreakdownRevenue(db, scope, rows, "country", BUY, [], o)).map((r) => r.total_revenue!.value),
        ],
        [
          "query visitors by goal (no revenue)",
          async () => {
            const plain = queryBody.parse({ ...body, metrics: ["visitors"] });
            await runQuery(db, scope, plain);
            return [];
          },
        ],
        [
          "query total_revenue by goal",
          async (o) => {
            const result = await runQuery(db, scope, body, { revenue: o });
            return [result.rows.find((r) => r.dimensions[0] === BUY)?.metrics[1] ?? null];
          },
        ],
      ];
      const scale: Record<string, unknown> = { events: g.events, conversions: g.conversions, fold_ms: Math.round(foldMs) };
      console.log(
        `\n${g.events.toLocaleString("en")} events, ${g.conversions.toLocaleString("en")} conversions: catch-up ${Math.round(foldMs)} ms`,
      );
      console.log("figure                         | p50 ms | p95 ms | shown/true | median error | max error");
      for (const [name, compute] of cases) {
        const times: number[] = [];
        let shown: (number | null)[] = [];
        for (let i = 0; i < RUNS; i++) {
          const t = performance.now();
          shown = await compute();
          times.push(performance.now() - t);
        }
        times.sort((a, b) => a - b);
        const truth = await compute({ rule: exactRevenue });
        const errors = shown
          .map((v, i) => (v === null || !truth[i] ? null : Math.abs(v - truth[i]!) / truth[i]!))
          .filter((e): e is number => e !== null)
          .sort((a, b) => a - b);
        const figure = {
          p50_ms: Number(percentile(times, 50).toFixed(1)),
          p95_ms: Number(percentile(times, 95).toFixed(1)),
          shown: `${errors.length}/${truth.filter((t) => t).length}`,
          median_error_pct: errors.length ? Number((percentile(errors, 50) * 100).toFixed(2)) : null,
          max_error_pct: errors.length ? Number((errors[errors.length - 1]! * 100).toFixed(2)) : null,
        };
        scale[name] = figure;
        console.log(
          `${name.padEnd(30)} | ${String(figure.p50_ms).padStart(6)} | ${String(figure.p95_ms).padStart(6)} | ${figure.shown.padStart(10)} | ${String(figure.median_error_pct ?? "–").padStart(10)} % | ${String(figure.max_error_pct ?? "–").padStart(7)} %` +
            (figure.p95_ms > TARGET_P95_MS ? `  (over the ${TARGET_P95_MS} ms target)` : ""),
        );
      }
      out[String(events)] = scale;
      client.close();
    });
  }
  printJson(out);
}
