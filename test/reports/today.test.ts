/**
 * Today's figures and the Overview on the real stack: `period=today` and `24h` for the
 * timeseries and the conversions report, and GET /api/v1/overview, each checked against its
 * definition computed from the raw rows the test wrote (decided by the hour rule, perturbed by
 * the cells' keys as the service perturbs them). The site's zone is chosen so that it is early
 * afternoon there: every hour the test writes lies in the running local day.
 */
import type { Client } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shownCounts, unitKey } from "../../worker/reports/noise";
import { bandOf } from "../../worker/reports/privacy";
import { FUNNELS_NOT_HOURLY, NO_ROLLING_DAY, VITALS_NOT_HOURLY } from "../../worker/reports/schemas";
import { TODAY_NO_EXIT_PAGES, TODAY_NO_GOAL } from "../../worker/reports/today";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { addConversions, addEvents, noiseKey, sessions, shown, type RawConversion, type RawEvent } from "./helpers";

const HOUR = 3_600_000;
const K = 5;

let f: ApiFixture;
let site: string;
let signup: string;
let smoke: string;
let reader: Awaited<ReturnType<ApiFixture["makeKey"]>>;
/** The UTC start of the hour running when the rows were written. */
let H: number;
let marker: { id: string; deployed_at: string };
const events: RawEvent[] = [];
const conversions: RawConversion[] = [];

/** A fixed-offset zone in which the instant is between 13:00 and 15:00 local time. */
function afternoonZone(now: number): string {
  let offset = (((14 - new Date(now).getUTCHours()) % 24) + 24) % 24;
  if (offset > 14) offset -= 24;
  return offset === 0 ? "UTC" : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
}

/**
 * The rows, by hours before H: 9 h (6 sessions, 5 sign up: the day's first hour of k for the
 * site and for the goal, shown as it closed), 6 h (7 sessions, 5 sign up), 5 h (2:
 * small), 3 h (8, 5 sign up), 2 h (6, 1 signs up: a small goal hour). The marker is 4 h before
 * H, 20 minutes in.
 */
function rows(): void {
  const hour = (before: number, prefix: string, n: number, converting: number) => {
    const ts = H - before * HOUR + 10 * 60_000;
    const ids = sessions(prefix, n);
    events.push(...ids.map((session) => ({ site, session, path: "/", ts })));
    conversions.push(...ids.slice(0, converting).map((session, i) => ({ site, goal: signup, session, ts: ts + 60_000 + i })));
  };
  hour(9, "a", 6, 5);
  hour(6, "b", 7, 5);
  hour(5, "c", 2, 0);
  hour(3, "d", 8, 5);
  hour(2, "e", 6, 1);
}

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  site = (await f.makeSite("today.example")).id;
  H = Math.floor(Date.now() / HOUR) * HOUR;
  const zone = afternoonZone(Date.now());
  expect((await f.admin("PATCH", `/api/v1/sites/${site}`, { timezone: zone })).status).toBe(200);
  signup = (await f.makeGoal(site, { name: "Signed up", kind: "event", match: "signup" })).id;
  smoke = (await f.makeGoal(site, { name: "Smoke", kind: "event", match: "smoke-test", purpose: "smoke-test" })).id;
  reader = await f.makeKey(["read:reports"], [site]);
  rows();
  await f.seedHistory(async (history) => {
    await addEvents(history, events);
    await addConversions(history, conversions);
  });
  const created = await f.admin("POST", "/api/v1/deployments", {
    site,
    version: "3f9c2ab",
    deployed_at: new Date(H - 4 * HOUR + 20 * 60_000).toISOString(),
  });
  expect(created.status).toBe(201);
  marker = created.body;
}, 120_000);
afterAll(() => f?.close());

