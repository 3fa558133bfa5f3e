/**
 * Scale-out on real sqld, as docs/operations.md ("Scale-out") sets it up: a sqld primary and a
 * replica on loopback with a JWT key made here; instance A on the primary, instance B writing to
 * the primary and reading its reports from the replica (LIBSQL_READ_URL), both with the same
 * WREN_SECRET and each with its own Durable Object storage. Beacons and s2s conversions of the
 * same visitors are spread over both, and a third, single-instance stack on the embedded server
 * gets the same events, for the rollups to be compared with.
 *
 * Everything listens on and talks to 127.0.0.1 (the alert receiver too, which WREN_WEBHOOK_ALLOW names).
 */
import { createClient, type Client } from "@libsql/client";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processesWith } from "../../cli/processes";
import { eventKeyOf } from "../../worker/collector/event-key";
import { INSTANCE_COUNT_TTL_MS } from "../../worker/lib/instances";
import { BROWSER_UA } from "../collector/helpers";
import { client, serveOnLoopback, type Call, type LoopbackServer } from "../helpers/http";
import { startCluster, type SqldCluster } from "../helpers/sqld";
import { startStack, type Stack } from "../helpers/stack";
import { sleep, until } from "../helpers/wait";

const DOMAIN = "shop.example";
const VISITORS = 12;
/** Fast passes, so that what the test waits for comes within seconds. */
const FAST = {
  WREN_PUBLISH_INTERVAL: "1",
  WREN_ALERT_INTERVAL: "1",
  WREN_WEBHOOK_RETRY_SECONDS: "1",
  WREN_WEBHOOK_ALLOW: "127.0.0.1",
};

let cluster: SqldCluster;
let primary: Client;
let a: Stack;
let b: Stack;
let single: Stack;
let secret: string;
let adminA: Call;
let adminB: Call;
let adminSingle: Call;
/** The same site and goal on the two-instance database and on the single instance. */
const shop = { id: "", token: "", goal: "", smokeGoal: "" };
const solo = { id: "", token: "", goal: "" };
const receivers: LoopbackServer[] = [];

beforeAll(async () => {
  cluster = await startCluster();
  const database = { LIBSQL_URL: cluster.primary.url, LIBSQL_AUTH_TOKEN: cluster.auth.token };
  primary = createClient({ url: cluster.primary.url, authToken: cluster.auth.token });
  // A migrates the shared database, makes the server secret and onboards; B gets the secret.
  a = await startStack({ env: { ...database, ...FAST } });
  secret = readFileSync(join(a.dataDir, "secret.key"), "utf8").trim();
  [b, single] = await Promise.all([
    startStack({ env: { ...database, ...FAST, LIBSQL_READ_URL: cluster.replica.url, WREN_SECRET: secret } }),
    startStack({ env: FAST }),
  ]);
  expect(b.adminKey).toBeUndefined();
  expect(b.output()).toContain(`reports read the replica at ${new URL(cluster.replica.url).host}`);
  adminA = client(a.url, a.adminKey);
  adminB = client(b.url, a.adminKey);
  adminSingle = client(single.url, single.adminKey);

  const site = await adminA("POST", "/api/v1/sites", { name: "Shop", domain: DOMAIN });
  expect(site.status).toBe(201);
  Object.assign(shop, { id: site.body.id, token: site.body.s2s_token });
  // Made through B, at once after A made the site: B decides on the primary, not on its replica.
  const goal = await adminB("POST", `/api/v1/sites/${shop.id}/goals`, { name: "Order", kind: "event", match: "order" });
  expect(goal.status, goal.text).toBe(201);
  shop.goal = goal.body.id;
  const smoke = await adminB("POST", `/api/v1/sites/${shop.id}/goals`, {
    name: "Smoke",
    kind: "event",
    match: "smoke",
    purpose: "smoke-test",
  });
  shop.smokeGoal = smoke.body.id;

  const soloSite = await adminSingle("POST", "/api/v1/sites", { name: "Shop", domain: DOMAIN });
  Object.assign(solo, { id: soloSite.body.id, token: soloSite.body.s2s_token });
  solo.goal = (
    await adminSingle("POST", `/api/v1/sites/${solo.id}/goals`, { name: "Order", kind: "event", match: "order" })
  ).body.id;
}, 120_000);

