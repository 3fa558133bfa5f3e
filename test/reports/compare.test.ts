/**
 * `compare=previous|year` on every report, on the real stack (worker/reports/compare.ts): each
 * side equals its period's own report exactly — the earlier side is read from nothing but the
 * report a reader could ask for that period —, the delta is computed from the two shown
 * figures, a row hidden in the earlier period reads suppressed (never 0), a period with no
 * visitors reads exact 0, the CSV columns, and every hostile request refused naming `compare`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { delta } from "../../worker/reports/compare";
import type { Figure } from "../../worker/reports/figures";
import { lastCompleteDay } from "../../worker/reports/period";
import {
  aggregateResponse,
  breakdownResponse,
  conversionsResponse,
  funnelsResponse,
  pagesResponse,
  timeseriesResponse,
  vitalsResponse,
} from "../../worker/reports/schemas";
import { addDays } from "../../worker/reports/timezone";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { addConversions, addEvents, addVitals, at, sessions, type RawEvent } from "./helpers";

const x = (value: number): Figure => ({ value, qualifier: "exact" });
const hidden: Figure = { value: null, qualifier: "suppressed" };

let f: ApiFixture;
let site: string;
let other: string;
let goal: string;
let goal2: string;
let reader: Awaited<ReturnType<ApiFixture["makeKey"]>>;
/** Yesterday (UTC, the sites' zone): the last day of `period=7d`; its 7 days are compared with the 7 before. */
const Y = lastCompleteDay("UTC", Date.now());
const P = addDays(Y, -7);
const PREVIOUS = { from: addDays(Y, -13), to: P };

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  site = (await f.makeSite("compare.example")).id;
  other = (await f.makeSite("other-compare.example")).id;
  goal = (await f.makeGoal(site, { name: "Signed up", kind: "event", match: "signup" })).id;
  goal2 = (await f.makeGoal(site, { name: "Bought", kind: "event", match: "buy" })).id;
  reader = await f.makeKey(["read:reports"], [site]);
  await f.seedHistory(async (db) => {
    const c = sessions("c", 20);
    const p = sessions("p", 14);
    const views = (ids: string[], path: string, day: string, hour = 12): RawEvent[] =>
      ids.map((session) => ({ site, session, path, ts: at(day, hour) }));
    await addEvents(db, [
      // This week (Y): 20 on "/", half DE and half FR; 8 of them on /pricing; 6 others on /new.
      ...c.map((session, i): RawEvent => ({ site, session, path: "/", ts: at(Y, 12), dims: { country: i < 10 ? "DE" : "FR" } })),
      ...views(c.slice(0, 8), "/pricing", Y, 13),
      ...views(sessions("n", 6), "/new", Y, 14),
      ...views(sessions("n", 6), "/fresh", Y, 15),
      // The week before (P, the same weekday): 14 on "/", 7 DE and 7 US (no FR); 6 on /pricing;
      // only 2 on /new and 3 on /docs (hidden there); nobody on /fresh.
      ...p.map((session, i): RawEvent => ({ site, session, path: "/", ts: at(P, 12), dims: { country: i < 7 ? "DE" : "US" } })),
      ...views(p.slice(0, 6), "/pricing", P, 13),
      ...views(p.slice(8, 10), "/new", P, 14),
      ...views(p.slice(10, 13), "/docs", P, 14),
    ]);
    await addVitals(db, [
      ...c.map((session, i) => ({ site, session, path: "/", metric: "LCP", value: 1000 + 100 * i, ts: at(Y) })),
      ...p.map((session, i) => ({ site, session, path: "/", metric: "LCP", value: 2000 + 100 * i, ts: at(P) })),
    ]);
    await addConversions(db, [
      ...c.slice(0, 10).map((session) => ({ site, goal, session, ts: at(Y, 12, 30) })),
      ...c.slice(0, 6).map((session) => ({ site, goal: goal2, session, ts: at(Y, 12, 40) })),
      ...p.slice(0, 5).map((session) => ({ site, goal, session, ts: at(P, 12, 30) })),
      ...p.slice(0, 2).map((session) => ({ site, goal: goal2, session, ts: at(P, 12, 40) })),
    ]);
  });
}, 120_000);
afterAll(async () => {
  await f?.close();
});

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await reader.call("GET", path, undefined, headers);
  expect(res.status, res.text).toBe(200);
  return res;
};