/** Waits for the publisher's first run after the restart. */
async function read(path: string) {
  for (let i = 0; i < 100; i++) {
    const res = await reader.call("GET", path);
    if (res.status !== 503) return res;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no publication for ${path}`);
}

// ---- The definitions, from the raw rows ----

interface Cell {
  units: number;
  value: number;
}
function siteHour(start: number): Cell {
  const inHour = events.filter((e) => e.ts >= start && e.ts < start + HOUR);
  return { units: new Set(inHour.map((e) => e.session)).size, value: inHour.length };
}
function goalHour(start: number): Cell {
  const inHour = conversions.filter((c) => c.ts >= start && c.ts < start + HOUR);
  return { units: new Set(inHour.map((c) => c.session)).size, value: inHour.length };
}
/**
 * The running day's rule: an hour is shown with k units, the day's first such hour (9 h before
 * H, for the site and the goal alike) too; an empty hour of today is 0 after the site's first.
 */
type Decided = { kind: "shown"; cell: Cell } | { kind: "zero" } | { kind: "hidden" };
function decide(start: number, cell: Cell): Decided {
  const firstOfK = H - 9 * HOUR;
  // The local day began 14 hours before H; yesterday ended without data: its hours are zeros.
  if (cell.units === 0) return start > firstOfK || start < H - 14 * HOUR ? { kind: "zero" } : { kind: "hidden" };
  return cell.units >= K ? { kind: "shown", cell } : { kind: "hidden" };
}

/** The window's figure: the shown cells' perturbed values summed; suppressed with nothing shown. */
async function windowSum(db: Client, start: number, end: number, table: "site" | "goal", field: "units" | "value") {
  let sum = 0;
  let visible = 0;
  for (let h = start; h < end; h += HOUR) {
    const d = decide(h, table === "site" ? siteHour(h) : goalHour(h));
    if (d.kind === "hidden") continue;
    visible++;
    if (d.kind === "shown") {
      const where: Record<string, string | number> =
        table === "site" ? { site_id: site, hour: h } : { site_id: site, goal_id: signup, hour: h };
      sum += await shown(
        db,
        table === "site" ? "rollup_site_hour" : "rollup_goal_hour",
        where,
        d.cell[field],
        field === "units" ? "units" : table === "site" ? "events" : { eventsOf: d.cell.units },
      );
    }
  }
  return visible === 0 ? { value: null, qualifier: "suppressed" } : { value: sum, qualifier: "estimated" };
}

describe("today's figures", () => {
  it("timeseries period=today: every closed hour of the local day, as the hour rule decides it", async () => {
    const res = await read(`/api/v1/timeseries?site=${site}&period=today`);
    expect(res.status).toBe(200);
    expect(res.body.interval).toBe("hour");
    const end = Date.parse(res.body.period.end);
    expect(end).toBeGreaterThanOrEqual(H);
    expect(new Date(Date.parse(res.body.period.start)).toISOString()).toBe(res.body.points[0].start);
    const db = f.database();
    for (const point of res.body.points) {
      const start = Date.parse(point.start);
      const d = decide(start, siteHour(start));
      const expected =
        d.kind === "shown"
          ? {
              value: await shown(db, "rollup_site_hour", { site_id: site, hour: start }, d.cell.units, "units"),
              qualifier: "estimated",
            }
          : d.kind === "zero"
            ? { value: 0, qualifier: "exact" }
            : { value: null, qualifier: "suppressed" };
      expect(point.visitors, `${point.local} visitors`).toEqual(expected);
    }
    // The hours the rows were written in: the day's first hour of k shown as it closed, the small one suppressed.
    const byHours = (before: number) => res.body.points.find((p: { start: string }) => Date.parse(p.start) === H - before * HOUR);
    expect([9, 6, 5, 3, 2, 1].map((b) => byHours(b).visitors.qualifier)).toEqual([
      "estimated",
      "estimated",
      "suppressed",
      "estimated",
      "estimated",
      "exact",
    ]);
    expect(res.body.points.at(-1).start).toBe(new Date(end - HOUR).toISOString());
  });

  it("24h: the 24 closed hours before now; the conversions report sums the same cells", async () => {
    const series = await read(`/api/v1/timeseries?site=${site}&period=24h`);
    expect(series.status).toBe(200);
    expect(series.body.points).toHaveLength(24);
    const end = Date.parse(series.body.period.end);
    const report = await read(`/api/v1/conversions?site=${site}&period=24h`);
    expect(report.status).toBe(200);
    const db = f.database();
    const row = report.body.rows.find((r: { goal: { id: string } }) => r.goal.id === signup);
    expect(row.conversions).toEqual(await windowSum(db, end - 24 * HOUR, end, "goal", "value"));
    expect(row.converting_sessions).toEqual(await windowSum(db, end - 24 * HOUR, end, "goal", "units"));
    expect(row.sessions).toEqual(series.body.totals.visitors);
    // The smoke-test goal is no report's: its conversions are listed with the deployments.
    expect(report.body.rows.map((r: { goal: { id: string } }) => r.goal.id)).toEqual([signup]);
  });

  it("refuses what the hour periods cannot be: a date with them, day points, the whole-day reports", async () => {
    const cases: [string, number, string][] = [
      [`/api/v1/timeseries?site=${site}&period=today&date=2026-11-01`, 400, "date"],
      [`/api/v1/timeseries?site=${site}&period=24h&interval=day`, 400, "interval"],
      [`/api/v1/pages?site=${site}&period=24h`, 400, "period"],
      [`/api/v1/breakdown?site=${site}&period=today&dimension=exit_page`, 400, "dimension"],
      [`/api/v1/breakdown?site=${site}&period=today&dimension=source&goal=${signup}`, 400, "goal"],
      [`/api/v1/funnels?site=${site}&period=24h&goals=${signup},${signup}`, 400, "period"],
      [`/api/v1/timeseries?site=${site}&period=today&goal=${smoke}`, 422, "goal"],
    ];
    for (const [path, status, field] of cases) {
      const res = await reader.call("GET", path);
      expect([res.status, res.body.field], path).toEqual([status, field]);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
    }
    // Vitals and funnels are never read by the hour, pages and breakdowns not by a rolling 24 hours, and each says why.
    const why: [string, string][] = [
      [`/api/v1/pages?site=${site}&period=24h`, `period: \`24h\` is not offered here: ${NO_ROLLING_DAY}`],
      [`/api/v1/breakdown?site=${site}&period=24h&dimension=source`, `period: \`24h\` is not offered here: ${NO_ROLLING_DAY}`],
      [
        `/api/v1/breakdown?site=${site}&period=today&dimension=exit_page`,
        `dimension: exit_page is not offered for today: ${TODAY_NO_EXIT_PAGES}`,
      ],
      [
        `/api/v1/breakdown?site=${site}&period=today&dimension=source&goal=${signup}`,
        `goal: not offered for today: ${TODAY_NO_GOAL}`,
      ],
      [`/api/v1/vitals?site=${site}&period=today`, `period: \`today\` is not offered here: ${VITALS_NOT_HOURLY}`],
      [
        `/api/v1/funnels?site=${site}&period=24h&goals=${signup},${signup}`,
        `period: \`24h\` is not offered here: ${FUNNELS_NOT_HOURLY}`,
      ],
    ];
    for (const [path, detail] of why) {
      const res = await reader.call("GET", path);
      expect([res.status, res.body.field, res.body.detail], path).toEqual([400, detail.slice(0, detail.indexOf(":")), detail]);
    }
  });
});

