/**
 * OIDC sign-in on the real stack (`wren start`) against a real `oidc-provider` on loopback
 * (test/helpers/oidc-provider.ts): what a sign-in costs Wren, and what unauthenticated starts can
 * do to it.
 *
 * 1. Sequential sign-ins of a known person: the time of Wren's two requests — `start` (discovery
 *    cached; one row written) and `callback` (the row deleted, the code redeemed at the provider's
 *    token endpoint, the ID token verified against its cached JWKS, a session and an audit entry
 *    written) — median and p95, the provider's own hops left out.
 * 2. `GET /api/v1/auth/oidc/start` flooded by autocannon (no key, no rate limit): requests per
 *    second, latency, and the pending sign-ins it left (each expires in 10 minutes; at 100,000 the
 *    start answers `busy` instead of writing).
 *
 *   npm run bench oidc                     (SIGN_INS=40, FLOOD_SECONDS=5 by default)
 */
import { createHash, randomBytes } from "node:crypto";
import { autocannon, printJson } from "./load";
import { browse, CLIENT_ID, CLIENT_SECRET, CookieJar, startTestProvider } from "../test/helpers/oidc-provider";
import { freePort } from "../test/helpers/ports";
import { client } from "../test/helpers/http";
import { startStack } from "../test/helpers/stack";

const SIGN_INS = Number(process.env.SIGN_INS ?? 40);
const FLOOD_SECONDS = Number(process.env.FLOOD_SECONDS ?? 5);

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))]!;

export async function run(): Promise<void> {
  const port = await freePort();
  const wren = `http://127.0.0.1:${port}`;
  const callback = `${wren}/api/v1/auth/oidc/callback`;
  const provider = await startTestProvider(callback);
  const stack = await startStack({
    env: {
      PORT: String(port),
      WREN_OIDC_ISSUER: provider.issuer,
      WREN_OIDC_CLIENT_ID: CLIENT_ID,
      WREN_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      WREN_OIDC_ALLOW: "127.0.0.1",
    },
  });
  try {
    const site = (await client(stack.url, stack.adminKey)("POST", "/api/v1/sites", { name: "Bench", domain: "bench.example" }))
      .body.id;
    const token = randomBytes(32).toString("base64url");
    const db = stack.openDatabase();
    await db.execute({
      sql: "INSERT INTO invitations (id, token_hash, site_id, role, email, invited_by, created_at, expires_at) VALUES ('inv_bench', ?, ?, 'viewer', NULL, 'bench', ?, ?)",
      args: [createHash("sha256").update(token).digest("hex"), site, stack.now(), stack.now() + 86_400_000],
    });
    provider.signInAs({ sub: "bench-sub", email: "bench@example.com", email_verified: true, name: "Bench" });

    const callbacks: number[] = [];
    for (let i = 0; i < SIGN_INS + 1; i++) {
      const jar = new CookieJar();
      const first = i === 0 ? `${wren}/api/v1/auth/oidc/start?invitation=${token}` : `${wren}/api/v1/auth/oidc/start`;
      const { last } = await browse(first, jar, { stop: (url) => url.startsWith(callback) });
      const t = performance.now();
      const done = await browse(last, jar, { stop: (url) => url !== last });
      const finished = performance.now() - t;
      if (done.hops[0]?.location !== "/dashboard/") throw new Error(`sign-in ${i} refused: ${done.hops[0]?.location}`);
      // The first sign-in joins by invitation and fetches discovery and the keys: not the steady cost.
      if (i > 0) callbacks.push(finished);
    }
    // The start request alone (the provider's hops left out).
    const startOnly: number[] = [];
    for (let i = 0; i < SIGN_INS; i++) {
      const t = performance.now();
      const response = await fetch(`${wren}/api/v1/auth/oidc/start`, { redirect: "manual" });
      await response.arrayBuffer();
      startOnly.push(performance.now() - t);
      if (response.status !== 302) throw new Error(`start answered ${response.status}`);
    }

    const flood = await autocannon({
      url: wren,
      connections: 8,
      duration: FLOOD_SECONDS,
      requests: [{ method: "GET", path: "/api/v1/auth/oidc/start" }],
    });
    const pending = Number((await db.execute("SELECT count(*) AS n FROM oidc_logins")).rows[0]!.n);
    db.close();

    const figures = {
      sign_ins: SIGN_INS,
      start_ms: { median: +percentile(startOnly, 0.5).toFixed(2), p95: +percentile(startOnly, 0.95).toFixed(2) },
      callback_ms: { median: +percentile(callbacks, 0.5).toFixed(2), p95: +percentile(callbacks, 0.95).toFixed(2) },
      flood: {
        seconds: FLOOD_SECONDS,
        requests_per_second: Math.round(flood.requests.average),
        p50_ms: flood.latency.p50,
        p99_ms: flood.latency.p99,
        statuses: Object.fromEntries(Object.entries(flood.statusCodeStats).map(([status, { count }]) => [status, count])),
        pending_sign_ins_after: pending,
      },
    };
    console.log(
      `start (one row written, discovery cached): median ${figures.start_ms.median} ms, p95 ${figures.start_ms.p95} ms`,
    );
    console.log(
      `callback (code redeemed at the provider, ID token verified, session + audit written): median ${figures.callback_ms.median} ms, p95 ${figures.callback_ms.p95} ms`,
    );
    console.log(
      `start flooded by 8 connections for ${FLOOD_SECONDS} s: ${figures.flood.requests_per_second} req/s, p50 ${figures.flood.p50_ms} ms, p99 ${figures.flood.p99_ms} ms; ${pending} sign-ins pending after (cap 100,000, then 'busy')`,
    );
    printJson({ bench: "oidc", ...figures });
  } finally {
    await stack.stop();
    await provider.close();
  }
}
