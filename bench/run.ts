/**
 * `npm run bench [name…] [--json]`: runs the benchmarks and prints their figures. Each bench
 * module exports `run()`; they run one after another so they do not compete for the two cores.
 * Most benches end with one line of JSON (bench/load.ts `printJson`; guards, dashboard, reports
 * and scale-out print tables only); with `--json` that line is all that goes to stdout, the
 * tables go to stderr.
 */
const BENCHES: Record<string, () => Promise<{ run(): Promise<void> }>> = {
  libsql: () => import("./libsql"),
  ingest: () => import("./ingest"),
  "scale-out": () => import("./scale-out"),
  reports: () => import("./reports"),
  mixed: () => import("./mixed"),
  guards: () => import("./guards"),
  noise: () => import("./noise"),
  "today-attack": () => import("./today-attack"),
  explore: () => import("./explore"),
  "filter-attack": () => import("./filter-attack"),
  arrivals: () => import("./arrivals"),
  utility: () => import("./utility"),
  nesting: () => import("./nesting"),
  alerts: () => import("./alerts"),
  digests: () => import("./digests"),
  dashboard: () => import("./dashboard"),
  live: () => import("./live"),
  soak: () => import("./soak"),
  freshness: () => import("./freshness"),
  today: () => import("./today"),
  tracker: () => import("./tracker"),
  revenue: () => import("./revenue"),
  people: () => import("./people"),
  oidc: () => import("./oidc"),
  shares: () => import("./shares"),
  imported: () => import("./imported"),
  imports: () => import("./imports"),
  backup: () => import("./backup"),
};

const json = process.argv.includes("--json");
if (json) console.log = console.error;
const wanted = process.argv.slice(2).filter((arg) => arg !== "--json");
const names = wanted.length > 0 ? wanted : Object.keys(BENCHES);
for (const name of names) {
  const load = BENCHES[name];
  if (!load) {
    console.error(`unknown bench "${name}"; known: ${Object.keys(BENCHES).join(", ")}`);
    process.exit(2);
  }
  console.log(`\n=== bench: ${name} ===`);
  await (await load()).run();
}

export {};
