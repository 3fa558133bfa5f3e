/**
 * What the benches share to put load on the stack and to see what it cost: autocannon (typed:
 * it ships no types; this is the part of its API the benches use) and the CPU time of a
 * process tree, read from /proc.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";

export interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  /** `context` is the connection's own object, kept from one request to the next. */
  setupRequest?(request: AutocannonRequest, context?: Record<string, unknown>): AutocannonRequest;
  onResponse?(status: number, body: string, context?: Record<string, unknown>): void;
}

export interface AutocannonResult {
  duration: number;
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  statusCodeStats: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
  non2xx: number;
}

export interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  maxOverallRequests?: number;
  /** Requests per second from all connections together; unset: each connection as fast as it can. */
  overallRate?: number;
  requests: AutocannonRequest[];
  /** autocannon's own histograms, to read percentiles it does not print. */
  histograms?: { latencies: LatencyHistogram };
}

export interface LatencyHistogram {
  getValueAtPercentile(percentile: number): number;
}

const load = createRequire(import.meta.url);
export const autocannon = load("autocannon") as (options: AutocannonOptions) => Promise<AutocannonResult>;

/** A latency histogram of autocannon's own library (hdr-histogram-js), for the p95 it does not print. */
export function latencyHistogram(): LatencyHistogram {
  const hdr = createRequire(load.resolve("autocannon"))("hdr-histogram-js") as {
    build(options: Record<string, unknown>): LatencyHistogram;
  };
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 10_000,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
  });
}

export interface ProcessCpu {
  pid: number;
  /** The command line, its arguments separated by NUL. */
  command: string;
  /** CPU seconds (user + system) used so far. */
  seconds: number;
}

/** A process and its live descendants with the CPU each has used so far; processes that end meanwhile are left out. */
export function processTree(pid: number | undefined, out: ProcessCpu[] = []): ProcessCpu[] {
  if (!pid) return out;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
    out.push({
      pid,
      command: readFileSync(`/proc/${pid}/cmdline`, "utf8"),
      seconds: (Number(fields[11]) + Number(fields[12])) / 100,
    });
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      for (const child of children ? children.split(" ") : []) processTree(Number(child), out);
    }
  } catch {
    // The process ended while being read.
  }
  return out;
}

/**
 * A bench's figures as one JSON object on one line, printed last, so runs can be compared
 * (`npm run bench -- ingest --json | tail -1`).
 */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";

export interface BeaconFigures {
  /** Acknowledged beacons plus refused ones. */
  requests: number;
  acknowledged: number;
  perS: number;
  p99: number;
  non2xx: number;
}

/** Pageview beacons from 2,000 sessions over 50 paths, as a browser sends them, for `seconds`. */
export async function pageviewBeacons(
  url: string,
  site: { id: string; domain: string },
  connections: number,
  seconds: number,
): Promise<BeaconFigures> {
  const sessions = Array.from({ length: 2_000 }, () => randomBytes(16).toString("base64url"));
  let n = 0;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [
      {
        method: "POST",
        path: "/e",
        headers: { "content-type": "text/plain;charset=UTF-8", origin: `https://${site.domain}`, "user-agent": BROWSER_UA },
        setupRequest: (request: Record<string, unknown>) => ({
          ...request,
          body: JSON.stringify({
            site: site.id,
            session: sessions[n++ % sessions.length],
            events: [{ type: "pageview", path: `/p/${n % 50}` }],
          }),
        }),
      },
    ],
  });
  const acknowledged = Number(result.statusCodeStats["202"]?.count ?? 0);
  return {
    requests: acknowledged + result.non2xx,
    acknowledged,
    perS: acknowledged / result.duration,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
  };
}

/** The p-quantile (0–1) of ascending `sorted`: the value at index ⌊n·p⌋, the last one at most. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

/** The times (ms) of `runs` calls of `once`, one after another, ascending. */
export async function timeCalls(runs: number, once: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}