type Row = Record<string, unknown>;

/** A compared figure split into its sides: the current figure as its own report shows it, and the earlier one. */
function sides(figure: Figure & { previous?: Figure; delta?: unknown }): { current: Figure; previous: Figure | undefined } {
  const { previous, delta: change, ...current } = figure;
  // The delta is the two shown figures' difference, nothing else.
  expect(change).toEqual(delta(current, previous!));
  return { current, previous };
}

/**
 * The compared rows against both periods' own rows: every figure's current side is the current
 * report's, its earlier side the earlier report's row of the same key (`absent` where that
 * report does not list it).
 */
function expectSides(rows: Row[], current: Row[], previous: Row[], key: (r: Row) => string, figures: string[], absent: Figure) {
  expect(rows.map(key)).toEqual(current.map(key));
  const before = new Map(previous.map((r) => [key(r), r]));
  rows.forEach((row, i) => {
    for (const name of figures) {
      if (row[name] === undefined) continue;
      const split = sides(row[name] as Figure);
      expect(split.current, `${key(row)} ${name}`).toEqual(current[i]![name]);
      expect(split.previous, `${key(row)} ${name} earlier`).toEqual(
        (before.get(key(row))?.[name] as Figure | undefined) ?? absent,
      );
    }
  });
}

const pathKey = (r: Row) => (r.other ? "(other)" : String(r.path));
const compared = (q: string) => `${q}&period=7d&compare=previous`;
const plain = (q: string) => `${q}&period=7d`;
const earlier = (q: string) => `${q}&from=${PREVIOUS.from}&to=${PREVIOUS.to}`;

