/**
 * POST /api/v1/query (worker/reports/query; docs/api.md "Query"): Plausible Stats API v2's
 * shape over the filter engine — exact values computed here from the database's noise secrets,
 * the rule's `other` row, and every refusal (no key, wrong scope, other site, hostile bodies).
 */
import { type Client } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DURATION_EDGES, durationMedian } from "../../worker/reports/histogram";
import { unitKey } from "../../worker/reports/noise";
import { filteredRule } from "../../worker/reports/privacy";
import { lastCompleteDay } from "../../worker/reports/period";
import { addDays } from "../../worker/reports/timezone";
import { addConversions, addEvents, noiseKey, sessions, type RawEvent } from "../reports/helpers";
import { apiFixture, type ApiFixture } from "./fixtures";

let f: ApiFixture;
let db: Client;
let site: string;
let other: string;
let goal: string;
let reader: Awaited<ReturnType<ApiFixture["makeKey"]>>;
const Y = lastCompleteDay("UTC", Date.now());
const at = (hour: number, minute = 0) =>
  Date.parse(`${Y}T${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:00Z`);

/** Yesterday: 12 sessions from DE (9 via Google, 3 via Bing), 8 from FR via Google; DE-Google views two pages, the rest one; 6 DE-Google convert. */
const de = sessions("de", 12);
const fr = sessions("fr", 8);

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  site = (await f.makeSite("query.example")).id;
  other = (await f.makeSite("other-query.example")).id;
  goal = (await f.makeGoal(site, { name: "Signed up", kind: "event", match: "signup" })).id;
  reader = await f.makeKey(["read:reports"], [site]);
  await f.seedHistory(async (history) => {
    const view = (session: string, path: string, country: string, source: string, minute: number): RawEvent => ({
      site,
      session,
      path,
      ts: at(10, minute),
      dims: { country, source },
    });
    await addEvents(history, [
      ...de.map((s, i) => view(s, "/", "DE", i < 9 ? "Google" : "Bing", 1)),
      ...fr.map((s) => view(s, "/", "FR", "Google", 1)),
      ...de.slice(0, 9).map((s) => view(s, "/pricing", "DE", "Google", 5)),
    ]);
    await addConversions(
      history,
      de.slice(0, 6).map((session) => ({ site, goal, session, ts: at(10, 9) })),
    );
  });
  db = f.database();
}, 120_000);
afterAll(async () => {
  await f?.close();
});

const post = (body: unknown, call = reader.call) => call("POST", "/api/v1/query", body);

/** Rule F's figures for a cell of these sessions (yesterday's session-days) with these events; null when hidden. */
async function cell(ids: string[], events: number) {
  const key = await noiseKey(db);
  const keySum = ids.reduce((n, id) => n + unitKey(id, key.secret), 0);
  return filteredRule.shown({ units: ids.length, events, keySum }, key, 5, true);
}

