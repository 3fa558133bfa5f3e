/**
 * GET /api/v1/live on the real stack (workerd, the api worker, the embedded libSQL server):
 * the exact bands of the last 5 and 30 minutes (the true units, perturbed by their set's key
 * sum as read from the database, then banded: reports/privacy/live.ts), "fewer than k" below k,
 * one reading per minute whatever lands meanwhile, and every refusal — no key, wrong scope, a
 * site off the key's allowlist, a junk or unknown site, an unknown parameter — as problem+json
 * with nothing written.
 */
import type { Client } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIVE_WINDOWS, type LiveWindow } from "../../worker/reports/live";
import { perturbationAt, unitKey } from "../../worker/reports/noise";
import { noisePosition } from "../../worker/reports/noise-position";
import { bandedLive } from "../../worker/reports/privacy";
import { liveResponse } from "../../worker/reports/schemas";
import { client, type Answer } from "../helpers/http";
import { addEvents, noiseKey, sessions } from "../reports/helpers";
import { apiFixture, type ApiFixture } from "./fixtures";

const MIN = 60_000;
const TABLES = ["sites", "goals", "api_keys", "events", "sessions", "conversions"];

let f: ApiFixture;
let db: Client;
let busy: string;
let quiet: string;
let other: string;
let reader: Awaited<ReturnType<ApiFixture["makeKey"]>>;
const startedAt = Date.now();

beforeAll(async () => {
  f = await apiFixture();
  busy = (await f.makeSite("live-busy.example")).id;
  quiet = (await f.makeSite("live-quiet.example")).id;
  other = (await f.makeSite("live-other.example")).id;
  reader = await f.makeKey(["read:reports"], [busy, quiet]);
  db = f.database();
  // The service's publisher writes too: wait for its lock rather than fail.
  await db.execute("PRAGMA busy_timeout = 10000");
  // busy: 7 sessions 2 minutes ago (one of them twice), 2 more only 20 minutes ago, and 1 event
  // without a session (a unit of its own) 3 minutes ago; quiet: 3 sessions; other: 6.
  await addEvents(db, [
    ...sessions("now", 7).map((session) => ({ site: busy, session, path: "/", ts: startedAt - 2 * MIN })),
    { site: busy, session: "now0", path: "/b", ts: startedAt - 2 * MIN + 5_000 },
    ...sessions("gone", 2).map((session) => ({ site: busy, session, path: "/", ts: startedAt - 20 * MIN })),
    { site: busy, session: null, path: "/", ts: startedAt - 3 * MIN },
    ...sessions("few", 3).map((session) => ({ site: quiet, session, path: "/", ts: startedAt - MIN })),
    ...sessions("else", 6).map((session) => ({ site: other, session, path: "/", ts: startedAt - MIN })),
  ]);
}, 120_000);
afterAll(() => f?.close());

/** What the rule shows for the units of `site` in `window` ending at `asOf`, computed from the database. */
async function expected(site: string, window: LiveWindow, asOf: number) {
  const rows = await db.execute({
    sql: "SELECT DISTINCT coalesce(session_id, 'e:' || id) AS unit FROM events WHERE site_id = ? AND ts >= ? AND ts < ?",
    args: [site, asOf - LIVE_WINDOWS[window], asOf],
  });
  const key = await noiseKey(db);
  const units = rows.rows.map((r) => String(r.unit));
  const keySum = units.reduce((sum, u) => sum + unitKey(u, key.secret), 0);
  return {
    units: units.length,
    figure: bandedLive.figure(units.length, perturbationAt(noisePosition(keySum, units.length, key)), 5),
  };
}

async function counts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of TABLES) out[t] = Number((await db.execute(`SELECT count(*) AS n FROM ${t}`)).rows[0]!.n);
  return out;
}