afterAll(async () => {
  primary?.close();
  await Promise.all([a, b, single].map((stack) => stack?.stop().catch(() => undefined)));
  await cluster?.stop().catch(() => undefined);
  await Promise.all(receivers.map((r) => r.close().catch(() => undefined)));
}, 60_000);

async function count(db: Client, sql: string, args: (string | number)[] = []): Promise<number> {
  return Number((await db.execute({ sql, args })).rows[0]![0]);
}

async function beacon(stack: Stack, siteId: string, visitor: string, path: string): Promise<void> {
  const res = await fetch(`${stack.url}/e`, {
    method: "POST",
    headers: { "content-type": "text/plain", origin: `https://${DOMAIN}`, "user-agent": BROWSER_UA },
    body: JSON.stringify({ site: siteId, session: visitor, events: [{ type: "pageview", path }] }),
  });
  expect(res.status).toBe(202);
}

interface S2sAnswer {
  status: number;
  body: { accepted?: number; attached?: number; events?: { status: string; session: string | null }[] };
}

async function s2s(stack: Stack, token: string, event: Record<string, unknown>): Promise<S2sAnswer> {
  const res = await fetch(`${stack.url}/s2s`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-token": token },
    body: JSON.stringify(event),
  });
  return { status: res.status, body: res.status === 202 ? ((await res.json()) as S2sAnswer["body"]) : {} };
}

/** The counted columns of each rollup (not the session-keyed ones: each database has its own salts), goals by name. */
async function rollups(db: Client, siteId: string): Promise<Record<string, unknown[]>> {
  const goalName = "(SELECT name FROM goals WHERE id = goal_id)";
  const queries: Record<string, string> = {
    site_day: "SELECT day, visitors, pageviews FROM rollup_site_day WHERE site_id = ? ORDER BY day",
    site_hour: "SELECT hour, visitors, pageviews FROM rollup_site_hour WHERE site_id = ? ORDER BY hour",
    page_day: "SELECT day, path, visitors, pageviews FROM rollup_page_day WHERE site_id = ? ORDER BY day, path",
    goal_day: `SELECT ${goalName} AS goal, day, units, conversions FROM rollup_goal_day WHERE site_id = ? ORDER BY goal, day`,
    goal_hour: `SELECT ${goalName} AS goal, hour, units, conversions FROM rollup_goal_hour WHERE site_id = ? ORDER BY goal, hour`,
    site_day_units: "SELECT day, count(*) AS n FROM rollup_site_day_units WHERE site_id = ? GROUP BY day ORDER BY day",
    goal_day_units: `SELECT ${goalName} AS goal, day, count(*) AS n FROM rollup_goal_day_units WHERE site_id = ? GROUP BY goal, day ORDER BY goal, day`,
  };
  const out: Record<string, unknown[]> = {};
  for (const [name, sql] of Object.entries(queries)) {
    out[name] = (await db.execute({ sql, args: [siteId] })).rows.map((row) => ({ ...row }));
  }
  return out;
}

/** Whether every raw row of the database is folded (its publisher has caught up). */
async function folded(db: Client): Promise<boolean> {
  const behind = await count(
    db,
    "SELECT (SELECT coalesce(max(id), 0) FROM events) > coalesce((SELECT last_id FROM rollup_watermarks WHERE source = 'events'), 0) " +
      "OR (SELECT coalesce(max(id), 0) FROM conversions) > coalesce((SELECT last_id FROM rollup_watermarks WHERE source = 'conversions'), 0)",
  );
  return behind === 0;
}

