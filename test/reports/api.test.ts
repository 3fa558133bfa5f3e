/**
 * The report routes on the real stack (`wren start`: workerd, the api worker, the embedded
 * libSQL server): scope and site allowlist, exact JSON, CSV and NDJSON, pagination, every bad
 * parameter as a problem naming it, WREN_K_ANONYMITY, the nightly-pull script, and data that
 * came in through the collector. Raw rows for past days are written straight into the
 * database file (the collector stamps rows with the current time, and today is never reported)
 * while the service is stopped (seedHistory: a published day is final). Figures are perturbed
 * (worker/reports/noise.ts): expected values are the true counts perturbed by each cell's key
 * sum, read from the database; the exact rules are tested without noise in reports.test.ts.
 */
import { createClient, type Client } from "@libsql/client";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ratio, type Figure } from "../../worker/reports/figures";
import { lastCompleteDay } from "../../worker/reports/period";
import {
  breakdownResponse,
  conversionsResponse,
  funnelsResponse,
  pagesResponse,
  timeseriesResponse,
  vitalsResponse,
} from "../../worker/reports/schemas";
import { addDays } from "../../worker/reports/timezone";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { ROOT, startStack, waitForPublication } from "../helpers/stack";
import { addConversions, addEvents, addVitals, noiseKey, sessions, shown, type RawEvent } from "./helpers";
import { shownCounts } from "../../worker/reports/noise";
import { BROWSER_UA } from "../collector/helpers";

const run = promisify(execFile);

const x = (value: number) => ({ value, qualifier: "exact" });
const est = (value: number) => ({ value, qualifier: "estimated" });
const hidden = { value: null, qualifier: "suppressed" };

let f: ApiFixture;
let db: Client;
let site: string;
let other: string;
let goal: string;
let goal2: string;
let reader: Awaited<ReturnType<ApiFixture["makeKey"]>>;
/** Yesterday and the day before, in UTC (the sites' zone). */
const Y = lastCompleteDay("UTC", Date.now());
const Y1 = addDays(Y, -1);
const atY = (day: string, hour = 12, minute = 0) =>
  Date.parse(`${day}T${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:00Z`);

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  site = (await f.makeSite("reports.example")).id;
  other = (await f.makeSite("other.example")).id;
  goal = (await f.makeGoal(site, { name: "Signed up", kind: "event", match: "signup" })).id;
  goal2 = (await f.makeGoal(site, { name: "Bought", kind: "event", match: "buy" })).id;
  reader = await f.makeKey(["read:reports"], [site]);
  await f.seedHistory(async (history) => {
    // Yesterday: 20 sessions. "/" all (s0–s4 twice), "/pricing" 8, "/about" 6, "/docs/a" 2,
    // "/docs/b" 1. The docs pages are too small, and together hold 3 sessions: "/about", the
    // smallest visible page, is hidden with them.
    const s = sessions("s", 20);
    const views = (ids: string[], path: string, day = Y, hour = 12): RawEvent[] =>
      ids.map((session) => ({ site, session, path, ts: atY(day, hour) }));
    // Their first pageviews' countries (the collector's dimensions): 10 DE, 6 FR, 1 US, 3 unknown.
    const country = (i: number) => (i < 10 ? "DE" : i < 16 ? "FR" : i < 17 ? "US" : undefined);
    await addEvents(history, [
      ...s.map((session, i): RawEvent => ({
        site,
        session,
        path: "/",
        ts: atY(Y, 12),
        dims: country(i) ? { country: country(i)!, device: "desktop" } : {},
      })),
      ...views(s.slice(0, 5), "/", Y, 13),
      ...views(s.slice(0, 8), "/pricing"),
      ...views(s.slice(8, 14), "/about"),
      ...views(["s14", "s15"], "/docs/a"),
      ...views(["s16"], "/docs/b"),
      ...views(sessions("p", 7), "/", Y1),
    ]);
    await addVitals(history, [
      ...s.map((session, i) => ({ site, session, path: "/", metric: "LCP", value: 1000 + 100 * i, ts: atY(Y) })),
      ...s.slice(0, 8).map((session) => ({ site, session, path: "/pricing", metric: "INP", value: 150, ts: atY(Y) })),
    ]);
    await addConversions(history, [
      ...s.slice(0, 10).map((session) => ({ site, goal, session, ts: atY(Y, 12, 30) })),
      ...s.slice(0, 5).map((session) => ({ site, goal: goal2, session, ts: atY(Y, 12, 40) })),
    ]);
  });
  db = createClient({ url: `file:${join(f.stack.dataDir, "wren.db")}` });
  await db.execute("PRAGMA busy_timeout = 10000");
}, 120_000);
afterAll(async () => {
  db?.close();
  await f?.stack.stop();
});

