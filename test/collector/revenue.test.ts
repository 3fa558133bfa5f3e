/**
 * Revenue on the way in (issue 39, part C), against the real stack (workerd, the libSQL server,
 * the CLI): revenue goals made through the goals API and the CLI; conversions with
 * `revenue: {amount, currency}` through `/s2s`, `POST /api/v1/events` and beacons. Stored as
 * integer cents with the goal's currency. Hostile amounts and currencies are a 422 naming the
 * field with nothing written (s2s, API), or on a beacon the amount dropped, the conversion kept
 * and the drop counted. The goals routes are attacked too: no key, a wrong scope, another site.
 */
import type { Client } from "@libsql/client";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../helpers/stack";
import {
  collectorCounts,
  count,
  createGoal,
  createSite,
  ensureTrackerBuilt,
  openDb,
  postBeacon,
  rows,
  type TestSite,
} from "./helpers";

let stack: Stack;
let db: Client;
let shop: TestSite;
let other: TestSite;
/** A revenue goal in EUR, made by the CLI. */
let purchase: string;
/** A plain goal (no currency). */
let signup: string;
let writeKey: string;
let readKey: string;
let eventsKey: string;

const sessionId = () => randomBytes(16).toString("base64url");

async function s2s(body: unknown) {
  const response = await fetch(`${stack.url}/s2s`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-token": shop.token },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    body: (await response.json()) as Record<string, any>,
  };
}