describe("two instances on a sqld primary and replica", () => {
  it("one session per visitor, conversions attached in both directions, every 202 stored once, rollups as on one instance", async () => {
    const instances = [a, b];
    for (let i = 0; i < VISITORS; i++) {
      const visitor = `visitor-${i}-abcdefgh`;
      const first = instances[i % 2]!;
      const other = instances[(i + 1) % 2]!;
      // Two pageviews of one visitor, one through each instance: one session.
      await beacon(first, shop.id, visitor, "/");
      await beacon(other, shop.id, visitor, `/product/${i % 3}`);
      await beacon(single, solo.id, visitor, "/");
      await beacon(single, solo.id, visitor, `/product/${i % 3}`);
      // The order, posted to both instances at once (a retry that reached the other box): stored once, attached.
      const id = `order-${i}`;
      const answers = await Promise.all(
        [other, first].map((stack) => s2s(stack, shop.token, { goal_id: shop.goal, session: visitor, id })),
      );
      expect(answers.map((x) => x.status)).toEqual([202, 202]);
      const outcomes = answers.map((x) => x.body.events![0]!.status).sort();
      expect(outcomes, `order ${i}`).toEqual(["duplicate", "stored"]);
      expect(answers.find((x) => x.body.events![0]!.status === "stored")!.body.events![0]!.session, `order ${i}`).toBe(
        "attached",
      );
      expect((await s2s(single, solo.token, { goal_id: solo.goal, session: visitor, id })).body.events![0]).toMatchObject({
        status: "stored",
        session: "attached",
      });
    }

    // Counted on the primary: one session per visitor, one conversion per id, each under its key.
    expect(await count(primary, "SELECT count(*) FROM sessions WHERE site_id = ?", [shop.id])).toBe(VISITORS);
    expect(await count(primary, "SELECT count(*) FROM conversions WHERE site_id = ?", [shop.id])).toBe(VISITORS);
    expect(await count(primary, "SELECT count(*) FROM conversions WHERE site_id = ? AND session_id IS NOT NULL", [shop.id])).toBe(
      VISITORS,
    );
    for (let i = 0; i < VISITORS; i++) {
      const key = await eventKeyOf(secret, shop.id, `order-${i}`);
      expect(await count(primary, "SELECT count(*) FROM conversions WHERE event_key = ?", [key])).toBe(1);
    }
    // One salt, made once and shared.
    expect(await count(primary, "SELECT count(*) FROM session_salts")).toBe(1);

    // The rollups of the two-instance run equal the single instance's over the same events.
    const soloDb = createClient({ url: `file:${join(single.dataDir, "wren.db")}` });
    try {
      await until("both publishers to fold everything", async () => (await folded(primary)) && (await folded(soloDb)), 30_000);
      const expected = await rollups(soloDb, solo.id);
      expect(expected.site_day).toEqual([expect.objectContaining({ visitors: VISITORS, pageviews: 2 * VISITORS })]);
      expect(await rollups(primary, shop.id)).toEqual(expected);
    } finally {
      soloDb.close();
    }
  }, 120_000);

  it("background work runs once: one publisher at a time, one alert delivery per transition", async () => {
    // Both instances beat; one holds the publisher lease.
    const live = await count(primary, "SELECT count(*) FROM instances WHERE seen_at > ?", [Date.now() - 10_000]);
    expect(live).toBe(2);
    const holders = (await primary.execute("SELECT name, holder FROM leases WHERE name = 'publisher'")).rows;
    expect(holders).toHaveLength(1);

    const arrivals: string[] = [];
    const rx = await serveOnLoopback(async (req: IncomingMessage, res: ServerResponse) => {
      arrivals.push(String(req.headers["webhook-id"] ?? ""));
      req.resume();
      // Slower than a pass: the other instance's passes find it claimed and must leave it alone.
      await sleep(1_200);
      res.writeHead(200).end("ok");
    });
    receivers.push(rx);
    // No smoke conversion: each rule fires on its first pass, on whichever instance evaluates.
    const rules: string[] = [];
    for (const [i, call] of [adminA, adminB, adminA, adminB].entries()) {
      const made = await call("POST", "/api/v1/alerts", {
        site: shop.id,
        metric: "goal",
        goal_id: shop.smokeGoal,
        condition: "below",
        threshold: 1,
        window_hours: 1,
        destinations: [{ url: `${rx.url}/hook-${i}` }],
      });
      expect(made.status, made.text).toBe(201);
      rules.push(made.body.id);
    }
    const firing = rules.map((id) => `msg_${id.slice(4)}.1.0`);
    await until("every rule's firing notification", () => firing.every((id) => arrivals.includes(id)), 30_000);
    await sleep(3_000); // several passes of both instances (every second) after the last arrival
    expect([...arrivals].sort()).toEqual([...firing].sort());
    expect(await count(primary, "SELECT count(*) FROM alert_transitions WHERE rule_id IN (?, ?, ?, ?)", rules)).toBe(4);
  }, 90_000);

  it("a key's rate limit holds across both instances", async () => {
    const limited = { name: "limited", scopes: ["read:sites"], rate_limit: { requests: 10, per_seconds: 60 } };
    // Each api isolate rereads how many instances are live every INSTANCE_COUNT_TTL_MS: wait until
    // both count two, as a probe key of the same limit shows (its own bucket, not the one tested).
    const probe = (await adminA("POST", "/api/v1/keys", { ...limited, name: "probe" })).body.key as string;
    await until(
      "both instances to count two",
      async () => {
        const answers = await Promise.all(
          [a, b].map((stack) => fetch(`${stack.url}/api/v1/sites`, { headers: { authorization: `Bearer ${probe}` } })),
        );
        return answers.every((res) => res.headers.get("ratelimit-limit") === "5");
      },
      INSTANCE_COUNT_TTL_MS + 5_000,
    );
    const made = await adminA("POST", "/api/v1/keys", limited);
    expect(made.status).toBe(201);
    const statuses: number[] = [];
    const limits = new Set<string>();
    for (let i = 0; i < 16; i++) {
      const stack = i % 2 === 0 ? a : b;
      const res = await fetch(`${stack.url}/api/v1/sites`, { headers: { authorization: `Bearer ${made.body.key}` } });
      statuses.push(res.status);
      limits.add(String(res.headers.get("ratelimit-limit")));
      await res.arrayBuffer();
    }
    // 5 on each of the two: 10 in all, as the key says.
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    expect([...limits]).toEqual(["5"]);
  }, 60_000);

  it("a replica that goes away gives fast 503s on the instance reading it, and it recovers when the replica returns", async () => {
    const report = () => adminB("GET", `/api/v1/pages?site=${shop.id}&period=7d`);
    await until("B's first publication read", async () => (await report()).status === 200, 30_000);

    await cluster.replica.stop();
    const started = Date.now();
    const refused = await report();
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(4_000);
    const health = await fetch(`${b.url}/healthz`);
    expect(health.status).toBe(503);
    await health.arrayBuffer();
    // Writes go to the primary: B still takes events, and A does not notice.
    expect((await s2s(b, shop.token, { goal_id: shop.goal, id: "while-replica-down" })).status).toBe(202);
    expect((await adminA("GET", `/api/v1/pages?site=${shop.id}&period=7d`)).status).toBe(200);

    await cluster.replica.start();
    await until("B's reports to answer again", async () => (await report()).status === 200, 30_000);
    expect((await fetch(`${b.url}/healthz`)).status).toBe(200);
  }, 90_000);

  it("a primary that goes away gives fast 503s on both instances, and they recover when it returns", async () => {
    await cluster.primary.stop();
    for (const stack of [a, b]) {
      const started = Date.now();
      const refused = await s2s(stack, shop.token, { goal_id: shop.goal, id: "while-primary-down" });
      expect(refused.status).toBe(503);
      expect(Date.now() - started).toBeLessThan(4_000);
      const health = await fetch(`${stack.url}/healthz`);
      expect(health.status).toBe(503);
      expect(Number(health.headers.get("retry-after"))).toBeGreaterThan(0);
      await health.arrayBuffer();
    }
    await cluster.primary.start();
    for (const stack of [a, b]) {
      await until(
        "events to be taken again",
        async () => (await s2s(stack, shop.token, { goal_id: shop.goal, id: "after-primary" })).status === 202,
        30_000,
      );
      await until("/healthz to pass again", async () => (await fetch(`${stack.url}/healthz`)).status === 200, 30_000);
    }
    // The refused event was never stored; the one after, once (posted to both).
    expect(
      await count(primary, "SELECT count(*) FROM conversions WHERE event_key = ?", [
        await eventKeyOf(secret, shop.id, "while-primary-down"),
      ]),
    ).toBe(0);
    expect(
      await count(primary, "SELECT count(*) FROM conversions WHERE event_key = ?", [
        await eventKeyOf(secret, shop.id, "after-primary"),
      ]),
    ).toBe(1);
  }, 90_000);

  it("concurrent writers through both instances all succeed, and a SIGKILL of B mid-load loses nothing acknowledged", async () => {
    // 8 writers at once, 4 on each instance: sqld may answer SQLITE_BUSY, which Wren retries.
    const burst = await Promise.all(
      Array.from({ length: 8 }, (_, w) =>
        (async () => {
          const statuses: number[] = [];
          for (let n = 0; n < 10; n++)
            statuses.push((await s2s(w % 2 === 0 ? a : b, shop.token, { goal_id: shop.goal, id: `burst-${w}-${n}` })).status);
          return statuses;
        })(),
      ),
    );
    expect(burst.flat().filter((s) => s !== 202)).toEqual([]);

    const acknowledged: string[] = [];
    let stop = false;
    const writers = Array.from({ length: 4 }, (_, w) =>
      (async () => {
        for (let n = 0; !stop; n++) {
          const id = `load-${w}-${n}`;
          try {
            if ((await s2s(b, shop.token, { goal_id: shop.goal, id })).status === 202) acknowledged.push(id);
          } catch {
            return; // B is gone
          }
        }
      })(),
    );
    await until("some events acknowledged by B", () => acknowledged.length >= 40, 30_000);
    const pids = processesWith(`do-storage=${join(b.dataDir, "do")}`);
    expect(pids).toHaveLength(2);
    for (const pid of pids) process.kill(pid, "SIGKILL");
    await sleep(1_000);
    stop = true;
    await Promise.all(writers);

    for (const id of acknowledged) {
      expect(
        await count(primary, "SELECT count(*) FROM conversions WHERE event_key = ?", [await eventKeyOf(secret, shop.id, id)]),
        id,
      ).toBe(1);
    }
    // A goes on.
    expect((await s2s(a, shop.token, { goal_id: shop.goal, id: "after-kill" })).status).toBe(202);

    // Had B died holding the publisher lease (as if: the lease handed to B's id, running 4 s
    // more), A publishes nothing until it expires, then takes it over, and publication goes on.
    const beats = async () =>
      (await primary.execute("SELECT id, seen_at FROM instances ORDER BY seen_at")).rows.map((r) => ({
        id: String(r.id),
        seen: Number(r.seen_at),
      }));
    const before = await beats();
    await until(
      "A's next heartbeat",
      async () => (await beats()).some((r) => r.seen > Math.max(...before.map((x) => x.seen))),
      10_000,
    );
    const [deadB, liveA] = await beats();
    await primary.execute({
      sql: "UPDATE leases SET holder = ?, expires_at = ? WHERE name = 'publisher'",
      args: [deadB!.id, Date.now() + 4_000],
    });
    const published = async () =>
      Number((await primary.execute("SELECT max(through_ms) AS t FROM rollup_publication")).rows[0]!.t);
    await sleep(1_200); // a run A began before the change ends
    const stalled = await published();
    await sleep(1_500);
    expect(await published()).toBe(stalled);
    await until(
      "A to hold the publisher lease",
      async () => {
        const holder = (await primary.execute("SELECT holder FROM leases WHERE name = 'publisher'")).rows[0]!.holder;
        return String(holder) === liveA!.id;
      },
      15_000,
    );
    await until("publication to go on", async () => (await published()) > stalled, 10_000);
  }, 90_000);
});
