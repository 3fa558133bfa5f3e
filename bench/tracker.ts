/**
 * `npm run bench tracker`: the tracker's weight. Builds the bundles as the collector serves them
 * (tracker/build.ts) and prints each one's minified and gzip size against its budget: the core,
 * which every page loads, ≤ 2,560 B gzip; the Core Web Vitals and link parts load only when
 * asked for. Exits non-zero when a bundle is over its budget. Ends with one JSON line.
 */
import { TRACKER_BUDGETS, bundleTracker, gzipSize, type TrackerBundles } from "../tracker/build";
import { printJson } from "./load";

export async function run(): Promise<void> {
  const bundles = await bundleTracker();
  const figures = (Object.keys(bundles) as (keyof TrackerBundles)[]).map((name) => ({
    name,
    bytes: bundles[name].length,
    gzip: gzipSize(bundles[name]),
    budget: TRACKER_BUDGETS[name],
  }));
  console.log("bundle   minified   gzip   budget (gzip)   loaded");
  for (const f of figures) {
    const loaded = f.name === "core" ? "always" : f.name === "vitals" ? "after load (data-vitals)" : "data-track";
    console.log(
      `${f.name.padEnd(8)} ${String(f.bytes).padStart(8)} B ${String(f.gzip).padStart(6)} B ${String(f.budget).padStart(8)} B ${f.gzip <= f.budget ? "ok  " : "OVER"}   ${loaded}`,
    );
  }
  const over = figures.filter((f) => f.gzip > f.budget);
  if (over.length) process.exitCode = 1;
  printJson({
    bench: "tracker",
    bundles: Object.fromEntries(figures.map((f) => [f.name, { bytes: f.bytes, gzip: f.gzip, budget: f.budget }])),
    over: over.map((f) => f.name),
  });
}