describe("GET /api/v1/live", () => {
  it("shows the last 5 and 30 minutes as bands of width k, the set's noise applied, and fewer than k below it", async () => {
    const res = await reader.call("GET", `/api/v1/live?site=${busy}`);
    expect(res.status).toBe(200);
    expect(liveResponse.parse(res.body)).toEqual(res.body);
    const asOf = Date.parse(res.body.as_of);
    // The last whole minute at least 15 s ago; the next reading one minute later.
    const now = Date.now();
    expect(asOf % MIN).toBe(0);
    expect(asOf).toBeLessThanOrEqual(now - 15_000);
    expect(asOf).toBeGreaterThan(startedAt - 15_000 - MIN);
    expect(res.body.next_update).toBe(new Date(asOf + MIN + 15_000).toISOString());
    const five = await expected(busy, "5m", asOf);
    const thirty = await expected(busy, "30m", asOf);
    expect([five.units, thirty.units]).toEqual([8, 10]);
    expect(res.body).toEqual({
      site: busy,
      as_of: res.body.as_of,
      next_update: res.body.next_update,
      timezone: "UTC",
      k: 5,
      windows: { "5m": five.figure, "30m": thirty.figure },
    });
    // Bands of k = 5 from 5 up: 8 units read 5–9 or 10–14, 10 read 5–9, 10–14 or 15–19.
    for (const w of ["5m", "30m"] as const) {
      const fig = res.body.windows[w];
      expect(fig.qualifier).toBe("estimated");
      expect(fig.value).toBe(fig.low);
      expect(fig.high).toBe(fig.low + 4);
      expect(fig.low % 5).toBe(0);
    }

    const few = await reader.call("GET", `/api/v1/live?site=${quiet}`);
    expect(few.status).toBe(200);
    const fewer = { value: null, qualifier: "suppressed", low: 0, high: 4 };
    expect(few.body.windows).toEqual({ "5m": fewer, "30m": fewer });
  });

  it("serves one reading per site and minute: a row landing in its window meanwhile is not seen before next_update", async () => {
    for (;;) {
      const first = await reader.call("GET", `/api/v1/live?site=${busy}`);
      const asOf = Date.parse(first.body.as_of);
      // Enough sessions into the 5-minute window to move any band (k + 5 + 5 more).
      await addEvents(
        db,
        sessions(`late${asOf}-`, 15).map((session) => ({ site: busy, session, path: "/", ts: asOf - MIN })),
      );
      const again = await reader.call("GET", `/api/v1/live?site=${busy}`);
      if (again.body.as_of !== first.body.as_of) continue; // the minute turned meanwhile: try again
      expect(again.body).toEqual(first.body);
      expect((await expected(busy, "5m", asOf)).figure).not.toEqual(first.body.windows["5m"]);
      return;
    }
  });

  it("refuses no key, a wrong scope, a site off the allowlist, a junk or unknown site and unknown parameters, writing nothing", async () => {
    const anonymous = client(f.stack.url);
    const sitesOnly = await f.makeKey(["read:sites", "write:sites"], [busy]);
    const before = await counts();
    const cases: [string, () => Promise<Answer>, number, string | undefined][] = [
      ["no key", () => anonymous("GET", `/api/v1/live?site=${busy}`), 401, undefined],
      ["a key of another scope", () => sitesOnly.call("GET", `/api/v1/live?site=${busy}`), 403, undefined],
      ["a site off the key's allowlist", () => reader.call("GET", `/api/v1/live?site=${other}`), 403, "site"],
      ["no site", () => reader.call("GET", "/api/v1/live"), 400, "site"],
      ["a junk site", () => reader.call("GET", "/api/v1/live?site=../../etc%00"), 400, "site"],
      ["an overlong site", () => reader.call("GET", `/api/v1/live?site=site_${"a".repeat(500)}`), 400, "site"],
      ["two sites", () => reader.call("GET", `/api/v1/live?site=${busy}&site=${quiet}`), 400, "site"],
      ["an unknown site", () => f.admin("GET", "/api/v1/live?site=site_000000000000000000000000"), 404, "site"],
      ["an unknown parameter", () => reader.call("GET", `/api/v1/live?site=${busy}&period=7d`), 400, "period"],
    ];
    for (const [name, call, status, field] of cases) {
      const res = await call();
      expect({ name, status: res.status, type: res.headers.get("content-type") }).toEqual({
        name,
        status,
        type: expect.stringMatching(/^application\/problem\+json/),
      });
      if (field) expect({ name, field: res.body.field }).toEqual({ name, field });
      // The off-allowlist site's figures are nowhere in the answer.
      expect(res.body.windows).toBeUndefined();
    }
    expect(await counts()).toEqual(before);
  });
});
