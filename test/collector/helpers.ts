/**
 * Helpers for the collector tests: sites and goals made with the real CLI, row counts
 * straight from the database, and a counting proxy in front of the libSQL
 * server that shows exactly how many Hrana requests a call caused.
 */
import type { Client } from "@libsql/client";
import { request as httpRequest } from "node:http";
import { buildTracker } from "../../tracker/build";
import { serveOnLoopback } from "../helpers/http";
import type { Stack } from "../helpers/stack";

/** A desktop Chrome User-Agent: the collector drops crawlers and HTTP libraries. */
export const BROWSER_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";

/** A beacon's body, as the tracker sends it. */
export interface BeaconBody {
  site: string;
  session: string;
  events: object[];
}

/**
 * One beacon through the real collector of the stack at `url`, from a page of `domain`: the
 * Origin forged as any client can, and a browser's User-Agent unless `headers` give another.
 */
export function postBeacon(
  url: string,
  domain: string,
  body: BeaconBody,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}/e`, {
    method: "POST",
    headers: { "content-type": "text/plain", origin: `https://${domain}`, "user-agent": BROWSER_UA, ...headers },
    body: JSON.stringify(body),
  });
}

/** The tracker is embedded in the collector bundle; make sure it is built before `wren start`. */
export async function ensureTrackerBuilt(): Promise<void> {
  await buildTracker();
}

async function cliJson<T>(stack: Stack, args: string[]): Promise<T> {
  const result = await stack.cli([...args, "--json"]);
  if (result.code !== 0) throw new Error(`wren ${args.join(" ")} failed (${result.code}): ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export interface TestSite {
  id: string;
  token: string;
  domain: string;
  /** The embeddable snippet, exactly as `wren sites create` prints it. */
  snippet: string;
}

export async function createSite(stack: Stack, domain: string): Promise<TestSite> {
  const site = await cliJson<{ id: string; s2s_token: string; snippet: string }>(stack, ["sites", "create", "--name", domain, "--domain", domain]);
  return { id: site.id, token: site.s2s_token, domain, snippet: site.snippet };
}

export async function createGoal(
  stack: Stack,
  site: string,
  kind: "page" | "event" | "time" | "scroll" | "outbound" | "download" | "not-found",
  match?: string,
  threshold?: number,
): Promise<string> {
  const args = ["goals", "create", "--site", site, "--kind", kind, ...(match === undefined ? [] : ["--match", match])];
  if (threshold !== undefined) args.push("--threshold", String(threshold));
  return (await cliJson<{ id: string }>(stack, args)).id;
}

/** A connection to the stack's database (its file, or its sqld), reading integers as numbers. */
export function openDb(stack: Stack): Client {
  return stack.openDatabase({ intMode: "number" });
}

export async function rows<T = Record<string, unknown>>(db: Client, sql: string, args: (string | number | null)[] = []): Promise<T[]> {
  const rs = await db.execute({ sql, args });
  return rs.rows.map((r) => ({ ...r }) as T);
}

export async function count(db: Client, sql: string, args: (string | number | null)[] = []): Promise<number> {
  const rs = await db.execute({ sql, args });
  return Number(Object.values(rs.rows[0] ?? { n: 0 })[0]);
}

export interface CollectorCounts {
  events: number;
  vitals: number;
  sessions: number;
  conversions: number;
  site_beacons: number;
}

/** Row counts of every table the collector writes. */
export async function collectorCounts(db: Client): Promise<CollectorCounts> {
  const rs = await db.execute(
    "SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM vitals) AS vitals, (SELECT count(*) FROM sessions) AS sessions, " +
      "(SELECT count(*) FROM conversions) AS conversions, (SELECT count(*) FROM site_beacons) AS site_beacons",
  );
  const row = rs.rows[0]!;
  return {
    events: Number(row.events),
    vitals: Number(row.vitals),
    sessions: Number(row.sessions),
    conversions: Number(row.conversions),
    site_beacons: Number(row.site_beacons),
  };
}

export interface CountingProxy {
  url: string;
  /** Hrana requests (pipelines) forwarded so far, except the api worker's background work. */
  requests(): number;
  close(): Promise<void>;
}

/**
 * What the api worker's background work touches: the publisher's rollups, heartbeat and lease,
 * the call counters, the alert scheduler's tables.
 */
const BACKGROUND_WORK = /rollup_|key_usage|instances|leases|alert_/;

/**
 * Forwards everything to `target` and counts the Hrana pipeline requests it saw, leaving out
 * the publisher's and the call counters' own (they run on alarms, whatever a test does).
 */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  let requests = 0;
  const server = await serveOnLoopback(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (req.method === "POST" && /\/pipeline$/.test(req.url ?? "") && !BACKGROUND_WORK.test(body.toString("utf8"))) requests++;
    const forward = httpRequest(
      // Like nginx's default (`Host $proxy_host`): the upstream sees its own address as Host.
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", () => {
      res.writeHead(502).end();
    });
    forward.end(body);
  });
  return { url: server.url, requests: () => requests, close: server.close };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