describe("today's pages and breakdowns", () => {
  /** The band the API shows for the sessions of today's closed hours, as privacy/today.ts defines it. */
  async function todayBands(end: number) {
    const key = await noiseKey(f.database());
    const today = events.filter((e) => e.ts < end);
    const ids = [...new Set(today.map((e) => e.session!))];
    const keySum = ids.reduce((n, id) => n + unitKey(id, key.secret), 0);
    const counts = shownCounts({ units: ids.length, events: today.length, keySum }, key, K, true);
    const figure = (n: number) => ({ value: bandOf(n, K).low, qualifier: "estimated", high: bandOf(n, K).high });
    return { visitors: figure(counts.units), pageviews: figure(counts.events) };
  }

  it("reads today's closed hours as bands of width k, in JSON and CSV", async () => {
    const res = await read(`/api/v1/pages?site=${site}&period=today`);
    expect(res.status, res.text).toBe(200);
    const end = Date.parse(res.body.period.end);
    expect(end).toBe(H);
    // Every session of the fixture viewed "/" in today's closed hours: 29 of them.
    const bands = await todayBands(end);
    expect(res.body.rows).toEqual([{ path: "/", other: false, ...bands }]);
    expect(res.body.totals).toEqual({ pageviews: bands.pageviews });
    const csv = await reader.call("GET", `/api/v1/pages?site=${site}&period=today`, undefined, { accept: "text/csv" });
    expect(csv.text.split("\r\n")[0]).toContain(
      "path,other,visitors,visitors_high,visitors_qualifier,pageviews,pageviews_high,pageviews_qualifier",
    );
    expect(csv.text).toContain(
      `/,false,${bands.visitors.value},${bands.visitors.high},estimated,${bands.pageviews.value},${bands.pageviews.high},estimated`,
    );
    // The sources: none of these sessions came with a referrer, so one row without a value.
    const sources = await read(`/api/v1/breakdown?site=${site}&period=today&dimension=source`);
    expect(sources.status, sources.text).toBe(200);
    expect(sources.body.rows).toEqual([{ value: null, other: false, ...bands }]);
    expect(sources.body.totals).toEqual(bands);
  });
});

