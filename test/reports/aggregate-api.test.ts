/**
 * GET /api/v1/aggregate on the real stack (`wren start`: workerd, the api worker, the embedded
 * libSQL server): the period's visitors and pageviews exactly as the timeseries' totals, the
 * engagement figures perturbed by their cells' key sums (expected values computed from the
 * database's secrets), CSV and NDJSON; and the attacks a route must refuse — no key, a key
 * without read:reports, a site off the key's allowlist, hostile parameters — each a 4xx
 * problem+json naming the field, with nothing written.
 */
import type { Client } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aggregateResponse } from "../../worker/reports/schemas";
import { unitKey } from "../../worker/reports/noise";
import { filteredRule } from "../../worker/reports/privacy";
import { lastCompleteDay } from "../../worker/reports/period";
import { addDays } from "../../worker/reports/timezone";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { client } from "../helpers/http";
import { addEvents, noiseKey, sessions, type RawEvent } from "./helpers";

let f: ApiFixture;
let db: Client;
let site: string;
let other: string;
let reader: Awaited<ReturnType<ApiFixture["makeKey"]>>;
const Y = lastCompleteDay("UTC", Date.now());
const atY = (hour: number, minute = 0) =>
  Date.parse(`${Y}T${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:00Z`);
/** b0–b5 bounce; l0–l3 view two pages 5 minutes apart. */
const BOUNCERS = sessions("b", 6);
const STAYERS = sessions("l", 4);

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  site = (await f.makeSite("aggregate.example")).id;
  other = (await f.makeSite("other-aggregate.example")).id;
  reader = await f.makeKey(["read:reports"], [site]);
  await f.seedHistory(async (history) => {
    await addEvents(history, [
      ...BOUNCERS.map((session): RawEvent => ({ site, session, path: "/", ts: atY(12) })),
      ...STAYERS.flatMap((session): RawEvent[] => [
        { site, session, path: "/", ts: atY(13) },
        { site, session, path: "/pricing", ts: atY(13, 5) },
      ]),
    ]);
  });
  db = f.database();
}, 120_000);
afterAll(async () => {
  await f?.close();
});

const get = (path: string, headers: Record<string, string> = {}) => reader.call("GET", path, undefined, headers);
const est = (value: number) => ({ value, qualifier: "estimated" });

/** What the route must show: the true counts through Rule F (its own code) with the cells' key sums. */
async function expected() {
  const secret = Number((await db.execute("SELECT secret FROM rollup_cell_key")).rows[0]!.secret);
  const keys = (units: string[]) => units.reduce((sum, u) => sum + unitKey(u, secret), 0);
  const key = await noiseKey(db);
  // 10 visits are never hidden at k = 5 (the noise reads 10 − 5 at least); 6 bounces are, now and then (the noisy threshold).
  const visits = filteredRule.shown({ units: 10, events: 14, keySum: keys([...BOUNCERS, ...STAYERS]) }, key, 5, true)!;
  const bounces = filteredRule.shown({ units: 6, events: 0, keySum: keys(BOUNCERS) }, key, 5, false)?.units ?? null;
  const hidden = { value: null, qualifier: "suppressed" };
  const rounded = bounces === null ? null : Math.round(Math.min(1, bounces / visits.units) * 10_000) / 10_000;
  return {
    visits: est(visits.units),
    bounces: bounces === null ? hidden : est(bounces),
    bounce_rate: {
      ...(rounded === null ? hidden : { value: rounded, qualifier: "estimated" }),
      numerator: { name: "bounces", ...(bounces === null ? hidden : est(bounces)) },
      denominator: { name: "visits", ...est(visits.units) },
    },
    views_per_visit: est(Math.round((visits.events / visits.units) * 100) / 100),
    // 6 of 10 visits last 0 s: the median's own bucket holds k = 5.
    visit_duration: est(0),
    visit_duration_low: est(0),
    visit_duration_high: est(0),
  };
}