const get = (path: string, headers: Record<string, string> = {}) => reader.call("GET", path, undefined, headers);

/** What a page-day shows: visitors and pageviews, perturbed by the cell's key sum. */
async function pageShown(path: string, visitors: number, pageviews: number, day = Y) {
  const cell = { site_id: site, day, path };
  return {
    visitors: await shown(db, "rollup_page_day", cell, visitors, "units"),
    pageviews: await shown(db, "rollup_page_day", cell, pageviews, { eventsOf: visitors }),
  };
}

/** When a UTC site's next figures arrive: the running hour's end and the next midnight (today's, Y + 1 ending), each plus 15 s. */
const nextFigures = () => ({
  hour: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:00:15\.000Z$/),
  day: `${addDays(Y, 2)}T00:00:15.000Z`,
});

describe("GET /api/v1/pages", () => {
  it("answers exact rows, suppressed rows with null, and the total of the visible ones", async () => {
    const res = await get(`/api/v1/pages?site=${site}&period=day`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(pagesResponse.parse(res.body)).toEqual(res.body);
    const home = await pageShown("/", 20, 25);
    const pricing = await pageShown("/pricing", 8, 8);
    expect(res.body).toEqual({
      site,
      period: { from: Y, to: Y, days: 1, timezone: "UTC" },
      published_through: Y,
      next_figures: nextFigures(),
      k: 5,
      // /about, /docs/a and /docs/b are hidden: one `other` row, last, names none of them.
      rows: [
        ...[
          { path: "/", other: false, visitors: est(home.visitors), pageviews: est(home.pageviews) },
          { path: "/pricing", other: false, visitors: est(pricing.visitors), pageviews: est(pricing.pageviews) },
        ].sort((a, b) => b.visitors.value - a.visitors.value),
        { path: null, other: true, visitors: hidden, pageviews: hidden },
      ],
      totals: { pageviews: est(home.pageviews + pricing.pageviews) },
      next_cursor: null,
    });
  });

  it("pages through rows with a stable cursor, in any sort", async () => {
    for (const [sort, order] of [
      ["visitors", "desc"],
      ["path", "asc"],
      ["pageviews", "asc"],
    ]) {
      const all = (await get(`/api/v1/pages?site=${site}&period=day&sort=${sort}&order=${order}`)).body.rows;
      const walked: unknown[] = [];
      let cursor: string | null = null;
      do {
        const res = await get(
          `/api/v1/pages?site=${site}&period=day&sort=${sort}&order=${order}&limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        );
        expect(res.status, res.text).toBe(200);
        walked.push(...res.body.rows);
        cursor = res.body.next_cursor;
      } while (cursor);
      expect(walked).toEqual(all);
    }
    expect((await get(`/api/v1/pages?site=${site}&period=day&sort=path`)).body.rows.map((r: { path: string }) => r.path)).toEqual(
      ["/", "/pricing", null],
    );
    // The `other` row is last in every order.
    expect(
      (await get(`/api/v1/pages?site=${site}&period=day&sort=path&order=desc`)).body.rows.map((r: { path: string }) => r.path),
    ).toEqual(["/pricing", "/", null]);
  });

  it("sums visible days over a period, and filters pages", async () => {
    // /docs/a and /docs/b are hidden on every day: never matched, only the `other` row (there whatever the pattern).
    const res = await get(`/api/v1/pages?site=${site}&from=${Y1}&to=${Y}&page=/docs/*`);
    expect(res.body.rows).toEqual([{ path: null, other: true, visitors: hidden, pageviews: hidden }]);
    expect((await get(`/api/v1/pages?site=${site}&from=${Y1}&to=${Y}&page=/nothing/*`)).body).toEqual(res.body);
    const home = await get(`/api/v1/pages?site=${site}&from=${Y1}&to=${Y}&page=/`);
    const [before, last] = [await pageShown("/", 7, 7, Y1), await pageShown("/", 20, 25)];
    expect(home.body.rows).toEqual([
      {
        path: "/",
        other: false,
        visitors: est(before.visitors + last.visitors),
        pageviews: est(before.pageviews + last.pageviews),
      },
      { path: null, other: true, visitors: hidden, pageviews: hidden },
    ]);
  });

  it("answers CSV and NDJSON with every qualifier kept", async () => {
    const csv = await get(`/api/v1/pages?site=${site}&period=day&sort=path`, { accept: "text/csv" });
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8; header=present");
    const home = await pageShown("/", 20, 25);
    const pricing = await pageShown("/pricing", 8, 8);
    expect(csv.text).toBe(
      [
        "site,from,to,timezone,path,other,visitors,visitors_qualifier,pageviews,pageviews_qualifier",
        `${site},${Y},${Y},UTC,/,false,${home.visitors},estimated,${home.pageviews},estimated`,
        `${site},${Y},${Y},UTC,/pricing,false,${pricing.visitors},estimated,${pricing.pageviews},estimated`,
        `${site},${Y},${Y},UTC,,true,,suppressed,,suppressed`,
        "",
      ].join("\r\n"),
    );
    const nd = await get(`/api/v1/pages?site=${site}&period=day&sort=path&limit=2`, { accept: "application/x-ndjson" });
    expect(nd.headers.get("content-type")).toBe("application/x-ndjson");
    expect(
      nd.text
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l)),
    ).toEqual([
      {
        site,
        from: Y,
        to: Y,
        timezone: "UTC",
        path: "/",
        other: false,
        visitors: est(home.visitors),
        pageviews: est(home.pageviews),
      },
      {
        site,
        from: Y,
        to: Y,
        timezone: "UTC",
        path: "/pricing",
        other: false,
        visitors: est(pricing.visitors),
        pageviews: est(pricing.pageviews),
      },
    ]);
    // The next page is in a Link header, since NDJSON has no body field for it.
    const link = /^<([^>]+)>; rel="next"$/.exec(nd.headers.get("link") ?? "")?.[1];
    expect(link).toMatch(/^\/api\/v1\/pages\?.*cursor=/);
    const next = await get(link!, { accept: "application/x-ndjson" });
    expect(
      next.text
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).path),
    ).toEqual([null]);
  });
});

describe("the other reports", () => {
  it("vitals: p75, shares and samples per page and metric", async () => {
    const res = await get(`/api/v1/vitals?site=${site}&period=day`);
    expect(res.status, res.text).toBe(200);
    expect(vitalsResponse.parse(res.body)).toEqual(res.body);
    const [lcp, inp] = res.body.rows;
    // Each figure of a vitals atom is perturbed by the atom's key sum (noise.ts).
    // A rating group of fewer than k sessions is hidden (null here).
    type Counts = { samples: number; good: number | null; ni: number | null; poor: number | null };
    const vital = async (path: string, metric: string, counts: Counts) => {
      const cell = { site_id: site, day: Y, path, metric };
      const samples = est(await shown(db, "rollup_vital_day", cell, counts.samples, "units"));
      const share = async (n: number | null) =>
        n === null
          ? hidden
          : ratio((n === 0 ? x(0) : est(await shown(db, "rollup_vital_day", cell, n, "units"))) as never, samples as never);
      return {
        good: await share(counts.good),
        needs_improvement: await share(counts.ni),
        poor: await share(counts.poor),
        samples,
      };
    };
    // LCP 1000, 1100 … 2900 ms: 16 good (≤ 2.5 s), 4 needing improvement; the 15th of 20 is 2400 ms.
    // 4 sessions needing improvement are fewer than k, and 20 − 16 would count them: both hidden.
    expect(lcp).toMatchObject({
      path: "/",
      metric: "LCP",
      unit: "ms",
      ...(await vital("/", "LCP", { samples: 20, good: null, ni: null, poor: 0 })),
    });
    // About 2 samples per 12 % bucket: no bucket holds k sessions', so p75 is a range of the
    // fixed block grid around the 2400 ms bucket that does (docs/reports.md, rule 8, "p75"): buckets 68–69.
    expect([lcp.p75, lcp.p75_low, lcp.p75_high]).toEqual([hidden, est(1984), est(2489)]);
    expect(inp).toMatchObject({
      path: "/pricing",
      metric: "INP",
      ...(await vital("/pricing", "INP", { samples: 8, good: 8, ni: 0, poor: 0 })),
    });
  });

  it("conversions: per goal with the visible denominator", async () => {
    const res = await get(`/api/v1/conversions?site=${site}&period=day`);
    expect(res.status, res.text).toBe(200);
    expect(conversionsResponse.parse(res.body)).toEqual(res.body);
    const sessionsShown = est(await shown(db, "rollup_site_day", { site_id: site, day: Y }, 20, "units"));
    const row = async (id: string, name: string, n: number) => {
      const cell = { site_id: site, goal_id: id, day: Y };
      const converting = est(await shown(db, "rollup_goal_day", cell, n, "units"));
      return {
        goal: { id, name, kind: "event" },
        conversions: est(await shown(db, "rollup_goal_day", cell, n, { eventsOf: n })),
        converting_sessions: converting,
        sessions: sessionsShown,
        rate: ratio(converting as never, sessionsShown as never),
      };
    };
    const rows = [await row(goal, "Signed up", 10), await row(goal2, "Bought", 5)];
    // In the goals' creation order (created_at, then insert order), whatever the figures.
    expect(res.body.rows).toEqual(rows);
  });

  it("funnels: ordered steps with drop-off", async () => {
    const res = await get(`/api/v1/funnels?site=${site}&period=day&goals=${goal},${goal2}`);
    expect(res.status, res.text).toBe(200);
    expect(funnelsResponse.parse(res.body)).toEqual(res.body);
    // Step 1 is the first goal's day atom; step 2 holds s0–s4, the same units as the second goal's.
    const first = await shown(db, "rollup_goal_day", { site_id: site, goal_id: goal, day: Y }, 10, "units");
    const second = await shown(db, "rollup_goal_day", { site_id: site, goal_id: goal2, day: Y }, 5, "units");
    expect(
      res.body.steps.map((s: { sessions: unknown; dropoff: unknown; rate: unknown }) => [s.sessions, s.dropoff, s.rate]),
    ).toEqual([
      [est(first), x(0), est(1)],
      [est(second), est(first - second), ratio(est(second) as never, est(first) as never)],
    ]);
  });

  it("timeseries: per day and per hour", async () => {
    const daily = await get(`/api/v1/timeseries?site=${site}&from=${Y1}&to=${Y}`);
    expect(daily.status, daily.text).toBe(200);
    expect(timeseriesResponse.parse(daily.body)).toEqual(daily.body);
    const day = async (d: string, visitors: number, pageviews: number) => [
      est(await shown(db, "rollup_site_day", { site_id: site, day: d }, visitors, "units")),
      est(await shown(db, "rollup_site_day", { site_id: site, day: d }, pageviews, "events")),
    ];
    const goalCell = (id: string, n: number) =>
      shown(db, "rollup_goal_day", { site_id: site, goal_id: id, day: Y }, n, { eventsOf: n });
    const hour = async (h: number, visitors: number, pageviews: number) => {
      const cell = { site_id: site, hour: atY(Y, h) };
      return [
        est(await shown(db, "rollup_site_hour", cell, visitors, "units")),
        est(await shown(db, "rollup_site_hour", cell, pageviews, "events")),
      ];
    };
    expect(
      daily.body.points.map((p: { local: string; visitors: unknown; pageviews: unknown; conversions: unknown }) => [
        p.local,
        p.visitors,
        p.pageviews,
        p.conversions,
      ]),
    ).toEqual([
      [Y1, ...(await day(Y1, 7, 7)), x(0)],
      [Y, ...(await day(Y, 20, 42)), est((await goalCell(goal, 10)) + (await goalCell(goal2, 5)))],
    ]);
    const hourly = await get(`/api/v1/timeseries?site=${site}&period=day&interval=hour`);
    expect(hourly.body.points).toHaveLength(24);
    expect(
      hourly.body.points
        .filter((p: { visitors: { value: number } }) => p.visitors.value !== 0)
        .map((p: { local: string; visitors: unknown; pageviews: unknown }) => [p.local, p.visitors, p.pageviews]),
    ).toEqual([
      // 13:00 holds 5 of the 20: 15 apart, so shown; 12:00 holds all 20.
      [`${Y}T12:00`, ...(await hour(12, 20, 37))],
      [`${Y}T13:00`, ...(await hour(13, 5, 5))],
    ]);
  });
});

describe("access and bad input", () => {
  it("needs read:reports and the site on the key's allowlist", async () => {
    expect((await get(`/api/v1/pages?site=${other}&period=day`)).status).toBe(403);
    const writer = await f.makeKey(["write:events"], [site]);
    const refused = await writer.call("GET", `/api/v1/vitals?site=${site}`);
    expect([refused.status, refused.body.field]).toEqual([403, "authorization"]);
    for (const breakdown of [
      `/api/v1/breakdown?site=${other}&dimension=country`,
      `/api/v1/breakdown?site=${other}&dimension=country&goal=${goal}`,
    ]) {
      expect((await get(breakdown)).status).toBe(403);
    }
    expect((await writer.call("GET", `/api/v1/breakdown?site=${site}&dimension=country`)).status).toBe(403);
    expect((await f.admin("GET", "/api/v1/pages?site=site_doesnotexist1&period=day")).body).toMatchObject({
      status: 404,
      field: "site",
    });
  });

  const bad: [string, number, string][] = [
    ["/api/v1/pages?period=day", 400, "site"],
    ["/api/v1/pages?site=nope", 400, "site"],
    ["/api/v1/pages?site=SITE&period=1y", 400, "period"],
    ["/api/v1/pages?site=SITE&from=2026-02-30&to=2026-03-01", 400, "from"],
    ["/api/v1/pages?site=SITE&from=2026-01-01", 400, "to"],
    ["/api/v1/pages?site=SITE&from=2026-03-01&to=2026-02-01", 400, "to"],
    ["/api/v1/pages?site=SITE&period=7d&from=2026-01-01&to=2026-01-02", 400, "period"],
    ["/api/v1/pages?site=SITE&limit=0", 400, "limit"],
    ["/api/v1/pages?site=SITE&limit=many", 400, "limit"],
    ["/api/v1/pages?site=SITE&cursor=garbage", 400, "cursor"],
    ["/api/v1/pages?site=SITE&sort=bounce", 400, "sort"],
    ["/api/v1/pages?site=SITE&page=blog", 400, "page"],
    ["/api/v1/pages?site=SITE&colour=red", 400, "colour"],
    ["/api/v1/pages?site=SITE&tz=Mars/Olympus", 400, "tz"],
    ["/api/v1/pages?site=SITE&tz=Europe/Berlin", 422, "tz"],
    ["/api/v1/pages?site=SITE&date=TODAY", 422, "date"],
    ["/api/v1/vitals?site=SITE&metric=FID", 400, "metric"],
    ["/api/v1/funnels?site=SITE", 400, "goals"],
    ["/api/v1/funnels?site=SITE&goals=goal_a", 400, "goals"],
    ["/api/v1/funnels?site=SITE&goals=goal_a,goal_a", 400, "goals"],
    ["/api/v1/funnels?site=SITE&goals=goal_nothere1,goal_nothere2", 422, "goals"],
    ["/api/v1/timeseries?site=SITE&interval=minute", 400, "interval"],
    ["/api/v1/timeseries?site=SITE&interval=hour&from=2026-01-01&to=2026-02-09", 400, "interval"],
    ["/api/v1/timeseries?site=SITE&goal=goal_nothere1", 422, "goal"],
    ["/api/v1/breakdown?site=SITE", 400, "dimension"],
    ["/api/v1/breakdown?site=SITE&dimension=planet", 400, "dimension"],
    ["/api/v1/breakdown?site=SITE&dimension=country&sort=rate", 400, "sort"],
    ["/api/v1/breakdown?site=SITE&dimension=country&goal=goal_nothere1", 422, "goal"],
    ["/api/v1/breakdown?site=SITE&dimension=country&filter=planet:Mars", 400, "filter"],
    ["/api/v1/breakdown?site=SITE&dimension=country&filter=page:pricing", 400, "filter"],
    ["/api/v1/breakdown?site=SITE&dimension=country&filter=goal:signup", 400, "filter"],
    ["/api/v1/pages?site=SITE&period=today&filter=country:DE", 400, "filter"],
    ["/api/v1/pages?site=SITE&from=2025-01-01&to=2025-01-31&filter=country:DE", 422, "filter"],
    ["/api/v1/timeseries?site=SITE&from=2025-01-01&to=2025-01-31&filter=country!:DE", 422, "filter"],
    ["/api/v1/breakdown?site=SITE&dimension=country&date=TODAY", 422, "date"],
    // A fixed set of values: outside it is refused, not an exact 0.
    ["/api/v1/timeseries?site=SITE&period=day&filter=country:usa", 400, "filter"],
    ["/api/v1/timeseries?site=SITE&period=day&filter=device:phone", 400, "filter"],
    // Up to three filters, each once.
    [
      "/api/v1/timeseries?site=SITE&period=day&filter=country:DE&filter=source:Google&filter=device:mobile&filter=os:iOS",
      400,
      "filter",
    ],
    ["/api/v1/timeseries?site=SITE&period=day&filter=country:DE&filter=country:de", 400, "filter"],
    // A parameter given twice: neither value wins.
    ["/api/v1/pages?site=SITE&period=day&period=7d", 400, "period"],
    ["/api/v1/pages?site=SITE&site=SITE&period=day", 400, "site"],
    ["/api/v1/pages?site=SITE&limit=1&limit=2", 400, "limit"],
    ["/api/v1/pages?site=SITE&format=csv&format=json", 400, "format"],
    ["/api/v1/breakdown?site=SITE&dimension=country&dimension=device", 400, "dimension"],
    ["/api/v1/funnels?site=SITE&goals=GOAL,GOAL2&goals=GOAL,GOAL2", 400, "goals"],
    ["/api/v1/overview?site=SITE&site=SITE", 400, "site"],
    ["/api/v1/deployments?site=SITE&limit=5&limit=5", 400, "limit"],
  ];
  for (const [path, status, field] of bad) {
    it(`${path} → ${status} naming ${field}`, async () => {
      const today = addDays(Y, 1);
      const res = await get(
        path.replaceAll("SITE", site).replace("TODAY", today).replaceAll("GOAL2", goal2).replaceAll("GOAL", goal),
      );
      expect(res.status, res.text).toBe(status);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(res.body.field).toBe(field);
    });
  }
});

describe("GET /api/v1/breakdown", () => {
  const cell = (value: string, units: number) =>
    shown(db, "rollup_dimension_day", { site_id: site, dimension: "country", day: Y, value }, units, "units");

  it("shows countries of k visitors, hides the small ones and their cover, and adds a goal's conversions", async () => {
    const res = await get(`/api/v1/breakdown?site=${site}&period=day&dimension=country&goal=${goal}`);
    expect(res.status, res.text).toBe(200);
    expect(breakdownResponse.parse(res.body)).toEqual(res.body);
    // DE 10 shown; US 1 and the 3 without a country are too small, so FR (6), the smallest shown, covers them.
    const de = await cell("DE", 10);
    const dePageviews = await shown(
      db,
      "rollup_dimension_day",
      { site_id: site, dimension: "country", day: Y, value: "DE" },
      10 + 5 + 8 + 2,
      { eventsOf: 10 },
    );
    const goalCell = { site_id: site, goal_id: goal, dimension: "country", day: Y, value: "DE" };
    const converting = await shown(db, "rollup_goal_dimension_day", goalCell, 10, "units");
    const conversions = await shown(db, "rollup_goal_dimension_day", goalCell, 10, { eventsOf: 10 });
    const none = { visitors: hidden, pageviews: hidden, converting_sessions: hidden, conversions: hidden, rate: hidden };
    expect(res.body).toEqual({
      site,
      period: { from: Y, to: Y, days: 1, timezone: "UTC" },
      published_through: Y,
      next_figures: nextFigures(),
      k: 5,
      dimension: "country",
      rows: [
        {
          value: "DE",
          other: false,
          visitors: est(de),
          pageviews: est(dePageviews),
          converting_sessions: est(converting),
          conversions: est(conversions),
          rate: ratio(est(converting) as Figure, est(de) as Figure),
        },
        // Suppressed rows sort last (none first); FR and US are one `other` row, last.
        { value: null, other: false, ...none },
        { value: null, other: true, ...none },
      ],
      totals: {
        visitors: est(de),
        pageviews: est(dePageviews),
        converting_sessions: est(converting),
        conversions: est(conversions),
      },
      next_cursor: null,
    });
  });

  it("answers CSV with one line per value", async () => {
    const res = await get(`/api/v1/breakdown?site=${site}&period=day&dimension=device&sort=value`, { accept: "text/csv" });
    expect(res.status, res.text).toBe(200);
    const [header, ...lines] = res.text.trim().split("\r\n");
    expect(header).toBe("site,from,to,timezone,value,other,visitors,visitors_qualifier,pageviews,pageviews_qualifier");
    // 17 desktop sessions; the 3 without one are hidden, and so, as their cover, is desktop: not named.
    expect(lines).toEqual([
      `${site},${Y},${Y},UTC,,false,,suppressed,,suppressed`,
      `${site},${Y},${Y},UTC,,true,,suppressed,,suppressed`,
    ]);
  });
});

describe("filters", () => {
  it("read a country or device in any case as the collector spells it: country:de is country:DE, exactly", async () => {
    const deCell = { site_id: site, dimension: "country", day: Y, value: "DE" };
    const de = await shown(db, "rollup_dimension_day", deCell, 10, "units");
    const dePageviews = await shown(db, "rollup_dimension_day", deCell, 10 + 5 + 8 + 2, { eventsOf: 10 });
    const series = async (filter: string) => {
      const res = await get(`/api/v1/timeseries?site=${site}&period=day&filter=${encodeURIComponent(filter)}`);
      expect(res.status, res.text).toBe(200);
      type Point = { local: string; visitors: unknown; pageviews: unknown };
      return res.body.points.map((p: Point) => [p.local, p.visitors, p.pageviews]);
    };
    const upper = await series("country:DE");
    expect(upper).toEqual([[Y, est(de), est(dePageviews)]]);
    expect(await series("country:de")).toEqual(upper);
    expect(await series("country:De")).toEqual(upper);
    const conversions = async (filter: string) =>
      (await get(`/api/v1/conversions?site=${site}&period=day&filter=${filter}`)).body.rows;
    expect(await conversions("country:de")).toEqual(await conversions("country:DE"));
    // 17 desktop sessions: hidden in the breakdown as the cover of the 3 without a device (its CSV
    // below), but a filter reads its own cell through rule F (docs/reports.md, Filters): perturbed.
    const desktopCell = (
      await db.execute({
        sql: "SELECT visitors, pageviews, key_sum FROM rollup_dimension_day WHERE site_id = ? AND dimension = 'device' AND day = ? AND value = 'desktop'",
        args: [site, Y],
      })
    ).rows[0]!;
    expect(Number(desktopCell.visitors)).toBe(17);
    const desktopShown = shownCounts(
      { units: 17, events: Number(desktopCell.pageviews), keySum: Number(desktopCell.key_sum) },
      await noiseKey(db),
      5,
      true,
    );
    const desktop = await series("device:desktop");
    expect(desktop).toEqual([[Y, est(desktopShown.units), est(desktopShown.events)]]);
    expect(await series("device:DESKTOP")).toEqual(desktop);
  });
});

describe("the nightly pull (examples/nightly-pull.sh)", () => {
  it("writes yesterday's pages and vitals as NDJSON with a read-only key, in two calls", async () => {
    const nightly = await f.makeKey(["read:reports"], [site]);
    const out = mkdtempSync(join(tmpdir(), "wren-warehouse-"));
    const env = { ...process.env, WREN_URL: f.stack.url, WREN_KEY: nightly.key, SITE_ID: site, OUT_DIR: out };
    const { stdout } = await run("bash", [join(ROOT, "examples", "nightly-pull.sh")], { env });
    expect(stdout).toBe(`pages: 3 rows → ${out}/pages-${Y}.ndjson\nvitals: 2 rows → ${out}/vitals-${Y}.ndjson\n`);
    const lines = (name: string) =>
      readFileSync(join(out, `${name}-${Y}.ndjson`), "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
    const home = await pageShown("/", 20, 25);
    expect(lines("pages")[0]).toEqual({
      site,
      from: Y,
      to: Y,
      timezone: "UTC",
      path: "/",
      other: false,
      visitors: est(home.visitors),
      pageviews: est(home.pageviews),
    });
    // The three hidden pages: one `other` line.
    expect(lines("pages").slice(2)).toEqual([
      { site, from: Y, to: Y, timezone: "UTC", path: null, other: true, visitors: hidden, pageviews: hidden },
    ]);
    expect(lines("vitals").map((r: { path: string; metric: string }) => `${r.metric} ${r.path}`)).toEqual([
      "LCP /",
      "INP /pricing",
    ]);
    const usage = await f.admin("GET", `/api/v1/keys/${nightly.id}/usage`);
    expect(usage.body.usage.map((u: { route: string; calls: number }) => [u.route, u.calls]).sort()).toEqual([
      ["GET /api/v1/pages", 1],
      ["GET /api/v1/vitals", 1],
    ]);
  });

  it("fails with the problem printed when the key may not read the site", async () => {
    const wrong = await f.makeKey(["read:reports"], [other]);
    const env = {
      ...process.env,
      WREN_URL: f.stack.url,
      WREN_KEY: wrong.key,
      SITE_ID: site,
      OUT_DIR: mkdtempSync(join(tmpdir(), "wren-warehouse-")),
    };
    const failure = await run("bash", [join(ROOT, "examples", "nightly-pull.sh")], { env }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain('Wren refused the pages pull: {"type":"about:blank","title":"Forbidden","status":403');
  });
});

describe("data from the collector", () => {
  it("beacons reach the rollups through the publisher, and reports say how fresh they are", async () => {
    const shop = await f.makeSite("shop-reports.example");
    const key = await f.makeKey(["read:reports"], [shop.id]);
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${f.stack.url}/e`, {
        method: "POST",
        headers: { "content-type": "text/plain", origin: "https://shop-reports.example", "user-agent": BROWSER_UA },
        body: JSON.stringify({
          site: shop.id,
          session: `tracker-session-${i}-abcdefgh`,
          events: [{ type: "pageview", path: "/shoes" }],
        }),
      });
      expect(res.status, await res.text()).toBe(202);
    }
    await waitForPublication(f.stack.url);
    // Today is never reported, so the folded cell is read from the rollups themselves.
    const today = new Date().toISOString().slice(0, 10);
    const cells = await db.execute({
      sql: "SELECT day, path, visitors, pageviews FROM rollup_page_day WHERE site_id = ?",
      args: [shop.id],
    });
    expect(cells.rows.map((r) => [r.day, r.path, Number(r.visitors), Number(r.pageviews)])).toEqual([[today, "/shoes", 6, 6]]);
    const res = await key.call("GET", `/api/v1/pages?site=${shop.id}&period=day`);
    expect([res.body.published_through, res.headers.get("wren-published-through")]).toEqual([Y, Y]);
    expect(res.body.period).toMatchObject({ from: Y, to: Y });
  });
});

describe("the report cache", () => {
  it("serves a repeated read from memory; a late row leaves the published day as it was; a new goal recomputes", async () => {
    const late = await f.makeSite("late-rows.example");
    const key = await f.makeKey(["read:reports", "write:goals"], [late.id]);
    await f.seedHistory((history) =>
      addEvents(
        history,
        sessions("l", 6).map((session) => ({ site: late.id, session, path: "/", ts: atY(Y) })),
      ),
    );
    const pages = () => key.call("GET", `/api/v1/pages?site=${late.id}&period=day`);
    const cell = { site_id: late.id, day: Y, path: "/" };
    const six = [
      {
        path: "/",
        other: false,
        visitors: est(await shown(db, "rollup_page_day", cell, 6, "units")),
        pageviews: est(await shown(db, "rollup_page_day", cell, 6, { eventsOf: 6 })),
      },
    ];
    expect((await pages()).body.rows).toEqual(six);
    expect((await pages()).body.rows).toEqual(six);

    // A row stamped yesterday arrives now (as a replayed conversion can): yesterday is published
    // and final, so the row counts today, and yesterday reads exactly as before.
    await addEvents(db, [{ site: late.id, session: "l-late", path: "/", ts: atY(Y, 15) }]);
    await waitForPublication(f.stack.url);
    expect((await pages()).body.rows).toEqual(six);
    const today = addDays(Y, 1);
    const cells = await db.execute({
      sql: "SELECT day, visitors FROM rollup_site_day WHERE site_id = ? ORDER BY day",
      args: [late.id],
    });
    expect(cells.rows.map((r) => [r.day, Number(r.visitors)])).toEqual([
      [Y, 6],
      [today, 1],
    ]);

    const conversions = () => key.call("GET", `/api/v1/conversions?site=${late.id}&period=day`);
    expect((await conversions()).body.rows).toEqual([]);
    const goal = await key.call("POST", `/api/v1/sites/${late.id}/goals`, { name: "Signed up", kind: "event", match: "signup" });
    expect(goal.status).toBe(201);
    expect((await conversions()).body.rows.map((r: { goal: { id: string } }) => r.goal.id)).toEqual([goal.body.id]);
  });
});

describe("WREN_K_ANONYMITY", () => {
  it("is refused at start below 2", async () => {
    const refused = await startStack({ env: { WREN_K_ANONYMITY: "1" } }).then(
      async (stack) => (await stack.stop(), null),
      (error: Error) => error.message,
    );
    expect(refused).toContain("WREN_K_ANONYMITY must be a whole number of at least 2");
  }, 120_000);

  it("sets k for every report", async () => {
    const small = await apiFixture({ WREN_K_ANONYMITY: "2" });
    try {
      const tiny = (await small.makeSite("tiny.example")).id;
      await small.seedHistory((history) =>
        addEvents(
          history,
          sessions("t", 3).map((session) => ({ site: tiny, session, path: "/", ts: atY(Y) })),
        ),
      );
      const res = await small.admin("GET", `/api/v1/pages?site=${tiny}&period=day`);
      // Three sessions are shown with k = 2 (hidden with the default 5), perturbed as always.
      expect(res.body.k).toBe(2);
      expect(res.body.rows.map((r: { path: string; visitors: { qualifier: string } }) => [r.path, r.visitors.qualifier])).toEqual(
        [["/", "estimated"]],
      );
    } finally {
      await small.stack.stop();
    }
  }, 120_000);
});
