/**
 * `wren backup` and `wren restore` (docs/operations.md "Backup and restore"; docs/performance.md):
 * a data folder with 300,000 events of the reports bench's traffic (bench/reports.ts generate),
 * folded into the rollups, then:
 *
 * 1. ingest beside backups: pageview beacons (10 connections) on a `wren start` stack alone, then
 *    the same load while `wren backup --force` runs as an operator's cron runs it (a process of
 *    its own), one after another until the load ends: the beacons' rate against alone;
 * 2. with Wren stopped: `wren backup` and `wren restore` into a fresh folder, each as a process,
 *    beside `wren --version` (the process's own start, the floor of any command); the backup's
 *    size against the database's; the restored database's rows counted against the original's.
 *
 *   npm run bench backup
 *   BENCH_BACKUP_EVENTS=1000000 BENCH_BACKUP_SECONDS=15 npm run bench backup
 */
import { createClient } from "@libsql/client";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { runWren, startStack, type CliResult } from "../test/helpers/stack";
import { catchUp } from "../worker/reports/rollup";
import { median } from "./alerts";
import { pageviewBeacons, printJson, type BeaconFigures } from "./load";
import { benchHistory, SITE } from "./reports";
import { inScratchFolder } from "./scratch";

const EVENTS = Number(process.env.BENCH_BACKUP_EVENTS ?? 300_000);
const BEACON_SECONDS = Number(process.env.BENCH_BACKUP_SECONDS ?? 10);
const CONNECTIONS = 10;
const RUNS = 3;
const DOMAIN = "bench.example";
const MB = 1024 * 1024;

/** A `wren` command as a process, timed; a failure stops the bench with what it said. */
async function timedWren(args: string[], env: NodeJS.ProcessEnv): Promise<{ s: number; result: CliResult }> {
  const started = performance.now();
  const result = await runWren(args, env);
  const s = (performance.now() - started) / 1000;
  if (result.code !== 0) throw new Error(`wren ${args.join(" ")} exited ${result.code}: ${result.stderr || result.stdout}`);
  return { s, result };
}

/** The database's bytes on disk: the file and its WAL. */
function databaseBytes(dir: string): number {
  return ["wren.db", "wren.db-wal"]
    .map((name) => join(dir, name))
    .filter((file) => existsSync(file))
    .reduce((sum, file) => sum + statSync(file).size, 0);
}

/** Row counts of the tables a backup must carry whole, to compare a restored folder with its original. */
async function rowCounts(file: string): Promise<Record<string, number>> {
  const client = createClient({ url: `file:${file}` });
  try {
    const out: Record<string, number> = {};
    for (const table of ["events", "sessions", "conversions", "rollup_site_day", "rollup_page_day"]) {
      out[table] = Number((await client.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
    }
    return out;
  } finally {
    client.close();
  }
}

interface IngestFigures {
  alone: BeaconFigures;
  during: BeaconFigures;
  backups: number[];
}

/** Part 1: beacons alone, then beside back-to-back backups, on a running stack. */
async function ingestBesideBackups(dir: string, target: string): Promise<IngestFigures> {
  const stack = await startStack({
    dataDir: dir,
    env: { WREN_RATE_LIMIT: "100000000/60", WREN_PUBLISH_INTERVAL: "10" },
    timeoutMs: 300_000,
  });
  try {
    const site = { id: SITE, domain: DOMAIN };
    await pageviewBeacons(stack.url, site, CONNECTIONS, 2); // warm-up: isolates, statement caches
    const alone = await pageviewBeacons(stack.url, site, CONNECTIONS, BEACON_SECONDS);
    let loading = true;
    const load = pageviewBeacons(stack.url, site, CONNECTIONS, BEACON_SECONDS).finally(() => (loading = false));
    const backups: number[] = [];
    while (loading) backups.push((await timedWren(["backup", "--force", "--json", target], stack.env)).s);
    return { alone, during: await load, backups };
  } finally {
    await stack.stop();
  }
}

export async function run(): Promise<void> {
  await inScratchFolder("backup", async (root) => {
    const dir = join(root, "data");
    mkdirSync(dir);
    const started = performance.now();
    const { client } = await benchHistory(dir, EVENTS);
    await catchUp(client as never);
    client.close();
    console.log(
      `${EVENTS.toLocaleString("en-US")} events written and folded in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );

    const target = join(root, "wren.backup");
    const ingest = await ingestBesideBackups(dir, target);
    const share = ingest.during.perS / ingest.alone.perS;

    // Wren stopped: the folder as a restore would find it (the WAL checkpointed at the stop).
    const env = { ...process.env, WREN_DATA: dir };
    const starts: number[] = [];
    for (let i = 0; i < RUNS; i++) starts.push((await timedWren(["--version"], env)).s);
    const floor = median(starts);
    const backups: number[] = [];
    let backupBytes = 0;
    for (let i = 0; i < RUNS; i++) {
      const { s, result } = await timedWren(["backup", "--force", "--json", target], env);
      backups.push(s);
      backupBytes = (JSON.parse(result.stdout) as { bytes: number }).bytes;
    }
    const restores: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      restores.push(
        (await timedWren(["restore", "--json", target], { ...process.env, WREN_DATA: join(root, `restored-${i}`) })).s,
      );
    }
    const dbBytes = databaseBytes(dir);
    const original = await rowCounts(join(dir, "wren.db"));
    const restored = await rowCounts(join(root, "restored-0", "wren.db"));
    if (JSON.stringify(original) !== JSON.stringify(restored)) {
      throw new Error(`the restored folder differs: ${JSON.stringify(restored)} against ${JSON.stringify(original)}`);
    }

    const n = (value: number) => Math.round(value).toLocaleString("en-US");
    const s = (value: number) => `${value.toFixed(2)} s`;
    console.log(
      [
        `database ${(dbBytes / MB).toFixed(1)} MB (${n(original.events!)} events, ${n(original.rollup_page_day!)} page-day rollup rows); ` +
          `backup file ${(backupBytes / MB).toFixed(1)} MB (${((100 * backupBytes) / dbBytes).toFixed(0)} % of it)`,
        `Wren stopped, median of ${RUNS}: wren backup ${s(median(backups))}, wren restore ${s(median(restores))}; ` +
          `a wren process's own start (wren --version) ${s(floor)}`,
        `beacons alone          ${n(ingest.alone.perS).padStart(6)} /s  p99 ${ingest.alone.p99} ms`,
        `beacons beside backups ${n(ingest.during.perS).padStart(6)} /s  p99 ${ingest.during.p99} ms  ` +
          `(${(100 * share).toFixed(0)} % of alone; ${ingest.backups.length} backups back to back, median ${s(median(ingest.backups))})`,
        `restored folder: the same rows as the original (${Object.keys(original).join(", ")})`,
      ].join("\n"),
    );
    if (ingest.alone.non2xx + ingest.during.non2xx > 0) throw new Error("some beacons were not acknowledged");
    printJson({
      bench: "backup",
      events: EVENTS,
      database_mb: Math.round((dbBytes / MB) * 10) / 10,
      backup_mb: Math.round((backupBytes / MB) * 10) / 10,
      backup_s: Math.round(median(backups) * 100) / 100,
      restore_s: Math.round(median(restores) * 100) / 100,
      process_start_s: Math.round(floor * 100) / 100,
      beacons_alone_per_s: Math.round(ingest.alone.perS),
      beacons_during_backup_per_s: Math.round(ingest.during.perS),
      beacons_share: Math.round(share * 100) / 100,
      backup_under_load_s: Math.round(median(ingest.backups) * 100) / 100,
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
