/**
 * What the privacy filter hides that it need not: on the reports bench's traffic (30 days,
 * ~1,000 Zipf-distributed pages, sessions with Zipf-distributed dimensions), the real rollup
 * folds the data and every report's day cells are decided by the real rules. Per report, the
 * share of cells with at least k units that are shown, and of those with at least 2k — the
 * cells no rule should need to hide often (docs/reports.md, "Utility") — and of the site-days
 * and hours themselves.
 *
 *   npm run bench utility                       (100 k and 1 M events)
 *   BENCH_UTILITY_SCALES=100000,1000000,10000000 npm run bench utility
 */
import { createClient } from "@libsql/client";
import { readOnly } from "../worker/lib/read-only";
import { loadDayAtoms } from "../worker/reports/atoms";
import { dimensionDays } from "../worker/reports/breakdown";
import { NONE, SMALL } from "../worker/reports/day-partition";
import { DIMENSIONS } from "../worker/reports/dimensions";
import { PAGE_ATOMS_SQL } from "../worker/reports/privacy";
import { catchUp } from "../worker/reports/rollup";
import type { ReportScope } from "../worker/reports/scope";
import { timeseriesReport } from "../worker/reports/timeseries";
import { addDays } from "../worker/reports/timezone";
import { printJson } from "./load";
import { benchHistory, SITE } from "./reports";
import { benchScales, inScratchFolder } from "./scratch";

const K = 5;

/** Cells of at least k and at least 2k units, and how many of each are shown. */
interface Share {
  k: number;
  kShown: number;
  k2: number;
  k2Shown: number;
}

const share = (cells: { units: number; visible: boolean }[]): Share => {
  const s: Share = { k: 0, kShown: 0, k2: 0, k2Shown: 0 };
  for (const c of cells) {
    if (c.units >= K) {
      s.k++;
      if (c.visible) s.kShown++;
    }
    if (c.units >= 2 * K) {
      s.k2++;
      if (c.visible) s.k2Shown++;
    }
  }
  return s;
};
const pct = (shown: number, of: number) => (of === 0 ? "–" : `${((100 * shown) / of).toFixed(2)} %`);

/** Every report's day cells of the scope, with their true units and whether they are shown. */
async function cells(
  client: ReturnType<typeof createClient>,
  scope: ReportScope,
): Promise<Record<string, { units: number; visible: boolean }[]>> {
  const db = readOnly(client as never);
  const out: Record<string, { units: number; visible: boolean }[]> = {};
  const pages = await client.execute({
    sql: `WITH ${PAGE_ATOMS_SQL} SELECT visitors, visible FROM page_atoms`,
    args: [scope.k, scope.siteId, scope.from, scope.to],
  });
  out["pages"] = pages.rows.map((r) => ({ units: Number(r.visitors), visible: Number(r.visible) === 1 }));
  for (const dimension of DIMENSIONS) {
    const { days } = await dimensionDays(db, scope, dimension, []);
    // Cells of k or more come one by one; the small ones (summed per day) are below k anyway.
    out[dimension] = [...days.values()].flatMap((d) =>
      [...d.values.values()].filter((c) => c.key !== SMALL && (c.key !== NONE || c.units > 0)),
    );
  }
  // The site-days themselves: hidden beside their hours (the open rule) or for fewer than k.
  const { siteDays } = await loadDayAtoms(db, scope);
  out["days"] = [...siteDays.values()].map((d) => ({ units: d.units, visible: d.visible }));
  const hours = await client.execute({
    sql: "SELECT hour, visitors FROM rollup_site_hour WHERE site_id = ? AND day >= ? AND day <= ?",
    args: [scope.siteId, scope.from, scope.to],
  });
  const hourly = await timeseriesReport(db, scope, "hour");
  const shownAt = new Map(hourly.points.map((p) => [Date.parse(p.start), p.visitors.value !== null]));
  out["hours"] = hours.rows.map((r) => {
    const hour = Number(r.hour);
    const start = hour < 1e11 ? hour * 3_600_000 : hour;
    return { units: Number(r.visitors), visible: shownAt.get(start) ?? false };
  });
  return out;
}

async function scale(events: number): Promise<void> {
  return inScratchFolder("utility", async (dir) => {
    const { g, client } = await benchHistory(dir, events);
    await catchUp(client as never);
    console.log(
      `\n${events.toLocaleString("en")} events (${g.sessions.toLocaleString("en")} sessions) over ${g.from} … ${g.to}, k = ${K}`,
    );
    console.log("| report | period | cells ≥ k | shown | cells ≥ 2k | shown |\n| --- | --- | ---: | ---: | ---: | ---: |");
    const results: Record<string, Share> = {};
    for (const [period, from] of [
      ["1 day", g.to],
      ["30 days", addDays(g.to, -29)],
    ] as const) {
      const all = await cells(client, { siteId: SITE, from, to: g.to, timeZone: "UTC", k: K });
      for (const [report, list] of Object.entries(all)) {
        const s = share(list);
        results[`${period}: ${report}`] = s;
        console.log(`| ${report} | ${period} | ${s.k} | ${pct(s.kShown, s.k)} | ${s.k2} | ${pct(s.k2Shown, s.k2)} |`);
      }
    }
    printJson({ bench: "utility", events, results });
    client.close();
  });
}

export async function run(): Promise<void> {
  for (const events of benchScales("BENCH_UTILITY_SCALES", "100000,1000000")) await scale(events);
}
