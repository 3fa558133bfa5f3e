/**
 * What deciding nested dimensions together (worker/reports/privacy/nested-dimensions.ts) costs:
 * the reports bench's traffic (30 days, sessions with a source, campaign tags, browser, system,
 * device) is folded by the real rollup, timed (the pair cells fold with the dimension cells),
 * and every day's breakdown cells of the linked dimensions are decided twice on the same rollups
 * — with the day's pair cells, and with them deleted (each dimension alone, as before the rule).
 * Prints, per dimension, the cells of at least k and of at least 2k sessions and the share shown.
 *
 *   npm run bench nesting                       (100 k and 1 M events; a few minutes)
 *   BENCH_NESTING_SCALES=20000 npm run bench nesting
 */
import type { Client } from "@libsql/client";
import { readOnly } from "../worker/lib/read-only";
import { dimensionDays } from "../worker/reports/breakdown";
import { NONE, SMALL } from "../worker/reports/day-partition";
import type { Dimension } from "../worker/reports/dimensions";
import { DEFAULT_K } from "../worker/reports/privacy";
import { catchUp } from "../worker/reports/rollup";
import { benchHistory, SITE } from "./reports";
import { benchScales, inScratchFolder } from "./scratch";

const DIMENSIONS: Dimension[] = ["device", "os", "browser", "source", "utm_source", "utm_campaign"];

interface Shares {
  atLeastK: number;
  shownK: number;
  atLeast2K: number;
  shown2K: number;
}

async function decide(client: Client, from: string, to: string): Promise<Map<Dimension, Shares>> {
  const reader = readOnly(client as never);
  const scope = { siteId: SITE, from, to, timeZone: "UTC", k: DEFAULT_K };
  const out = new Map<Dimension, Shares>();
  for (const dimension of DIMENSIONS) {
    const { days } = await dimensionDays(reader, scope, dimension, []);
    const s: Shares = { atLeastK: 0, shownK: 0, atLeast2K: 0, shown2K: 0 };
    for (const day of days.values()) {
      for (const c of day.values.values()) {
        if (c.key === SMALL || c.key === NONE || c.units < DEFAULT_K) continue;
        s.atLeastK++;
        if (c.visible) s.shownK++;
        if (c.units >= 2 * DEFAULT_K) {
          s.atLeast2K++;
          if (c.visible) s.shown2K++;
        }
      }
    }
    out.set(dimension, s);
  }
  return out;
}

const pct = (a: number, b: number) => (b === 0 ? "–" : `${((100 * a) / b).toFixed(1)} %`);

/**
 * The reports bench draws device, system and browser independently, so they rarely nest; in the
 * second run each system fixes the device (Windows, macOS, Linux, Chrome OS desktop; iOS mobile;
 * Android mobile, or tablet where the session had one), as the fixed hierarchy has it.
 */
const SYSTEMS_FIX_DEVICE =
  "UPDATE events SET device = CASE WHEN os LIKE 'iOS%' THEN 'mobile' WHEN os LIKE 'Android%' THEN " +
  "(CASE WHEN device = 'tablet' THEN 'tablet' ELSE 'mobile' END) ELSE 'desktop' END WHERE device IS NOT NULL";

async function scale(events: number, nested: boolean): Promise<void> {
  await inScratchFolder("nesting", async (dir) => {
    const { g, client } = await benchHistory(dir, events);
    try {
      if (nested) await client.execute(SYSTEMS_FIX_DEVICE);
      const started = performance.now();
      const folded = await catchUp(client as never);
      const seconds = (performance.now() - started) / 1000;
      const pairs = Number((await client.execute("SELECT count(*) AS n FROM rollup_dimension_pair_day")).rows[0]!.n);
      console.log(
        `\n${(events / 1e6).toFixed(1)} M events (${g.sessions.toLocaleString("en")} sessions${nested ? ", systems fix the device" : ""}): catch-up ${folded.toLocaleString("en")} rows in ` +
          `${seconds.toFixed(1)} s (${Math.round(folded / seconds).toLocaleString("en")} rows/s); ${pairs.toLocaleString("en")} pair cells`,
      );
      const after = await decide(client, g.from, g.to);
      await client.execute("DELETE FROM rollup_dimension_pair_day");
      const before = await decide(client, g.from, g.to);
      console.log("dimension     | cells ≥ k | shown before | after   | cells ≥ 2k | shown before | after");
      for (const d of DIMENSIONS) {
        const [b, a] = [before.get(d)!, after.get(d)!];
        console.log(
          `${d.padEnd(13)} | ${String(a.atLeastK).padStart(9)} | ${pct(b.shownK, b.atLeastK).padStart(12)} | ${pct(a.shownK, a.atLeastK).padStart(7)} | ` +
            `${String(a.atLeast2K).padStart(10)} | ${pct(b.shown2K, b.atLeast2K).padStart(12)} | ${pct(a.shown2K, a.atLeast2K).padStart(7)}`,
        );
      }
    } finally {
      client.close();
    }
  });
}

export async function run(): Promise<void> {
  for (const events of benchScales("BENCH_NESTING_SCALES", "100000,1000000"))
    for (const nested of [false, true]) await scale(events, nested);
}
