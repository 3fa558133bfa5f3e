/**
 * Memory under a long steady load: one `wren start` stack, 20 connections of mixed traffic
 * (beacons to /e, s2s conversions to /s2s, API conversions to /api/v1/events, and reads of
 * the pages, timeseries and conversions reports) for BENCH_SOAK_SECONDS (default 600), with
 * the resident memory of each process sampled every 10 s: both workerd processes (collector,
 * api), the libSQL engine child and the `wren start` supervisor. Growth is measured from the
 * sample after a 60 s warm-up (isolates, statement caches, V8 heaps sizing themselves), and a
 * least-squares trend over the second half tells a process that keeps growing from one that
 * settled late. Figures and what the memory is: docs/performance.md, "Memory".
 *
 * At the end every 202 is checked against the rows stored: the soak also proves nothing
 * acknowledged was lost. The keys' rate limits are raised so that no 429 stands in for work.
 *
 *   npm run bench soak                           (~11 minutes)
 *   BENCH_SOAK_SECONDS=120 npm run bench soak    (a shorter run)
 *
 * The last line is one JSON object with the figures.
 */
import { createClient } from "@libsql/client";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { startStack, type Stack } from "../test/helpers/stack";
import { autocannon, printJson, type AutocannonRequest } from "./load";
import { memoryFigures, ROLES, sampleMemory, type MemoryFigures, type Role, type Sample } from "./memory";
import { inScratchFolder } from "./scratch";

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const CONNECTIONS = 20;
const SAMPLE_EVERY_S = 10;
const WARM_UP_S = 60;
const DOMAIN = "soak.example";
const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";
async function api<T>(stack: Stack, key: string, method: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export interface Fixture {
  /** The site's domain: beacons come from https://<domain>. */
  domain: string;
  site: string;
  goal: string;
  s2sToken: string;
  /** A key with write:events and read:reports on the site, its limit raised far above the load. */
  key: string;
}

/** A site with an event goal, its s2s token and a key, made through the API with the stack's admin key. */
export async function setUp(stack: Stack): Promise<Fixture> {
  const admin = stack.adminKey;
  if (!admin) throw new Error(`no admin key in the start output:\n${stack.output()}`);
  const site = await api<{ id: string; s2s_token?: string }>(stack, admin, "POST", "/api/v1/sites", {
    name: "Soak",
    domain: DOMAIN,
  });
  if (!site.s2s_token) throw new Error("the admin key was not given the site's s2s token");
  const goal = await api<{ id: string }>(stack, admin, "POST", `/api/v1/sites/${site.id}/goals`, {
    kind: "event",
    match: "purchase",
  });
  const key = await api<{ key: string }>(stack, admin, "POST", "/api/v1/keys", {
    name: "soak",
    scopes: ["write:events", "read:reports"],
    sites: [site.id],
    rate_limit: { requests: 1_000_000, per_seconds: 1 },
  });
  return { domain: DOMAIN, site: site.id, goal: goal.id, s2sToken: site.s2s_token, key: key.key };
}

type Kind = "beacon" | "s2s" | "events" | "read";

/** The mix each connection goes round: half beacons, a conversion each way, three report reads. */
function mix(f: Fixture, acknowledged: Record<Kind, number>, other: Record<string, number>): AutocannonRequest[] {
  const sessions = Array.from({ length: 2_000 }, () => randomBytes(16).toString("base64url"));
  let n = 0;
  const counted = (kind: Kind, request: AutocannonRequest) => ({
    ...request,
    onResponse(status: number) {
      if (status === (kind === "read" ? 200 : 202)) acknowledged[kind]++;
      else other[`${kind} ${status}`] = (other[`${kind} ${status}`] ?? 0) + 1;
    },
  });
  const beacon = counted("beacon", {
    method: "POST",
    path: "/e",
    headers: { "content-type": "text/plain;charset=UTF-8", origin: `https://${DOMAIN}`, "user-agent": BROWSER_UA },
    setupRequest: (request) => ({
      ...request,
      body: JSON.stringify({
        site: f.site,
        session: sessions[n++ % sessions.length],
        events: [{ type: "pageview", path: `/p/${n % 200}` }],
      }),
    }),
  });
  const s2s = counted("s2s", {
    method: "POST",
    path: "/s2s",
    headers: { "content-type": "application/json", "x-service-token": f.s2sToken },
    setupRequest: (request) => ({
      ...request,
      body: JSON.stringify({ goal_id: f.goal, session: sessions[n % sessions.length], value: 10, id: `s2s-${n++}` }),
    }),
  });
  const events = counted("events", {
    method: "POST",
    path: "/api/v1/events",
    headers: { "content-type": "application/json", authorization: `Bearer ${f.key}` },
    setupRequest: (request) => ({
      ...request,
      body: JSON.stringify({ site: f.site, goal_id: f.goal, value: 5, id: `api-${n++}` }),
    }),
  });
  const read = (path: string) => counted("read", { method: "GET", path, headers: { authorization: `Bearer ${f.key}` } });
  return [
    beacon,
    read(`/api/v1/pages?site=${f.site}&period=7d&limit=100`),
    beacon,
    s2s,
    beacon,
    read(`/api/v1/timeseries?site=${f.site}&period=7d`),
    beacon,
    events,
    beacon,
    read(`/api/v1/conversions?site=${f.site}&period=7d`),
  ];
}

/** Least-squares slope of the samples, in MB per minute: near 0 for a plateau, whatever the noise of single samples. */
function trend(points: { seconds: number; mb: number }[]): number {
  if (points.length < 2) return 0;
  const meanT = points.reduce((n, p) => n + p.seconds, 0) / points.length;
  const meanMb = points.reduce((n, p) => n + p.mb, 0) / points.length;
  const covariance = points.reduce((n, p) => n + (p.seconds - meanT) * (p.mb - meanMb), 0);
  const variance = points.reduce((n, p) => n + (p.seconds - meanT) ** 2, 0);
  return (60 * covariance) / variance;
}

interface Summary extends MemoryFigures {
  /** MB per minute after warm-up, and over the second half of that time only. */
  trend: number;
  trendLastHalf: number;
}

function summarise(samples: Sample[], read: (s: Sample) => number | undefined): Summary | undefined {
  const figures = memoryFigures(samples, WARM_UP_S, read);
  if (!figures) return undefined;
  const points = samples
    .filter((s) => s.seconds >= WARM_UP_S && read(s) !== undefined)
    .map((s) => ({ seconds: s.seconds, mb: read(s)! }));
  const half = (points[0]!.seconds + points.at(-1)!.seconds) / 2;
  return { ...figures, trend: trend(points), trendLastHalf: trend(points.filter((p) => p.seconds >= half)) };
}

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

export async function run(): Promise<void> {
  return inScratchFolder("soak", async (dir) => {
    // The production publish interval; the default limit raised for the admin key too.
    const stack = await startStack({
      dataDir: dir,
      env: { WREN_RATE_LIMIT: "100000000/60", WREN_PUBLISH_INTERVAL: "10" },
      timeoutMs: 300_000,
    });
    const file = createClient({ url: `file:${join(dir, "wren.db")}` });
    try {
      const fixture = await setUp(stack);
      const count = async (table: "events" | "conversions") =>
        Number(
          (await file.execute({ sql: `SELECT count(*) AS n FROM ${table} WHERE site_id = ?`, args: [fixture.site] })).rows[0]!.n,
        );

      console.log(
        `${CONNECTIONS} connections for ${SECONDS} s: beacons, s2s and API conversions, pages/timeseries/conversions reads; ` +
          `RSS sampled every ${SAMPLE_EVERY_S} s, growth measured after a ${WARM_UP_S} s warm-up`,
      );
      const acknowledged: Record<Kind, number> = { beacon: 0, s2s: 0, events: 0, read: 0 };
      const other: Record<string, number> = {};
      const header = `${"time".padStart(6)}  ${ROLES.map((r) => `${r} MB (anon)`.padStart(24)).join("")}`;
      console.log(header);
      const samples: Sample[] = [];
      const began = performance.now();
      const take = () => {
        const s = sampleMemory(stack, Math.round((performance.now() - began) / 1000));
        samples.push(s);
        const cell = (r: Role) => (s.rss[r] === undefined ? "—" : `${fmt(s.rss[r])} (${fmt(s.anon[r]!)})`).padStart(24);
        console.log(`${`${s.seconds} s`.padStart(6)}  ${ROLES.map(cell).join("")}`);
      };
      take();
      const sampler = setInterval(take, SAMPLE_EVERY_S * 1000);
      const result = await autocannon({
        url: stack.url,
        connections: CONNECTIONS,
        duration: SECONDS,
        requests: mix(fixture, acknowledged, other),
      });
      clearInterval(sampler);
      // The end of the load, unless the interval's last sample was just taken.
      if ((performance.now() - began) / 1000 - samples.at(-1)!.seconds >= 2) take();

      // Requests cut off at the end of the load may be stored without being read: let the writer finish.
      await new Promise((r) => setTimeout(r, 2_000));
      const storedEvents = await count("events");
      const storedConversions = await count("conversions");
      const ackConversions = acknowledged.s2s + acknowledged.events;
      const missing = Math.max(0, acknowledged.beacon - storedEvents) + Math.max(0, ackConversions - storedConversions);

      console.log(`\nafter a ${WARM_UP_S} s warm-up (RSS, MB; anonymous memory in brackets):`);
      const rss: Partial<Record<Role, MemoryFigures>> = {};
      const perMinute = (n: number) => `${n >= 0 ? "+" : "−"}${Math.abs(n).toFixed(2)} MB/min`;
      for (const role of ROLES) {
        const f = summarise(samples, (s) => s.rss[role]);
        const a = summarise(samples, (s) => s.anon[role]);
        if (!f || !a) {
          console.log(`  ${role.padEnd(11)} not seen`);
          continue;
        }
        rss[role] = { start: f.start, peak: f.peak, end: f.end, growth_after_warmup_pct: f.growth_after_warmup_pct };
        console.log(
          `  ${role.padEnd(11)} start ${fmt(f.start).padStart(5)} (${fmt(a.start)})  peak ${fmt(f.peak).padStart(5)} (${fmt(a.peak)})  ` +
            `end ${fmt(f.end).padStart(5)} (${fmt(a.end)})  growth ${f.growth_after_warmup_pct} %;  ` +
            `trend ${perMinute(f.trend)}, over the last half ${perMinute(f.trendLastHalf)}`,
        );
      }
      const others = Object.entries(other).map(([what, n]) => `${fmt(n)} × ${what}`);
      console.log(
        [
          `  requests    ${fmt(result.requests.total)} (${fmt(result.requests.average)}/s); errors ${result.errors}, timeouts ${result.timeouts}` +
            (others.length > 0 ? `; not 2xx: ${others.join(", ")}` : "; every answer 2xx"),
          `  check       ${fmt(acknowledged.beacon)} beacons acknowledged, ${fmt(storedEvents)} events stored; ` +
            `${fmt(ackConversions)} conversions acknowledged, ${fmt(storedConversions)} stored: ${missing === 0 ? "none missing" : `${fmt(missing)} MISSING`}`,
        ].join("\n"),
      );
      printJson({ bench: "soak", seconds: SECONDS, requests: result.requests.total, rss_mb: rss, missing });
      if (missing > 0) throw new Error(`${missing} acknowledged events are not in the database`);
    } finally {
      file.close();
      await stack.stop();
    }
  });
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