describe("POST /api/v1/query", () => {
  it("groups by a dimension under a filter: visitors, pageviews and views per visit, each with its qualifier", async () => {
    const res = await post({
      site_id: site,
      metrics: ["visitors", "pageviews", "views_per_visit"],
      date_range: "day",
      dimensions: ["visit:source"],
      filters: [["is", "visit:country", ["DE"]]],
    });
    expect(res.status, res.text).toBe(200);
    // 9 sessions: shown unless the noisy threshold draws −5 (1 in 1024); 3: always hidden.
    const google = await cell(de.slice(0, 9), 18);
    expect(await cell(de.slice(9), 3)).toBeNull();
    const otherRow = {
      dimensions: [null],
      metrics: [null, null, null],
      qualifiers: ["suppressed", "suppressed", "suppressed"],
      other: true,
    };
    if (!google) return expect(res.body.results).toEqual([otherRow]);
    expect(res.body.results).toEqual([
      {
        dimensions: ["Google"],
        metrics: [google.units, google.events, Math.round((google.events / google.units) * 100) / 100],
        qualifiers: ["estimated", "estimated", "estimated"],
        other: false,
      },
      { dimensions: [null], metrics: [null, null, null], qualifiers: ["suppressed", "suppressed", "suppressed"], other: true },
    ]);
    expect(res.body.meta).toEqual({ k: 5, total_rows: 2, period: { from: Y, to: Y, timezone: "UTC" } });
    expect(res.body.query).toEqual({
      site_id: site,
      metrics: ["visitors", "pageviews", "views_per_visit"],
      dimensions: ["visit:source"],
      date_range: [Y, Y],
    });
  });

  it("counts a goal's converting visitors, conversions and conversion rate (percent) per goal", async () => {
    const res = await post({
      site_id: site,
      metrics: ["visitors", "events", "conversion_rate"],
      date_range: [Y, Y],
      dimensions: ["event:goal"],
    });
    expect(res.status, res.text).toBe(200);
    // 6 converting sessions: hidden by the noisy threshold on a draw of −2 or less (3 %).
    const converted = await cell(de.slice(0, 6), 6);
    const all = (await cell([...de, ...fr], 29))!;
    if (!converted)
      return expect(res.body.results).toEqual([
        { dimensions: [null], metrics: [null, null, null], qualifiers: ["suppressed", "suppressed", "suppressed"], other: true },
      ]);
    const rate = Math.round(Math.min(1, converted.units / all.units) * 10000) / 100;
    expect(res.body.results).toEqual([
      {
        dimensions: [goal],
        metrics: [converted.units, converted.events, rate],
        qualifiers: ["estimated", "estimated", "estimated"],
        other: false,
      },
    ]);
  });

  it("gives bounce rate in whole percent, crosses two dimensions, orders and pages", async () => {
    const query = (offset: number, limit: number) =>
      post({
        site_id: site,
        metrics: ["visitors", "bounce_rate"],
        date_range: "day",
        dimensions: ["visit:country", "visit:source"],
        order_by: [["visit:country", "asc"]],
        pagination: { limit, offset },
      });
    // DE-Google (9, two pages each: no bounce, a 0 cell that reads as hidden) and FR-Google (8, all
    // bounced: the bounce cell is the visitors' cell, 100 %), each shown unless the noisy threshold
    // hides it; DE-Bing (3) is always hidden: the `other` row.
    const deGoogle = await cell(de.slice(0, 9), 18);
    const frGoogle = await cell(fr, 8);
    const rows = [
      ...(deGoogle
        ? [
            {
              dimensions: ["DE", "Google"],
              metrics: [deGoogle.units, null],
              qualifiers: ["estimated", "suppressed"],
              other: false,
            },
          ]
        : []),
      ...(frGoogle
        ? [{ dimensions: ["FR", "Google"], metrics: [frGoogle.units, 100], qualifiers: ["estimated", "estimated"], other: false }]
        : []),
    ];
    const otherRow = { dimensions: [null, null], metrics: [null, null], qualifiers: ["suppressed", "suppressed"], other: true };
    const first = await query(0, 1);
    expect(first.status, first.text).toBe(200);
    expect(first.body.results).toEqual(rows.length > 1 ? rows.slice(0, 1) : [...rows, otherRow]);
    expect(first.body.meta.total_rows).toBe(rows.length + 1);
    expect((await query(1, 5)).body.results).toEqual([...rows.slice(1), otherRow]);
  });

  it("gives each group's median visit duration as the aggregate shows one, by one and two dimensions", async () => {
    // DE-Google's 9 visits last 4 minutes (10:01 to 10:05), every other visit one pageview (0 s).
    const b = DURATION_EDGES.findIndex((e) => e >= 240);
    const median = (histogram: [number, number][]) => durationMedian(new Map(histogram), 5).value;
    const read = async (dimensions: string[]) => {
      const res = await post({ site_id: site, metrics: ["visits", "visit_duration"], date_range: "day", dimensions });
      expect(res.status, res.text).toBe(200);
      return new Map(
        (res.body.results as { dimensions: string[]; metrics: number[]; other: boolean }[])
          .filter((r) => !r.other)
          .map((r) => [r.dimensions.join("/"), r.metrics[1]]),
      );
    };
    const [deAll, frAll, deGoogle] = [await cell(de, 21), await cell(fr, 8), await cell(de.slice(0, 9), 18)];
    const byCountry = await read(["visit:country"]);
    // DE: 3 visits at 0 s, 9 in 240 s's bucket — the median's; FR: 8 at 0 s.
    expect(byCountry).toEqual(
      new Map([
        ...(deAll
          ? [
              [
                "DE",
                median([
                  [0, 3],
                  [b, 9],
                ]).value,
              ] as const,
            ]
          : []),
        ...(frAll ? [["FR", 0] as const] : []),
      ]),
    );
    expect(deAll === null || byCountry.get("DE")! > 0).toBe(true);
    const byBoth = await read(["visit:country", "visit:source"]);
    expect(byBoth).toEqual(
      new Map([
        ...(deGoogle ? [["DE/Google", median([[b, 9]]).value] as const] : []),
        ...(frAll ? [["FR/Google", 0] as const] : []),
      ]),
    );
  });

  it("compares with the previous period (include.comparisons): each group beside the earlier period's own result", async () => {
    const body = { site_id: site, metrics: ["visitors", "bounce_rate"], date_range: "day", dimensions: ["visit:country"] };
    const res = await post({ ...body, include: { comparisons: { mode: "previous_period" } } });
    expect(res.status, res.text).toBe(200);
    const plainRes = await post(body);
    const week = addDays(Y, -7);
    expect(res.body.meta.comparison).toEqual({ from: week, to: week });
    // The same weekday a week earlier had no visitors at all: every earlier figure is an exact 0,
    // a count's change is null (no relative change from 0), a rate's is its difference from 0.
    expect(res.body.results).toEqual(
      plainRes.body.results.map((row: { other: boolean; metrics: (number | null)[] }) =>
        row.other
          ? row
          : { ...row, comparison: { metrics: [0, 0], qualifiers: ["exact", "exact"], change: [null, row.metrics[1]] } },
      ),
    );
    const earlier = await post({ ...body, date_range: [week, week] });
    expect(earlier.body.results).toEqual([]);
  });

  it.each([
    [{ site_id: undefined, metrics: ["visitors"], date_range: "day" }, "site_id"],
    [{ metrics: [], date_range: "day" }, "metrics"],
    [{ metrics: ["revenue"], date_range: "day" }, "metrics"],
    [{ metrics: ["visitors", "visitors"], date_range: "day" }, "metrics"],
    [{ metrics: ["events"], date_range: "day" }, "metrics"],
    [{ metrics: ["pageviews"], date_range: "day", dimensions: ["event:goal"] }, "metrics"],
    [{ metrics: ["visitors"], date_range: "year" }, "date_range"],
    [{ metrics: ["visitors"], date_range: ["2020-01-01", "2020-01-31"] }, "date_range"],
    [{ metrics: ["visitors"], date_range: "day", dimensions: ["visit:planet"] }, "dimensions"],
    [{ metrics: ["visitors"], date_range: "day", dimensions: ["visit:country", "visit:source", "visit:device"] }, "dimensions"],
    [{ metrics: ["visitors"], date_range: "day", filters: [["contains", "visit:country", ["DE"]]] }, "filters"],
    [{ metrics: ["visitors"], date_range: "day", filters: [["is", "visit:country", ["DE", "FR"]]] }, "filters"],
    [{ metrics: ["visitors"], date_range: "day", filters: [["is", "visit:country", ["Germany"]]] }, "filters"],
    [{ metrics: ["visitors"], date_range: "day", filters: Array(4).fill(["is", "visit:country", ["DE"]]) }, "filters"],
    [{ metrics: ["visitors"], date_range: "day", order_by: [["bounce_rate", "desc"]] }, "order_by"],
    [{ metrics: ["visitors"], date_range: "day", pagination: { limit: 0 } }, "pagination"],
    [{ metrics: ["visitors"], date_range: "day", colour: "red" }, ""],
  ])("refuses %j as unprocessable, naming %s", async (body, field) => {
    const res = await post({ site_id: site, ...body });
    expect(res.status, res.text).toBe(422);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    if (field) expect(res.body.field ?? res.body.errors?.[0]?.field).toMatch(new RegExp(`^${field}`));
  });

  it("needs a key with read:reports and the site on its allowlist", async () => {
    const body = { site_id: site, metrics: ["visitors"], date_range: "day" };
    const anonymous = await fetch(`${f.stack.url}/api/v1/query`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(anonymous.status).toBe(401);
    const writer = await f.makeKey(["write:goals"], [site]);
    expect((await post(body, writer.call)).status).toBe(403);
    const elsewhere = await f.makeKey(["read:reports"], [other]);
    expect((await post(body, elsewhere.call)).status).toBe(403);
    expect((await post({ ...body, site_id: other })).status).toBe(403);
  });
});
