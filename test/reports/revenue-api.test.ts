/**
 * Revenue through the report routes on the real stack (`wren start`: workerd, the api worker, the
 * embedded libSQL server, the publisher): a revenue goal's `total_revenue` and `average_revenue`
 * on `GET /api/v1/conversions` (plain and filtered), `GET /api/v1/breakdown?goal=…` and
 * `POST /api/v1/query`, each the revenue rule's value computed here from the database's own
 * secrets, every answer valid against the OpenAPI response schema; a plain goal carries none.
 * Yesterday's rows are written while the service is stopped (a published day is final).
 */
import type { Client } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastCompleteDay } from "../../worker/reports/period";
import { breakdownResponse, conversionsResponse } from "../../worker/reports/schemas";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { addEvents, expectedRevenueTotal } from "./helpers";

const Y = lastCompleteDay("UTC", Date.now());
const at = (minute: number) => Date.parse(`${Y}T12:${String(minute).padStart(2, "0")}:00Z`);

let f: ApiFixture;
let db: Client;
let site: string;
let buy: string;
let plain: string;
let reader: Awaited<ReturnType<ApiFixture["makeKey"]>>;

/** 8 DE sessions buying 10…80 EUR, 6 FR sessions buying 15…40 EUR; each also converts on the plain goal. */
const de = Array.from({ length: 8 }, (_, i) => [`de-session-${i}xxxxxxxx`, (i + 1) * 1000] as const);
const fr = Array.from({ length: 6 }, (_, i) => [`fr-session-${i}xxxxxxxx`, 1500 + i * 500] as const);

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  site = (await f.makeSite("revenue.example")).id;
  buy = (await f.makeGoal(site, { name: "Purchase", kind: "event", match: "purchase", revenue: { currency: "EUR" } })).id;
  plain = (await f.makeGoal(site, { name: "Signup", kind: "event", match: "signup" })).id;
  reader = await f.makeKey(["read:reports"], [site]);
  await f.seedHistory(async (history) => {
    await addEvents(history, [
      ...de.map(([session], i) => ({ site, session, path: "/", ts: at(i), dims: { country: "DE" } })),
      ...fr.map(([session], i) => ({ site, session, path: "/", ts: at(20 + i), dims: { country: "FR" } })),
    ]);
    for (const [i, [session, cents]] of [...de, ...fr].entries()) {
      await history.batch(
        [
          {
            sql: "INSERT INTO conversions (site_id, goal_id, session_id, revenue, currency, source, ts) VALUES (?, ?, ?, ?, 'EUR', 's2s', ?)",
            args: [site, buy, session, cents, at(30 + i)],
          },
          {
            sql: "INSERT INTO conversions (site_id, goal_id, session_id, source, ts) VALUES (?, ?, ?, 's2s', ?)",
            args: [site, plain, session, at(30 + i)],
          },
        ],
        "write",
      );
    }
  });
  db = f.stack.openDatabase();
  await db.execute("PRAGMA busy_timeout = 10000");
}, 120_000);
afterAll(async () => {
  db?.close();
  await f?.stack.stop();
});

/** The figure the rule shows for these session units, from the database's secrets. */
const expectedTotal = (units: readonly (readonly [string, number])[]) => expectedRevenueTotal(db, units, "EUR", 5);

describe("revenue in the reports", () => {
  it("GET /api/v1/conversions: the revenue goal's total and average, plain and filtered; none on a plain goal", async () => {
    const res = await reader.call("GET", `/api/v1/conversions?site=${site}&period=day`);
    expect(res.status).toBe(200);
    expect(conversionsResponse.safeParse(res.body).success).toBe(true);
    const rows = new Map((res.body.rows as { goal: { id: string } }[]).map((r) => [r.goal.id, r as Record<string, any>]));
    const total = await expectedTotal([...de, ...fr]);
    expect(rows.get(buy)!.total_revenue).toEqual(total);
    const converting = rows.get(buy)!.converting_sessions.value as number;
    expect(rows.get(buy)!.average_revenue).toEqual(
      total.value === null
        ? total
        : { value: Math.round((total.value / converting) * 100) / 100, qualifier: "estimated", currency: "EUR" },
    );
    expect(rows.get(plain)).not.toHaveProperty("total_revenue");
    expect(rows.get(plain)).not.toHaveProperty("average_revenue");

    const filtered = await reader.call("GET", `/api/v1/conversions?site=${site}&period=day&filter=country:DE`);
    expect(filtered.status).toBe(200);
    const row = (filtered.body.rows as Record<string, any>[]).find((r) => r.goal.id === buy)!;
    expect(row.total_revenue).toEqual(await expectedTotal(de));
  });

  it("GET /api/v1/breakdown with the goal: per country", async () => {
    const res = await reader.call("GET", `/api/v1/breakdown?site=${site}&period=day&dimension=country&goal=${buy}`);
    expect(res.status).toBe(200);
    expect(breakdownResponse.safeParse(res.body).success).toBe(true);
    const rows = res.body.rows as Record<string, any>[];
    const deRow = rows.find((r) => r.value === "DE");
    if (deRow && deRow.converting_sessions.value !== null) expect(deRow.total_revenue).toEqual(await expectedTotal(de));
    for (const r of rows) expect(r.total_revenue?.currency ?? "EUR").toBe("EUR");
    const other = rows.find((r) => r.other);
    if (other) expect(other.total_revenue).toEqual({ value: null, qualifier: "suppressed", currency: "EUR" });
    // Without a goal: no revenue.
    const bare = await reader.call("GET", `/api/v1/breakdown?site=${site}&period=day&dimension=country`);
    expect((bare.body.rows as Record<string, unknown>[]).every((r) => !("total_revenue" in r))).toBe(true);
  });

  it("POST /api/v1/query: total_revenue and average_revenue per goal with its currency; a 422 without event:goal", async () => {
    const res = await reader.call("POST", "/api/v1/query", {
      site_id: site,
      metrics: ["visitors", "total_revenue", "average_revenue"],
      dimensions: ["event:goal"],
      date_range: [Y, Y],
    });
    expect(res.status).toBe(200);
    const rows = res.body.results as {
      dimensions: string[];
      metrics: (number | null)[];
      qualifiers: string[];
      currency?: string | null;
    }[];
    const buyRow = rows.find((r) => r.dimensions[0] === buy)!;
    const plainRow = rows.find((r) => r.dimensions[0] === plain)!;
    expect(buyRow.currency).toBe("EUR");
    expect(buyRow.metrics[1]).toBe((await expectedTotal([...de, ...fr])).value);
    expect(plainRow.currency).toBeNull();
    expect(plainRow.metrics.slice(1)).toEqual([null, null]);
    expect(plainRow.qualifiers.slice(1)).toEqual(["suppressed", "suppressed"]);
    const refused = await reader.call("POST", "/api/v1/query", {
      site_id: site,
      metrics: ["total_revenue"],
      dimensions: ["visit:country"],
      date_range: [Y, Y],
    });
    expect(refused.status).toBe(422);
    expect(refused.body.field).toBe("metrics");
  });
});
