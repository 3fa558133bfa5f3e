/**
 * Freshness: the delay from an hour's end to the first API read that shows its figures, on the
 * real stack (`wren start`, workerd, the embedded libSQL server) with the default publish
 * interval, at 0, 1 M and 10 M events of history (bench/reports.ts `generate`, folded first as a
 * running service would have). The service's clock is moved (WREN_TEST_CLOCK_OFFSET_MS,
 * worker/lib/clock.ts) so that an hour ends shortly after start; a few sessions (k and more) are
 * sent through the real collector in that hour, and `timeseries?period=today` is read every
 * 250 ms until that hour's visitors are shown. The delay is measured on the service's clock.
 *
 *   npm run bench freshness                               (0, 1 M and 10 M)
 *   BENCH_FRESHNESS_SCALES=0,1000000 npm run bench freshness
 *   BENCH_FRESHNESS_INTERVAL=1 npm run bench freshness   (another WREN_PUBLISH_INTERVAL)
 *
 * Target: ≤ 60 s with the default WREN_PUBLISH_INTERVAL (10 s).
 */
import { createClient } from "@libsql/client";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { applyMigrations, openDatabase } from "../cli/database";
import { loadSettings } from "../cli/settings";
import { postBeacon } from "../test/collector/helpers";
import { startStack, type Stack } from "../test/helpers/stack";
import { catchUp } from "../worker/reports/rollup";
import { printJson } from "./load";
import { SITE, generate } from "./reports";
import { benchScales, inScratchFolder } from "./scratch";

const HOUR = 3_600_000;
const SESSIONS = 12;
const POLL_MS = 250;
const TIMEOUT_MS = 300_000;
const TARGET_MS = 60_000;
/** Service time left in the hour after start-up: for the sessions, with room to spare. */
const SPARE_MS = 20_000;

interface Figure {
  value: number | null;
  qualifier: string;
}

interface Measured {
  events: number;
  startupMs: number;
  sentBeforeEndMs: number;
  delayMs: number;
  reads: number;
}

/** Sends `SESSIONS` sessions of one pageview each to the bench site; the service's time after the last. */
async function sendSessions(stack: Stack): Promise<number> {
  for (let i = 0; i < SESSIONS; i++) {
    const res = await postBeacon(stack.url, "bench.example", {
      site: SITE,
      session: randomBytes(16).toString("base64url"),
      events: [{ type: "pageview", path: `/fresh/${i}` }],
    });
    if (res.status !== 202) throw new Error(`beacon refused: ${res.status} ${await res.text()}`);
  }
  return stack.now();
}

/** Reads today's timeseries every POLL_MS until the hour ending at `hourEnd` shows visitors; the service's time then. */
async function firstShown(stack: Stack, hourEnd: number): Promise<{ at: number; reads: number; figure: Figure }> {
  const deadline = Date.now() + TIMEOUT_MS;
  for (let reads = 1; ; reads++) {
    const res = await fetch(`${stack.url}/api/v1/timeseries?site=${SITE}&period=today`, {
      headers: { authorization: `Bearer ${stack.adminKey}` },
    });
    const at = stack.now();
    if (res.status === 200) {
      const body = (await res.json()) as { points: { start: string; visitors: Figure }[] };
      const point = body.points.find((p) => Date.parse(p.start) === hourEnd - HOUR);
      if (point && point.visitors.qualifier !== "suppressed" && (point.visitors.value ?? 0) > 0)
        return { at, reads, figure: point.visitors };
    } else await res.arrayBuffer();
    if (Date.now() > deadline)
      throw new Error(`the hour ending ${new Date(hourEnd).toISOString()} was not shown within ${TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function scale(events: number, interval: string): Promise<Measured> {
  return inScratchFolder("freshness", async (dir) => {
    const migrated = await openDatabase(loadSettings({ ...process.env, WREN_DATA: dir }));
    await applyMigrations(migrated);
    migrated.$client.close();
    let started = performance.now();
    const g = generate(join(dir, "wren.db"), events);
    const client = createClient({ url: `file:${join(dir, "wren.db")}` });
    await client.execute("PRAGMA cache_size = -524288");
    const folded = await catchUp(client as never);
    client.close();
    console.log(
      `\n${(events / 1e6).toFixed(1)} M events (${g.from} … ${g.to}): written and folded (${folded.toLocaleString("en")} rows) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const env = { WREN_RATE_LIMIT: "1000000/60", WREN_PUBLISH_INTERVAL: interval };
    // A first start takes the history over (its first publication) and measures start-up.
    started = performance.now();
    const first = await startStack({ dataDir: dir, env, timeoutMs: 600_000 });
    const firstStartMs = performance.now() - started;
    const adminKey = first.adminKey;
    await first.stop();
    // Started again with the clock moved so that an hour ends start-up + SPARE_MS from now.
    const real = Date.now();
    const lead = Math.ceil(firstStartMs * 1.5) + SPARE_MS;
    const hourEnd = Math.ceil((real + lead) / HOUR) * HOUR;
    started = performance.now();
    const stack = await startStack({
      dataDir: dir,
      env: { ...env, WREN_TEST_CLOCK_OFFSET_MS: String(hourEnd - lead - real) },
      timeoutMs: 600_000,
    });
    const startupMs = performance.now() - started;
    try {
      const service = { ...stack, adminKey };
      const sentAt = await sendSessions(service);
      if (sentAt >= hourEnd)
        throw new Error(`the sessions were sent ${sentAt - hourEnd} ms after the hour's end: start-up outran the lead`);
      const shown = await firstShown(service, hourEnd);
      const delayMs = shown.at - hourEnd;
      console.log(
        `start-up ${(startupMs / 1000).toFixed(1)} s; ${SESSIONS} sessions sent ${((hourEnd - sentAt) / 1000).toFixed(1)} s before the hour's end; ` +
          `first shown ${(delayMs / 1000).toFixed(1)} s after it (${shown.reads} reads; visitors ${shown.figure.value}, ${shown.figure.qualifier}) — target ≤ ${TARGET_MS / 1000} s`,
      );
      return { events, startupMs: Math.round(startupMs), sentBeforeEndMs: hourEnd - sentAt, delayMs, reads: shown.reads };
    } finally {
      await stack.stop();
    }
  });
}

export async function run(): Promise<void> {
  const scales = benchScales("BENCH_FRESHNESS_SCALES", "0,1000000,10000000");
  const interval = process.env.BENCH_FRESHNESS_INTERVAL ?? "10";
  console.log(`WREN_PUBLISH_INTERVAL=${interval} s; polling every ${POLL_MS} ms`);
  const results: Measured[] = [];
  for (const events of scales) results.push(await scale(events, interval));
  console.log("\nevents        delay from the hour's end to its figures");
  for (const r of results)
    console.log(
      `${String(r.events).padStart(10)}    ${(r.delayMs / 1000).toFixed(1)} s${r.delayMs <= TARGET_MS ? "" : "  (over target)"}`,
    );
  printJson({ bench: "freshness", interval_s: Number(interval), results });
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