async function api(method: string, path: string, key: string | null, body?: unknown) {
  const response = await fetch(`${stack.url}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    body: (text ? JSON.parse(text) : undefined) as Record<string, any>,
  };
}

async function makeKey(scopes: string, sites: string): Promise<string> {
  const created = await stack.cli(["keys", "create", "--scopes", scopes, "--sites", sites, "--json"]);
  expect(created.code).toBe(0);
  return (JSON.parse(created.stdout) as { key: string }).key;
}

/** Everything a refused request might have written. */
async function written() {
  return {
    ...(await collectorCounts(db)),
    drops: await count(db, "SELECT coalesce(sum(count), 0) FROM revenue_drops"),
    goals: await rows(db, "SELECT id, currency FROM goals ORDER BY id"),
  };
}

beforeAll(async () => {
  await ensureTrackerBuilt();
  stack = await startStack({ dataDir: mkdtempSync(join(tmpdir(), "wren-revenue-")) });
  shop = await createSite(stack, "shop.test");
  other = await createSite(stack, "other.test");
  const made = await stack.cli([
    "goals",
    "create",
    "--site",
    shop.id,
    "--kind",
    "event",
    "--match",
    "purchase",
    "--currency",
    "EUR",
    "--json",
  ]);
  expect(made.code).toBe(0);
  const goal = JSON.parse(made.stdout) as { id: string; currency: string };
  expect(goal.currency).toBe("EUR");
  purchase = goal.id;
  signup = await createGoal(stack, shop.id, "event", "signup");
  writeKey = await makeKey("write:goals,read:sites", shop.id);
  readKey = await makeKey("read:sites", shop.id);
  eventsKey = await makeKey("write:events", shop.id);
  db = openDb(stack);
}, 120_000);

afterAll(async () => {
  db?.close();
  await stack?.stop();
});

describe("revenue goals", () => {
  it("creates a goal with revenue: {currency} and lists it; the CLI refuses a lower-case code", async () => {
    const created = await api("POST", `/api/v1/sites/${shop.id}/goals`, writeKey, {
      kind: "event",
      match: "order",
      revenue: { currency: "USD" },
    });
    expect(created.status).toBe(201);
    expect(created.body.revenue).toEqual({ currency: "USD" });
    const listed = await api("GET", `/api/v1/sites/${shop.id}/goals`, readKey);
    const byId = new Map((listed.body.goals as { id: string; revenue: unknown }[]).map((g) => [g.id, g.revenue]));
    expect(byId.get(purchase)).toEqual({ currency: "EUR" });
    expect(byId.get(signup)).toBeNull();
    const cli = await stack.cli(["goals", "create", "--site", shop.id, "--kind", "event", "--match", "x", "--currency", "eur"]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain("--currency");
  });

  it("sets a currency by PATCH once; changing it is a 422 naming revenue.currency", async () => {
    const goal = await api("POST", `/api/v1/sites/${shop.id}/goals`, writeKey, { kind: "event", match: "renewal" });
    expect(goal.body.revenue).toBeNull();
    const set = await api("PATCH", `/api/v1/sites/${shop.id}/goals/${goal.body.id}`, writeKey, { revenue: { currency: "JPY" } });
    expect(set.status).toBe(200);
    expect(set.body.revenue).toEqual({ currency: "JPY" });
    const before = await written();
    const change = await api("PATCH", `/api/v1/sites/${shop.id}/goals/${goal.body.id}`, writeKey, {
      revenue: { currency: "EUR" },
    });
    expect(change.status).toBe(422);
    expect(change.type).toContain("application/problem+json");
    expect(change.body.field).toBe("revenue.currency");
    expect(await written()).toEqual(before);
  });

  it("refuses hostile currencies, no key, a wrong scope and another site's goal, writing nothing", async () => {
    const before = await written();
    for (const currency of ["eur", "EUR ", "EURO", "XYZ", "", 978, null]) {
      const answer = await api("POST", `/api/v1/sites/${shop.id}/goals`, writeKey, {
        kind: "event",
        match: `c${String(currency)}`,
        revenue: { currency },
      });
      expect(answer.status, JSON.stringify(currency)).toBe(422);
      expect(answer.type).toContain("application/problem+json");
      expect(answer.body.field).toBe("revenue.currency");
    }
    expect(
      (
        await api("POST", `/api/v1/sites/${shop.id}/goals`, writeKey, {
          kind: "event",
          match: "c",
          revenue: { currency: "EUR", rate: 1 },
        })
      ).body.field,
    ).toBe("revenue.rate");
    expect((await api("PATCH", `/api/v1/sites/${shop.id}/goals/${signup}`, null, { revenue: { currency: "EUR" } })).status).toBe(
      401,
    );
    const scope = await api("PATCH", `/api/v1/sites/${shop.id}/goals/${signup}`, readKey, { revenue: { currency: "EUR" } });
    expect(scope.status).toBe(403);
    expect(scope.type).toContain("application/problem+json");
    expect(
      (await api("PATCH", `/api/v1/sites/${other.id}/goals/${signup}`, writeKey, { revenue: { currency: "EUR" } })).status,
    ).toBe(403);
    expect(await written()).toEqual(before);
  });
});

describe("revenue on /s2s and POST /api/v1/events", () => {
  it("stores the amount as integer cents with the goal's currency", async () => {
    const answer = await s2s({
      events: [
        { goal_id: purchase, revenue: { amount: 12.34, currency: "EUR" }, id: "r-1" },
        { goal_id: purchase, revenue: { amount: 0, currency: "EUR" } },
        { goal_id: purchase, revenue: { amount: 1e9, currency: "EUR" } },
      ],
    });
    expect(answer.status).toBe(202);
    expect(answer.body.accepted).toBe(3);
    const stored = await rows<{ revenue: number; currency: string }>(
      db,
      "SELECT revenue, currency FROM conversions WHERE goal_id = ? ORDER BY id",
      [purchase],
    );
    expect(stored).toEqual([
      { revenue: 1234, currency: "EUR" },
      { revenue: 0, currency: "EUR" },
      { revenue: 100_000_000_000, currency: "EUR" },
    ]);
    const viaApi = await api("POST", "/api/v1/events", eventsKey, {
      site: shop.id,
      goal_id: purchase,
      revenue: { amount: 5.5, currency: "EUR" },
    });
    expect(viaApi.status).toBe(202);
    expect(
      await count(db, "SELECT count(*) FROM conversions WHERE goal_id = ? AND revenue = 550 AND currency = 'EUR'", [purchase]),
    ).toBe(1);
  });

  const hostile: [string, unknown, string][] = [
    ["a string amount", { amount: "12.5", currency: "EUR" }, "revenue.amount"],
    ["a null amount", { amount: null, currency: "EUR" }, "revenue.amount"],
    ["1e308", { amount: 1e308, currency: "EUR" }, "revenue.amount"],
    ["more than 1e9", { amount: 1e9 + 0.01, currency: "EUR" }, "revenue.amount"],
    ["-0.01", { amount: -0.01, currency: "EUR" }, "revenue.amount"],
    ["0.001", { amount: 0.001, currency: "EUR" }, "revenue.amount"],
    ["no amount", { currency: "EUR" }, "revenue.amount"],
    ['"EUR "', { amount: 1, currency: "EUR " }, "revenue.currency"],
    ['"eur"', { amount: 1, currency: "eur" }, "revenue.currency"],
    ["another currency", { amount: 1, currency: "USD" }, "revenue.currency"],
    ["an unknown field", { amount: 1, currency: "EUR", rate: 1.1 }, "revenue.rate"],
    ["a number", 12, "revenue"],
  ];
  for (const [what, revenue, field] of hostile) {
    it(`refuses ${what} with a 422 naming ${field}, writing nothing`, async () => {
      const before = await written();
      const single = await s2s({ goal_id: purchase, revenue });
      expect(single.status).toBe(422);
      expect(single.type).toContain("application/problem+json");
      expect(single.body.field).toBe(field);
      // In a batch, after a good event: the request is stored whole or not at all.
      const batch = await s2s({
        events: [
          { goal_id: purchase, revenue: { amount: 1, currency: "EUR" } },
          { goal_id: purchase, revenue },
        ],
      });
      expect(batch.status).toBe(422);
      expect(batch.body.field).toBe(`events.1.${field}`);
      const viaApi = await api("POST", "/api/v1/events", eventsKey, { site: shop.id, goal_id: purchase, revenue });
      expect(viaApi.status).toBe(422);
      expect(viaApi.body.field).toBe(field);
      expect(await written()).toEqual(before);
    });
  }

  it("refuses NaN (not JSON), and a currency on a goal without one, writing nothing", async () => {
    const before = await written();
    const nan = await s2s(`{"goal_id":"${purchase}","revenue":{"amount":NaN,"currency":"EUR"}}`);
    expect(nan.status).toBeGreaterThanOrEqual(400);
    expect(nan.status).toBeLessThan(500);
    expect(nan.type).toContain("application/problem+json");
    const plain = await s2s({ goal_id: signup, revenue: { amount: 1, currency: "EUR" } });
    expect(plain.status).toBe(422);
    expect(plain.body.field).toBe("revenue.currency");
    expect(await written()).toEqual(before);
  });
});

describe("revenue on beacons", () => {
  async function track(revenue: unknown): Promise<void> {
    const response = await postBeacon(stack.url, "shop.test", {
      site: shop.id,
      session: sessionId(),
      events: [{ type: "event", path: "/checkout", name: "purchase", ...(revenue === undefined ? {} : { revenue }) }],
    });
    expect(response.status).toBe(202);
  }
  const drops = async () =>
    Object.fromEntries(
      (
        await rows<{ reason: string; n: number }>(
          db,
          "SELECT reason, sum(count) AS n FROM revenue_drops WHERE site_id = ? GROUP BY reason",
          [shop.id],
        )
      ).map((r) => [r.reason, r.n]),
    );

  it("stores a good amount in cents", async () => {
    await track({ amount: 12.5, currency: "EUR" });
    const [last] = await rows<{ revenue: number; currency: string; source: string }>(
      db,
      "SELECT revenue, currency, source FROM conversions WHERE goal_id = ? ORDER BY id DESC LIMIT 1",
      [purchase],
    );
    expect(last).toEqual({ revenue: 1250, currency: "EUR", source: "beacon" });
  });

  it("drops a bad amount or currency, keeps the event and its conversion, and counts each drop by reason", async () => {
    const before = await collectorCounts(db);
    const dropped = await drops();
    const bad: [unknown, "revenue_amount" | "revenue_currency"][] = [
      [{ amount: "12.5", currency: "EUR" }, "revenue_amount"],
      [{ amount: null, currency: "EUR" }, "revenue_amount"],
      [{ amount: 1e308, currency: "EUR" }, "revenue_amount"],
      [{ amount: -0.01, currency: "EUR" }, "revenue_amount"],
      [{ amount: 0.001, currency: "EUR" }, "revenue_amount"],
      [12, "revenue_amount"],
      [{ amount: 1, currency: "eur" }, "revenue_currency"],
      [{ amount: 1, currency: "EUR " }, "revenue_currency"],
      [{ amount: 1, currency: "USD" }, "revenue_currency"],
    ];
    for (const [revenue] of bad) await track(revenue);
    const after = await collectorCounts(db);
    expect(after.events - before.events).toBe(bad.length);
    expect(after.conversions - before.conversions).toBe(bad.length);
    expect(
      await count(
        db,
        "SELECT count(*) FROM (SELECT revenue FROM conversions WHERE goal_id = ? ORDER BY id DESC LIMIT ?) WHERE revenue IS NULL",
        [purchase, bad.length],
      ),
    ).toBe(bad.length);
    expect(await drops()).toEqual({
      revenue_amount: (dropped.revenue_amount ?? 0) + 6,
      revenue_currency: (dropped.revenue_currency ?? 0) + 3,
    });
  });
});