describe("GET /api/v1/aggregate", () => {
  it("answers the timeseries' visitors and pageviews and the engagement figures through Rule F", async () => {
    const res = await get(`/api/v1/aggregate?site=${site}&period=day`);
    expect(res.status, res.text).toBe(200);
    expect(aggregateResponse.parse(res.body)).toEqual(res.body);
    const series = await get(`/api/v1/timeseries?site=${site}&period=day`);
    expect(res.body.results).toEqual({
      visitors: series.body.totals.visitors,
      pageviews: series.body.totals.pageviews,
      ...(await expected()),
    });
    expect(res.body.results.visitors.qualifier).toBe("estimated");
    expect(res.body).toMatchObject({ site, period: { from: Y, to: Y, days: 1, timezone: "UTC" }, k: 5, published_through: Y });
  });

  it("reads the same over 7 days (the other days have no visit) and answers CSV and NDJSON", async () => {
    const day = (await get(`/api/v1/aggregate?site=${site}&period=day`)).body.results;
    const week = await get(`/api/v1/aggregate?site=${site}&period=7d`);
    expect(week.body.results).toEqual(day);
    const csv = await get(`/api/v1/aggregate?site=${site}&period=day`, { accept: "text/csv" });
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8; header=present");
    const names = [
      "visitors",
      "pageviews",
      "visits",
      "bounces",
      "bounce_rate",
      "views_per_visit",
      "visit_duration",
      "visit_duration_low",
      "visit_duration_high",
    ];
    expect(csv.text).toBe(
      [
        ["site", "from", "to", "timezone", ...names.flatMap((n) => [n, `${n}_qualifier`])].join(","),
        [site, Y, Y, "UTC", ...names.flatMap((n) => [day[n].value, day[n].qualifier])].join(","),
        "",
      ].join("\r\n"),
    );
    const nd = await get(`/api/v1/aggregate?site=${site}&period=day`, { accept: "application/x-ndjson" });
    expect(
      nd.text
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([{ site, from: Y, to: Y, timezone: "UTC", ...day }]);
  });
});

describe("GET /api/v1/aggregate refuses", () => {
  async function written(): Promise<number[]> {
    const tables = ["events", "sessions", "rollup_session_day", "rollup_engagement_day", "rollup_duration_histogram", "api_keys"];
    const counts: number[] = [];
    for (const t of tables) counts.push(Number((await db.execute(`SELECT count(*) AS n FROM ${t}`)).rows[0]!.n));
    return counts;
  }

  const refused = (res: { status: number; headers: Headers; body: { field?: string } }, status: number, field: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.body.field).toBe(field);
  };

  it("a request without a key, a key without read:reports, and a site off the key's allowlist or unknown", async () => {
    const before = await written();
    refused(await client(f.stack.url)("GET", `/api/v1/aggregate?site=${site}`), 401, "authorization");
    const writer = await f.makeKey(["write:events"], [site]);
    const counted = await written();
    refused(await writer.call("GET", `/api/v1/aggregate?site=${site}`), 403, "authorization");
    refused(await get(`/api/v1/aggregate?site=${other}`), 403, "site");
    refused(await f.admin("GET", "/api/v1/aggregate?site=site_doesnotexist1"), 404, "site");
    expect(await written()).toEqual(counted);
    expect(counted.slice(0, -1)).toEqual(before.slice(0, -1));
  });

  const hostile: [string, number, string][] = [
    ["/api/v1/aggregate", 400, "site"],
    ["/api/v1/aggregate?site=' OR 1=1 --", 400, "site"],
    ["/api/v1/aggregate?site=SITE&period=24h", 400, "period"],
    ["/api/v1/aggregate?site=SITE&period=today", 400, "period"],
    ["/api/v1/aggregate?site=SITE&period=1y", 400, "period"],
    ["/api/v1/aggregate?site=SITE&period=day&period=7d", 400, "period"],
    ["/api/v1/aggregate?site=SITE&from=2026-02-30&to=2026-03-01", 400, "from"],
    ["/api/v1/aggregate?site=SITE&from=2020-01-01&to=2026-01-01", 400, "from"], // more than 366 days,
    ["/api/v1/aggregate?site=SITE&limit=5", 400, "limit"],
    ["/api/v1/aggregate?site=SITE&tz=Europe/Berlin", 422, "tz"],
    ["/api/v1/aggregate?site=SITE&date=TODAY", 422, "date"],
    [`/api/v1/aggregate?site=SITE&date=${"9".repeat(5000)}`, 400, "date"],
  ];
  for (const [path, status, field] of hostile) {
    it(`${path.slice(0, 80)} → ${status} naming ${field}, nothing written`, async () => {
      const before = await written();
      refused(await get(path.replaceAll("SITE", site).replace("TODAY", addDays(Y, 1))), status, field);
      expect(await written()).toEqual(before);
    });
  }
});