describe("compare=previous: each side is its period's own report", () => {
  it("pages: rows by path; /new (2 visitors the week before, hidden) reads suppressed there, never 0, as /fresh (nobody then) does", async () => {
    const q = `/api/v1/pages?site=${site}`;
    const [res, cur, prev] = await Promise.all([get(compared(q)), get(plain(q)), get(earlier(q))]);
    expect(pagesResponse.parse(res.body)).toEqual(res.body);
    expect(res.body.comparison).toEqual({ mode: "previous", ...PREVIOUS, days: 7 });
    expect(res.body.period).toEqual(cur.body.period);
    expectSides(res.body.rows, cur.body.rows, prev.body.rows, pathKey, ["visitors", "pageviews"], hidden);
    expectSides([res.body.totals], [cur.body.totals], [prev.body.totals], () => "totals", ["pageviews"], hidden);
    const row = (path: string) => res.body.rows.find((r: Row) => r.path === path);
    expect(prev.body.rows.map(pathKey)).toEqual(["/", "/pricing", "(other)"]);
    expect(row("/new").visitors.qualifier).not.toBe("suppressed");
    expect(row("/new").visitors.previous).toEqual(hidden);
    expect(row("/new").visitors.delta).toEqual({ absolute: hidden, relative: hidden });
    // The attack: is /new's small group of last week there (1–4 sessions) or not? /fresh had nobody
    // then; both read alike, so the comparison says no more than last week's own report ("other").
    expect(row("/fresh").visitors.qualifier).not.toBe("suppressed");
    expect([row("/fresh").visitors.previous, row("/fresh").visitors.delta]).toEqual([
      row("/new").visitors.previous,
      row("/new").visitors.delta,
    ]);
    expect([row("/fresh").pageviews.previous, row("/fresh").pageviews.delta]).toEqual([
      row("/new").pageviews.previous,
      row("/new").pageviews.delta,
    ]);
    expect(row("/pricing").visitors.previous.value).not.toBeNull();
    expect(row("/").visitors.previous.value).not.toBeNull();
  });

  it("breakdown (country, with a goal): rows by value, FR absent the week before reads suppressed", async () => {
    const q = `/api/v1/breakdown?site=${site}&dimension=country&goal=${goal}`;
    const [res, cur, prev] = await Promise.all([get(compared(q)), get(plain(q)), get(earlier(q))]);
    expect(breakdownResponse.parse(res.body)).toEqual(res.body);
    const key = (r: Row) => (r.other ? "(other)" : String(r.value));
    const figures = ["visitors", "pageviews", "converting_sessions", "conversions", "rate"];
    expectSides(res.body.rows, cur.body.rows, prev.body.rows, key, figures, hidden);
    expectSides([res.body.totals], [cur.body.totals], [prev.body.totals], () => "totals", figures, hidden);
    expect(res.body.rows.find((r: Row) => r.value === "FR").visitors.previous).toEqual(hidden);
    expect(res.body.rows.find((r: Row) => r.value === "DE").visitors.previous).toEqual(
      prev.body.rows.find((r: Row) => r.value === "DE").visitors,
    );
  });

  it("conversions: rows by goal, totals too", async () => {
    const q = `/api/v1/conversions?site=${site}`;
    const [res, cur, prev] = await Promise.all([get(compared(q)), get(plain(q)), get(earlier(q))]);
    expect(conversionsResponse.parse(res.body)).toEqual(res.body);
    const figures = ["conversions", "converting_sessions", "sessions", "rate"];
    expectSides(res.body.rows, cur.body.rows, prev.body.rows, (r) => (r.goal as { id: string }).id, figures, hidden);
    expectSides([res.body.totals], [cur.body.totals], [prev.body.totals], () => "totals", ["conversions", "sessions"], hidden);
    // Bought had 2 converting sessions the week before: suppressed there, so is its delta.
    const bought = res.body.rows.find((r: Row) => (r.goal as { id: string }).id === goal2);
    expect(bought.converting_sessions.previous).toEqual(hidden);
    expect(bought.converting_sessions.delta.absolute).toEqual(hidden);
  });

  it("funnels: steps by position", async () => {
    const q = `/api/v1/funnels?site=${site}&goals=${goal},${goal2}`;
    const [res, cur, prev] = await Promise.all([get(compared(q)), get(plain(q)), get(earlier(q))]);
    expect(funnelsResponse.parse(res.body)).toEqual(res.body);
    expectSides(res.body.steps, cur.body.steps, prev.body.steps, (r) => String(r.step), ["sessions", "dropoff", "rate"], hidden);
    expect(res.body.steps[0].sessions.previous.value).not.toBeNull();
    expect(res.body.steps[1].sessions.previous).toEqual(hidden);
  });

  it("vitals: rows by path and metric, p75 included", async () => {
    const q = `/api/v1/vitals?site=${site}`;
    const [res, cur, prev] = await Promise.all([get(compared(q)), get(plain(q)), get(earlier(q))]);
    expect(vitalsResponse.parse(res.body)).toEqual(res.body);
    const figures = ["p75", "p75_low", "p75_high", "good", "needs_improvement", "poor", "samples"];
    expectSides(res.body.rows, cur.body.rows, prev.body.rows, (r) => `${pathKey(r)} ${String(r.metric)}`, figures, hidden);
    expect(res.body.rows[0].samples.previous.value).not.toBeNull();
  });

  it("filtered reports compare too: each side is its period's own filtered report", async () => {
    // The pages of the visitors from Germany: 10 this week, 7 the week before.
    const q = `/api/v1/pages?site=${site}&filter=country:DE`;
    const [res, cur, prev] = await Promise.all([get(compared(q)), get(plain(q)), get(earlier(q))]);
    expect(pagesResponse.parse(res.body)).toEqual(res.body);
    expectSides(res.body.rows, cur.body.rows, prev.body.rows, pathKey, ["visitors", "pageviews"], hidden);
    expectSides([res.body.totals], [cur.body.totals], [prev.body.totals], () => "totals", ["pageviews"], hidden);
    // The earlier side is the filtered report's, not the site's (14 visitors on "/" that week, 7 from DE).
    const unfiltered = await get(earlier(`/api/v1/pages?site=${site}`));
    const home = (body: { rows: Row[] }) => body.rows.find((r) => r.path === "/")?.visitors;
    expect(res.body.rows.find((r: Row) => r.path === "/").visitors.previous).toEqual(home(prev.body));
    expect(home(prev.body)).not.toEqual(home(unfiltered.body));
  });

  it("the aggregate: every figure beside the earlier period's own aggregate", async () => {
    const q = `/api/v1/aggregate?site=${site}`;
    const [res, cur, prev] = await Promise.all([get(compared(q)), get(plain(q)), get(earlier(q))]);
    expect(aggregateResponse.parse(res.body)).toEqual(res.body);
    const figures = [
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
    const strip = (r: Row) => {
      const { numerator: _n, denominator: _d, ...rest } = r.bounce_rate as Row;
      return { ...r, bounce_rate: rest };
    };
    expectSides(
      [strip(res.body.results)],
      [strip(cur.body.results)],
      [strip(prev.body.results)],
      () => "results",
      figures,
      hidden,
    );
    expect(res.body.comparison).toEqual({ mode: "previous", from: PREVIOUS.from, to: PREVIOUS.to, days: 7 });
  });

  it("timeseries, daily: point i against the same weekday a week earlier, with its date", async () => {
    const q = `/api/v1/timeseries?site=${site}`;
    const [res, cur, prev] = await Promise.all([get(compared(q)), get(plain(q)), get(earlier(q))]);
    expect(timeseriesResponse.parse(res.body)).toEqual(res.body);
    expect(res.body.points.map((p: Row) => p.previous_date)).toEqual(prev.body.points.map((p: Row) => p.local));
    const strip = (p: Row) => ({ ...p, previous_date: undefined });
    expectSides(
      res.body.points.map(strip),
      cur.body.points.map(strip),
      prev.body.points,
      (p) => String(p.local).slice(5),
      [],
      hidden,
    );
    res.body.points.forEach((point: Row, i: number) => {
      for (const name of ["visitors", "pageviews", "conversions"]) {
        const split = sides(point[name] as Figure);
        expect(split.current).toEqual(cur.body.points[i][name]);
        expect(split.previous).toEqual(prev.body.points[i][name]);
      }
    });
    expectSides(
      [res.body.totals],
      [cur.body.totals],
      [prev.body.totals],
      () => "totals",
      ["visitors", "pageviews", "conversions"],
      hidden,
    );
    const last = res.body.points.at(-1);
    expect([last.local, last.previous_date]).toEqual([Y, P]);
    expect(last.visitors.previous.value).not.toBeNull();
  });

  it("timeseries, hourly over whole days: each hour against the same local hour of the counterpart day", async () => {
    const q = `/api/v1/timeseries?site=${site}&interval=hour&date=${Y}&period=day&compare=previous`;
    const [res, cur, prev] = await Promise.all([
      get(q),
      get(`/api/v1/timeseries?site=${site}&interval=hour&date=${Y}&period=day`),
      get(`/api/v1/timeseries?site=${site}&interval=hour&date=${P}&period=day`),
    ]);
    expect(res.body.points).toHaveLength(24);
    res.body.points.forEach((point: Row, i: number) => {
      expect(point.previous_date).toBe(prev.body.points[i].local);
      expect(sides(point.visitors as Figure)).toEqual({
        current: cur.body.points[i].visitors,
        previous: prev.body.points[i].visitors,
      });
    });
  });

  it("the earlier period of 30d and of a custom from/to starts whole weeks earlier, the same weekday", async () => {
    const month = await get(`/api/v1/timeseries?site=${site}&period=30d&compare=previous`);
    expect(month.body.comparison).toEqual({ mode: "previous", from: addDays(Y, -29 - 35), to: addDays(Y, -35), days: 30 });
    const from = addDays(Y, -9);
    const custom = await get(`/api/v1/timeseries?site=${site}&from=${from}&to=${Y}&compare=previous`);
    expect(custom.body.comparison).toEqual({ mode: "previous", from: addDays(from, -14), to: addDays(Y, -14), days: 10 });
    const weekday = (d: string) => new Date(`${d}T00:00:00Z`).getUTCDay();
    expect(weekday(custom.body.comparison.from)).toBe(weekday(from));
    expect(custom.body.points.map((p: Row) => p.previous_date)).toEqual(
      custom.body.points.map((p: Row) => addDays(String(p.local), -14)),
    );
  });

  it("compare=year: a year earlier had no visitors at all, so every earlier figure is an exact 0 and relative changes null", async () => {
    const res = await get(`/api/v1/pages?site=${site}&period=7d&compare=year`);
    expect(res.body.comparison).toEqual({
      mode: "year",
      from: addDays(Y, -6).replace(/^\d{4}/, (y) => String(Number(y) - 1)),
      to: Y.replace(/^\d{4}/, (y) => String(Number(y) - 1)),
      days: 7,
    });
    const home = res.body.rows.find((r: Row) => r.path === "/");
    expect(home.visitors.previous).toEqual(x(0));
    expect(home.visitors.delta).toEqual({
      absolute: { value: home.visitors.value, qualifier: home.visitors.qualifier },
      relative: null,
    });
    const series = await get(`/api/v1/timeseries?site=${site}&period=7d&compare=year`);
    for (const point of series.body.points) expect([point.visitors.previous, point.conversions.previous]).toEqual([x(0), x(0)]);
    expect(series.body.totals.visitors.delta.relative).toBeNull();
  });

  it("CSV: each figure also as _previous, _delta and _delta_relative, each with its qualifier", async () => {
    const res = await get(`/api/v1/pages?site=${site}&period=7d&compare=previous&sort=path`, { accept: "text/csv" });
    const [header, ...lines] = res.text.trim().split("\r\n");
    const columns = header!.split(",");
    expect(columns.slice(0, 8)).toEqual(["site", "from", "to", "timezone", "path", "other", "visitors", "visitors_qualifier"]);
    expect(columns).toContain("pageviews_delta_relative_qualifier");
    const json = await get(`/api/v1/pages?site=${site}&period=7d&compare=previous&sort=path`);
    const fresh = json.body.rows.find((r: Row) => r.path === "/new");
    const line = lines
      .map((l) => Object.fromEntries(l.split(",").map((v, i) => [columns[i], v])))
      .find((l) => l.path === "/new")!;
    expect(line).toMatchObject({
      visitors: String(fresh.visitors.value),
      visitors_previous: "",
      visitors_previous_qualifier: "suppressed",
      visitors_delta: "",
      visitors_delta_qualifier: "suppressed",
      visitors_delta_relative: "",
      visitors_delta_relative_qualifier: "suppressed",
    });
    const home = lines.map((l) => Object.fromEntries(l.split(",").map((v, i) => [columns[i], v]))).find((l) => l.path === "/")!;
    const h = json.body.rows.find((r: Row) => r.path === "/");
    expect([home.visitors_previous, home.visitors_delta, home.visitors_delta_relative]).toEqual(
      [h.visitors.previous.value, h.visitors.delta.absolute.value, h.visitors.delta.relative.value].map(String),
    );
  });
});

describe("compare refused", () => {
  const problem = async (call: Awaited<ReturnType<ApiFixture["makeKey"]>>["call"], path: string) => {
    const res = await call("GET", path);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    return [res.status, res.body.field];
  };

  it("bad values and hourly periods: 400 naming compare", async () => {
    for (const path of [
      `/api/v1/pages?site=${site}&compare=week`,
      `/api/v1/pages?site=${site}&compare=`,
      `/api/v1/timeseries?site=${site}&compare=PREVIOUS`,
      `/api/v1/breakdown?site=${site}&dimension=country&compare=previous&compare=year`,
      `/api/v1/pages?site=${site}&period=today&compare=previous`,
      `/api/v1/breakdown?site=${site}&dimension=country&period=today&compare=year`,
      `/api/v1/timeseries?site=${site}&period=24h&compare=previous`,
      `/api/v1/conversions?site=${site}&period=today&compare=previous`,
    ]) {
      expect(await problem(reader.call, path), path).toEqual([400, "compare"]);
    }
  });

  it("a funnel whose earlier period starts before the raw rows kept: 422 naming compare", async () => {
    expect(await problem(reader.call, `/api/v1/funnels?site=${site}&goals=${goal},${goal2}&period=30d&compare=previous`)).toEqual(
      [422, "compare"],
    );
    expect(await problem(reader.call, `/api/v1/funnels?site=${site}&goals=${goal},${goal2}&period=7d&compare=year`)).toEqual([
      422,
      "compare",
    ]);
  });

  it("no key, a key without read:reports, a site off the key's allowlist: refused, compare or not", async () => {
    const writer = await f.makeKey(["write:sites", "write:events"]);
    const anonymous = async (path: string) => (await fetch(`${f.stack.url}${path}`)).status;
    for (const report of [
      "pages?",
      "timeseries?",
      "conversions?",
      "vitals?",
      "breakdown?dimension=country&",
      `funnels?goals=${goal},${goal2}&`,
    ]) {
      const path = `/api/v1/${report}site=${site}&period=7d&compare=previous`;
      expect(await anonymous(path), path).toBe(401);
      expect((await writer.call("GET", path)).status, path).toBe(403);
      expect((await reader.call("GET", path.replace(site, other))).status, path).toBe(403);
    }
  });
});
