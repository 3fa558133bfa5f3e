/**
 * Builds what workerd serves: the three workers bundled from TypeScript into dist/, and the
 * dashboard into dashboard/dist/. `buildIfStale` skips the work when every output is newer
 * than every source, so `npm start` stays fast after the first run.
 */
import { build, type BuildOptions } from "esbuild";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "../cli/paths";
import { buildTracker } from "../tracker/build";

const WORKERS = {
  "dist/api.js": "worker/api/index.ts",
  "dist/collector.js": "worker/collector/index.ts",
  "dist/alerts.js": "worker/alerts/index.ts",
} as const;

const DASHBOARD_OUT = "dashboard/dist";

/**
 * The country database (CC0, @ip-location-db/geo-whois-asn-country-mmdb), copied beside the
 * collector: config.capnp serves it as the Data module `country.mmdb` that
 * worker/collector/dimensions/country-database.ts imports. A module of its own rather than
 * bytes in the bundle: workerd maps the file, where a base64 string in the script cost ~100 MB
 * more memory and ~150 ms more to start.
 */
const COUNTRY_DATABASE = {
  from: "node_modules/@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb",
  to: "dist/country.mmdb",
};

const workerOptions: BuildOptions = {
  bundle: true,
  format: "esm",
  platform: "neutral",
  target: "es2023",
  conditions: ["workerd", "worker", "browser", "import"],
  // The collector's country database is a module of its own (COUNTRY_DATABASE), not bundled.
  external: ["cloudflare:*", "./country.mmdb"],
  mainFields: ["module", "main"],
  minify: false,
  sourcemap: false,
  logLevel: "warning",
};

export async function buildWorkers(): Promise<void> {
  // The collector embeds the tracker bundles, so they are built first.
  await buildTracker();
  mkdirSync(join(ROOT, "dist"), { recursive: true });
  cpSync(join(ROOT, COUNTRY_DATABASE.from), join(ROOT, COUNTRY_DATABASE.to));
  await Promise.all(
    Object.entries(WORKERS).map(([outfile, entry]) =>
      build({ ...workerOptions, entryPoints: [join(ROOT, entry)], outfile: join(ROOT, outfile) }),
    ),
  );
}

const dashboardCommon: BuildOptions = { bundle: true, minify: true, logLevel: "warning", legalComments: "none" };

/**
 * The dashboard's script: app.js (the shell) and a chunk per screen, loaded when first shown
 * (the bench weighs a first load against its budget). Chunk names carry a content hash, so a
 * cached chunk is never a stale one.
 */
export const dashboardScript: BuildOptions = {
  ...dashboardCommon,
  entryPoints: { app: join(ROOT, "dashboard/src/main.tsx") },
  outdir: join(ROOT, DASHBOARD_OUT),
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  format: "esm",
  platform: "browser",
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
};

export async function buildDashboard(): Promise<void> {
  const out = join(ROOT, DASHBOARD_OUT);
  // Chunks of earlier builds would pile up: start from an empty folder.
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  await Promise.all([
    build(dashboardScript),
    // The stylesheet, with uPlot's own folded in: the CSP allows styles from this origin only.
    build({ ...dashboardCommon, entryPoints: [join(ROOT, "dashboard/src/style.css")], outfile: join(out, "style.css") }),
  ]);
  cpSync(join(ROOT, "dashboard/public"), out, { recursive: true });
}

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((max, name) => Math.max(max, newestMtime(join(path, name))), stat.mtimeMs);
}

function stale(outputs: string[], sources: string[]): boolean {
  if (outputs.some((o) => !existsSync(join(ROOT, o)))) return true;
  const oldestOutput = Math.min(...outputs.map((o) => statSync(join(ROOT, o)).mtimeMs));
  const newestSource = Math.max(...sources.map((s) => newestMtime(join(ROOT, s))));
  return newestSource > oldestOutput;
}

/** Rebuilds only the parts whose sources changed since their last build. */
export async function buildIfStale(): Promise<string[]> {
  const built: string[] = [];
  if (stale([...Object.keys(WORKERS), COUNTRY_DATABASE.to], ["worker", "tracker/src", "package-lock.json"])) {
    await buildWorkers();
    built.push("workers");
  }
  if (stale([`${DASHBOARD_OUT}/app.js`, `${DASHBOARD_OUT}/index.html`], ["dashboard/src", "dashboard/public", "worker/lib"])) {
    await buildDashboard();
    built.push("dashboard");
  }
  return built;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await Promise.all([buildWorkers(), buildDashboard()]);
  console.log("built dist/api.js, dist/collector.js, dist/alerts.js and dashboard/dist/");
}
