/**
 * What the security guards cost, measured in one run beside what they replace or guard:
 *
 * - goal patterns: the linear-time glob matcher (worker/lib/glob.ts) against the backtracking
 *   regex it replaced, on a typical pattern and on the attack (`/*a*a*a*b` and a long run of
 *   `a`), where the regex's time grows with the power of the stars;
 * - the embedded server's SQL policy (server/hrana/sql-policy.ts): the check per statement
 *   against the statement analysis every request already pays, on Wren's own statements.
 *
 *   npx tsx bench/guards.ts        (or: npm run bench guards)
 */
import Database from "libsql";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyzeSingle } from "../server/hrana/sql-analysis";
import { SqlPolicy } from "../server/hrana/sql-policy";
import { compileGlob } from "../worker/lib/glob";

/** The matcher the glob replaced, kept here only to measure against. */
function backtrackingRegex(pattern: string): RegExp {
  return new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
}

/** Median nanoseconds per call over `rounds` rounds of `calls` calls each. */
function nsPerCall(calls: number, fn: () => unknown, rounds = 7): number {
  const figures: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) fn();
    figures.push(Number(process.hrtime.bigint() - start) / calls);
  }
  figures.sort((a, b) => a - b);
  return figures[Math.floor(figures.length / 2)]!;
}

const fmt = (ns: number) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(1)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(1)} µs` : `${ns.toFixed(0)} ns`);

function goalPatterns(): void {
  console.log("goal pattern matching (median per match; ratio = regex / glob):");
  const cases: { name: string; pattern: string; path: string; calls: number }[] = [
    { name: "typical: /blog/* vs /blog/2026/11/a-post", pattern: "/blog/*", path: "/blog/2026/11/a-post", calls: 200_000 },
    { name: "typical: /checkout/*/thanks", pattern: "/checkout/*/thanks", path: "/checkout/step-3/thanks", calls: 200_000 },
  ];
  // The attack, at sizes the regex still finishes: its time grows ~n^(stars), the glob's ~n.
  for (const n of [50, 100, 200, 400]) {
    cases.push({ name: `attack: /*a*a*a*b vs / + ${n} × a`, pattern: "/*a*a*a*b", path: `/${"a".repeat(n)}`, calls: n <= 100 ? 200 : 5 });
  }
  for (const c of cases) {
    const glob = compileGlob(c.pattern);
    const regex = backtrackingRegex(c.pattern);
    if (glob.matches(c.path) !== regex.test(c.path)) throw new Error(`glob and regex disagree on ${c.name}`);
    const globNs = nsPerCall(Math.max(c.calls, 1_000), () => glob.matches(c.path));
    const regexNs = nsPerCall(c.calls, () => regex.test(c.path), 3);
    console.log(`  ${c.name.padEnd(44)} glob ${fmt(globNs).padStart(9)}   regex ${fmt(regexNs).padStart(9)}   ratio ${(regexNs / globNs).toFixed(1)}`);
  }
  // The glob's own worst: prefix and suffix match, and a middle segment that never occurs is
  // searched across the whole longest path a beacon may carry.
  const path = `/${"a".repeat(1022)}a`;
  for (const pattern of [`/*${"ab*".repeat(14)}a`, "/*aaaaaaab*a"]) {
    const glob = compileGlob(pattern);
    const cost = { steps: 0 };
    glob.matches(path, cost);
    console.log(`  glob worst case: ${pattern.slice(0, 24).padEnd(24)} vs 1,024 × a: ${fmt(nsPerCall(2_000, () => glob.matches(path))).padStart(8)}, ${cost.steps} comparisons`);
  }
}

/** Statements Wren sends on its hot paths (collector commits, report reads). */
const WREN_STATEMENTS = [
  "INSERT INTO events (site_id, session_id, kind, name, path, referrer, value, seconds, scroll_depth, ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  "INSERT INTO sessions (id, site_id, first_seen, last_seen, entry_path, pageviews) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen), pageviews = pageviews + excluded.pageviews",
  "SELECT path, sum(pageviews) AS pageviews, count(DISTINCT session_id) AS visitors FROM events WHERE site_id = ? AND ts >= ? AND ts < ? GROUP BY path ORDER BY pageviews DESC LIMIT 100",
  "SELECT 1 AS ok FROM sites WHERE domain = ? OR EXISTS (SELECT 1 FROM json_each(sites.allowlist) WHERE value = ?) LIMIT 1",
];

function sqlPolicy(): void {
  const dir = mkdtempSync(join(tmpdir(), "wren-bench-guards-"));
  try {
    const db = new Database(join(dir, "inventory.db"));
    const names = (sql: string) => (db.prepare(sql).raw(true).all() as [string][]).map((row) => String(row[0]));
    const policy = new SqlPolicy({
      functions: names("SELECT DISTINCT name FROM pragma_function_list"),
      modules: names("SELECT DISTINCT name FROM pragma_module_list"),
    });
    db.close();
    console.log(`\nSQL policy of the embedded server (${policy.deniedFunctions.size} engine functions refused; median per statement):`);
    for (const sql of WREN_STATEMENTS) {
      const statement = analyzeSingle(sql);
      const analysisNs = nsPerCall(20_000, () => analyzeSingle(sql));
      const checkNs = nsPerCall(20_000, () => policy.check(statement));
      console.log(`  ${sql.slice(0, 60).padEnd(60)}… analysis ${fmt(analysisNs).padStart(8)}   check ${fmt(checkNs).padStart(8)}   check/analysis ${(checkNs / analysisNs).toFixed(2)}`);
    }
    console.log("  (a statement's analysis and check run once per distinct SQL text; the server caches the result)");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  goalPatterns();
  sqlPolicy();
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