describe("the Overview", () => {
  it("compares the hours since the marker with as many before it, figure by figure as defined", async () => {
    const res = await read(`/api/v1/overview?site=${site}`);
    expect(res.status).toBe(200);
    expect(res.body.deployment.id).toBe(marker.id);
    // The marker's own hour is in neither window.
    expect(res.body.current.start).toBe(new Date(H - 3 * HOUR).toISOString());
    expect(res.body.previous.end).toBe(new Date(H - 4 * HOUR).toISOString());
    const [cs, ce] = [Date.parse(res.body.current.start), Date.parse(res.body.current.end)];
    const [ps, pe] = [Date.parse(res.body.previous.start), Date.parse(res.body.previous.end)];
    expect(pe - ps).toBe(ce - cs);
    expect(res.body.pending_until).toBeNull();
    const db = f.database();
    const compared = async (table: "site" | "goal", field: "units" | "value") => {
      const current = await windowSum(db, cs, ce, table, field);
      const previous = await windowSum(db, ps, pe, table, field);
      const absolute = current.value! - previous.value!;
      expect(previous.value, "the fixture compares with a window of data").toBeGreaterThan(0);
      const relative = Math.round((absolute / previous.value!) * 10_000) / 10_000;
      return {
        current,
        previous,
        delta: { absolute: { value: absolute, qualifier: "estimated" }, relative: { value: relative, qualifier: "estimated" } },
      };
    };
    expect(res.body.visitors).toEqual(await compared("site", "units"));
    expect(res.body.pageviews).toEqual(await compared("site", "value"));
    expect(res.body.sessions).toEqual(res.body.visitors);
    const goal = res.body.goals.find((g: { goal: { id: string } }) => g.goal.id === signup);
    expect(goal.conversions).toEqual(await compared("goal", "value"));
    expect(goal.converting_sessions).toEqual(await compared("goal", "units"));
    // The rate names what it divides: "converting of sessions".
    expect(goal.rate.numerator).toEqual({
      name: "converting_sessions",
      current: goal.converting_sessions.current,
      previous: goal.converting_sessions.previous,
    });
    expect(goal.rate.denominator).toEqual({
      name: "sessions",
      current: res.body.sessions.current,
      previous: res.body.sessions.previous,
    });
    const rate = (n: number, d: number) => Math.round((n / d) * 10_000) / 10_000;
    expect(goal.rate.current.value).toBe(rate(goal.converting_sessions.current.value, res.body.sessions.current.value));
    expect(res.body.goals.map((g: { goal: { id: string } }) => g.goal.id)).toEqual([signup]);
  });

  it("lists a smoke conversion beside its marker at once, exactly", async () => {
    const writer = await f.makeKey(["write:events"], [site]);
    expect((await writer.call("POST", "/api/v1/events", { site, goal_id: smoke, id: marker.id })).status).toBe(202);
    const res = await read(`/api/v1/overview?site=${site}`);
    expect(res.body.deployment.smoke).toEqual([{ id: marker.id, goal: smoke, at: expect.any(String), attached: false }]);
    // And no figure counts it.
    expect(res.body.goals.map((g: { goal: { id: string } }) => g.goal.id)).toEqual([signup]);
  });

  it("says when a marker's first hour closes instead of showing zeros, and 404s a marker not the site's", async () => {
    const now = await f.admin("POST", "/api/v1/deployments", { site, version: "9e8d7c6", deployed_at: new Date().toISOString() });
    const res = await read(`/api/v1/overview?site=${site}&deployment=${now.body.id}`);
    expect(res.status).toBe(200);
    const hourStart = Math.floor(Date.parse(now.body.deployed_at) / HOUR) * HOUR;
    expect(res.body.pending_until).toBe(new Date(hourStart + 2 * HOUR).toISOString());
    expect([res.body.visitors, res.body.pageviews, res.body.sessions, res.body.goals]).toEqual([null, null, null, []]);
    // Without an id: the latest marker, the same.
    expect((await read(`/api/v1/overview?site=${site}`)).body.deployment.id).toBe(now.body.id);
    const missing = await reader.call("GET", `/api/v1/overview?site=${site}&deployment=dep_AAAAAAAAAAAAAAAA`);
    expect([missing.status, missing.body.field]).toEqual([404, "deployment"]);
  });

  it("compares the last 24 closed hours with the 24 before on deployment=none, whatever markers the site has", async () => {
    const res = await read(`/api/v1/overview?site=${site}&deployment=none`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.deployment).toBeNull();
    expect(res.body.pending_until).toBeNull();
    const end = Date.parse(res.body.current.end);
    expect(end % HOUR).toBe(0);
    expect(Date.now() - end).toBeLessThan(HOUR + 60_000);
    expect([res.body.current, res.body.previous]).toEqual([
      { start: new Date(end - 24 * HOUR).toISOString(), end: new Date(end).toISOString(), hours: 24 },
      { start: new Date(end - 48 * HOUR).toISOString(), end: new Date(end - 24 * HOUR).toISOString(), hours: 24 },
    ]);
    expect(res.body.visitors).not.toBeNull();
    const refused = await reader.call("GET", `/api/v1/overview?site=${site}&deployment=latest`);
    expect([refused.status, refused.body.field]).toEqual([400, "deployment"]);
  });
});
