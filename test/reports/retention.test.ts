/**
 * Retention (worker/reports/retention.ts) on a real libSQL database with an injected clock (no
 * sleeps): folded raw rows, sessions, units and funnel rows go once past the period; newer rows
 * and rows not yet folded stay; rollup cells stay, and every report of a published day reads the
 * same before and after; funnels cover the retention period and nothing older; idempotency keys
 * go when the event window closes; every statement is bounded.
 */
import type { Client } from "@libsql/client";
import { afterEach, describe, expect, it } from "vitest";
import { HttpProblem } from "../../worker/lib/problem";
import { breakdownReport } from "../../worker/reports/breakdown";
import { conversionsReport } from "../../worker/reports/conversions";
import { funnelReport } from "../../worker/reports/funnels";
import { pagesReport } from "../../worker/reports/pages";
import { lastCompleteDay } from "../../worker/reports/period";
import { publishOnce } from "../../worker/reports/publisher";
import { applyRetention, requireFunnelPeriod, retentionDays, retentionHorizon } from "../../worker/reports/retention";
import { catchUp } from "../../worker/reports/rollup";
import type { ReportScope } from "../../worker/reports/scope";
import { timeseriesReport } from "../../worker/reports/timeseries";
import { startOfLocalDay } from "../../worker/reports/timezone";
import { vitalsReport } from "../../worker/reports/vitals";
import { addConversions, addEvents, addGoal, addSite, addVitals, at, noiseKey as noiseKeyOfDb, openTestDb, sessions, type TestDb } from "./helpers";

const SITE = "site_keep";
const DAY = 86_400_000;
let open: TestDb[] = [];
afterEach(() => {
  for (const db of open) db.close();
  open = [];
});

async function fresh(): Promise<TestDb> {
  const db = await openTestDb();
  open.push(db);
  return db;
}

async function count(client: Client, table: string, where = "true"): Promise<number> {
  return Number((await client.execute(`SELECT count(*) AS n FROM ${table} WHERE ${where}`)).rows[0]!.n);
}

async function addSessions(client: Client, rows: { id: string; site: string; first: number; last: number }[]): Promise<void> {
  for (const r of rows) {
    await client.execute({
      sql: "INSERT INTO sessions (id, site_id, first_seen, last_seen, entry_path) VALUES (?, ?, ?, ?, '/')",
      args: [r.id, r.site, r.first, r.last],
    });
  }
}

/** Every report of one period, as the API computes them (perturbed). */
async function reportsOf(db: TestDb, scope: ReportScope, withFunnel: boolean) {
  return {
    pages: await pagesReport(db.reader, scope),
    conversions: await conversionsReport(db.reader, scope),
    days: await timeseriesReport(db.reader, scope, "day"),
    hours: await timeseriesReport(db.reader, scope, "hour"),
    vitals: await vitalsReport(db.reader, scope),
    funnel: withFunnel ? await funnelReport(db.reader, scope, ["goal_a", "goal_b"]) : null,
    entries: await breakdownReport(db.reader, scope, "entry_page", "goal_a"),
  };
}

/** The per-session rollup rows retention may delete, and the rollup cells it must not touch. */
const UNITS = [
  "rollup_site_day_units",
  "rollup_site_hour_units",
  "rollup_page_day_units",
  "rollup_goal_day_units",
  "rollup_goal_hour_units",
  "rollup_vital_day_units",
  "rollup_session_goals",
  "rollup_session_day",
];
const CELLS = [
  "rollup_site_day",
  "rollup_site_hour",
  "rollup_page_day",
  "rollup_goal_day",
  "rollup_goal_hour",
  "rollup_vital_day",
  "rollup_vital_histogram",
  "rollup_dimension_day",
  "rollup_goal_dimension_day",
];

async function snapshot(client: Client, tables: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const table of tables) {
    const rs = await client.execute(`SELECT * FROM ${table} ORDER BY 1, 2, 3, 4`);
    out.push(...rs.rows.map((r) => `${table} ${JSON.stringify(Object.values(r).map(String))}`));
  }
  return out;
}

describe("WREN_RAW_RETENTION_DAYS in the workers", () => {
  it("defaults to 30 and keeps whole days within 2–36500", () => {
    expect([undefined, null, "", " ", "forever"].map((v) => retentionDays(v))).toEqual([30, 30, 30, 30, 30]);
    expect(["7", "2", "1", "0", "2.5", "90", "99999999"].map((v) => retentionDays(v))).toEqual([7, 2, 2, 2, 2, 90, 36500]);
  });
});

describe("retention", () => {
  // Two sites, one far ahead of UTC: local days there end up to 14 hours before the UTC day.
  const ZONED = "site_zoned";
  const OLD = "2026-10-01";
  const RECENT = "2026-11-07";
  const NOW = at("2026-11-10", 12);

  async function seed(db: TestDb) {
    await addSite(db.client, SITE);
    await addSite(db.client, ZONED, "Pacific/Kiritimati");
    for (const site of [SITE, ZONED]) {
      await addGoal(db.client, site, site === SITE ? "goal_a" : "goal_za");
      await addGoal(db.client, site, site === SITE ? "goal_b" : "goal_zb");
    }
    for (const [site, day, prefix] of [
      [SITE, OLD, "old"],
      [SITE, RECENT, "new"],
      [ZONED, OLD, "zold"],
      [ZONED, RECENT, "znew"],
    ] as const) {
      const ids = sessions(prefix, 6);
      const [a, b] = site === SITE ? ["goal_a", "goal_b"] : ["goal_za", "goal_zb"];
      await addEvents(
        db.client,
        ids.map((session) => ({ site, session, path: "/", ts: at(day, 9) })),
      );
      await addEvents(
        db.client,
        ids.map((session) => ({ site, session, path: "/pricing", ts: at(day, 9, 5) })),
      );
      await addConversions(db.client, [
        ...ids.map((session) => ({ site, goal: a, session, ts: at(day, 9, 10) })),
        ...ids.map((session) => ({ site, goal: b, session, ts: at(day, 9, 20) })),
      ]);
      await addVitals(
        db.client,
        ids.map((session, i) => ({ site, session, path: "/", metric: "LCP", value: 1000 + 100 * i, ts: at(day, 9, 1) })),
      );
      await addSessions(
        db.client,
        ids.map((id) => ({ id, site, first: at(day, 9), last: at(day, 9, 20) })),
      );
    }
  }

  it("deletes folded raw rows, sessions, units and funnel rows past the period; keeps newer and unfolded rows, and every report of a published day", async () => {
    const db = await fresh();
    await seed(db);
    // The publisher folds and publishes everything up to now (no retention asked for yet).
    const published = await publishOnce(db.client as never, { now: () => NOW });
    expect(published.behind).toBe(false);
    expect(published.retention).toBeUndefined();
    const noiseKey = await noiseKeyOfDb(db.client);
    const scopes = {
      old: { siteId: SITE, from: OLD, to: OLD, timeZone: "UTC", k: 5, noise: true, noiseKey },
      recent: { siteId: SITE, from: RECENT, to: RECENT, timeZone: "UTC", k: 5, noise: true, noiseKey },
      zonedOld: { siteId: ZONED, from: OLD, to: OLD, timeZone: "Pacific/Kiritimati", k: 5, noise: true, noiseKey },
    };
    const before = {
      old: await reportsOf(db, scopes.old, false),
      recent: await reportsOf(db, scopes.recent, true),
      zonedOld: await reportsOf(db, scopes.zonedOld, false),
    };
    // The old day is shown (six sessions), so "unchanged" below means something.
    expect(before.old.pages.rows.map((r) => r.visitors.qualifier)).not.toContain("suppressed");
    expect(before.old.vitals).toHaveLength(1);
    const cells = await snapshot(db.client, CELLS);
    // A row of the old day that is stored but not folded yet: retention must leave it.
    await addEvents(db.client, [{ site: SITE, session: "late", path: "/", ts: at(OLD, 10) }]);

    const run = await applyRetention(db.client as never, { now: NOW, days: 30 });

    expect(run.deleted).toEqual({
      events: 24,
      conversions: 24,
      vitals: 12,
      sessions: 12,
      rollup_site_day_units: 12,
      rollup_page_day_units: 24,
      rollup_goal_day_units: 24,
      rollup_vital_day_units: 12,
      rollup_site_hour_units: 12,
      rollup_goal_hour_units: 24,
      rollup_session_goals: 24,
      rollup_session_day: 12,
    });
    // What is left of the old day: the unfolded row. The recent day is whole.
    expect(
      (await db.client.execute("SELECT session_id FROM events WHERE ts < ?", [at("2026-10-02", 0)])).rows.map(
        (r) => r.session_id,
      ),
    ).toEqual(["late"]);
    for (const table of ["events", "conversions", "vitals"])
      expect(await count(db.client, table, `ts >= ${at(RECENT, 0)}`)).toBe(table === "vitals" ? 12 : 24);
    expect(await count(db.client, "sessions")).toBe(12);
    expect(await count(db.client, "rollup_session_goals")).toBe(24);
    for (const table of UNITS) expect(await count(db.client, table), table).toBeGreaterThan(0);
    // Rollup cells untouched — but for the old day's remainder of small hours, written into its
    // rows before its hour units went (none: each hour held k) — and every report of every
    // published day reads exactly as before.
    const settled = (row: string) => (row.includes('"2026-10-01"') ? row.replace(/,"null"\]$/, ',"0"]') : row);
    expect(await snapshot(db.client, CELLS)).toEqual(cells.map((row) => (/^rollup_(site|goal)_day /.test(row) ? settled(row) : row)));
    expect({
      old: await reportsOf(db, scopes.old, false),
      recent: await reportsOf(db, scopes.recent, true),
      zonedOld: await reportsOf(db, scopes.zonedOld, false),
    }).toEqual(before);

    // The next publisher run folds the late row (into the open day: the old one is published)
    // and, with retention asked for, deletes it: folded and past the period.
    const later = await publishOnce(db.client as never, { now: () => NOW + 1000, retentionDays: 30 });
    expect(later.folded).toBe(1);
    expect(later.retention?.deleted).toEqual({ events: 1 });
    expect(await count(db.client, "events", `ts < ${at(RECENT, 0)}`)).toBe(0);
    expect(await reportsOf(db, scopes.old, false)).toEqual(before.old);
    // Nothing left to do: the next run deletes nothing and writes nothing.
    expect((await publishOnce(db.client as never, { now: () => NOW + 2000, retentionDays: 30 })).retention).toEqual({
      keysDropped: 0,
      deleted: {},
      more: false,
    });
  });

  it("settles a day's remainder of small hours before their units go, so the day stays hidden", async () => {
    const db = await fresh();
    await addSite(db.client, SITE);
    await addGoal(db.client, SITE, "goal_a");
    // 2026-10-01: 6 sessions at 09:00 (shown as the hour closed), 2 more at 11:00: the day minus
    // its shown hour would be those 2, so the day hides — the site's and the goal's alike.
    const busy = sessions("busy", 6);
    const late = sessions("late", 2);
    await addEvents(db.client, [
      ...busy.map((session) => ({ site: SITE, session, path: "/", ts: at("2026-10-01", 9) })),
      ...late.map((session) => ({ site: SITE, session, path: "/", ts: at("2026-10-01", 11) })),
    ]);
    await addConversions(db.client, [...busy, ...late].map((session, i) => ({ site: SITE, goal: "goal_a", session, ts: at("2026-10-01", i < 6 ? 9 : 11, 5) })));
    await catchUp(db.client as never);
    const scope: ReportScope = { siteId: SITE, from: "2026-10-01", to: "2026-10-01", timeZone: "UTC", k: 5 };
    const read = async () => ({
      days: await timeseriesReport(db.reader, scope, "day"),
      hours: await timeseriesReport(db.reader, scope, "hour"),
      conversions: await conversionsReport(db.reader, scope),
    });
    const before = await read();
    // The day's own totals are withheld: it reads as its shown 09:00.
    expect(before.days.points[0]).toMatchObject({ visitors: { value: 6, qualifier: "estimated" }, from_hours: true });
    expect(before.conversions.rows[0]!.conversions).toEqual({ value: 6, qualifier: "estimated" });
    const run = await applyRetention(db.client as never, { now: NOW, days: 30, k: 5 });
    expect(run.deleted).toMatchObject({ rollup_site_hour_units: 8, rollup_goal_hour_units: 8 });
    const remainders = await db.client.execute("SELECT 'site', hour_remainder FROM rollup_site_day UNION ALL SELECT 'goal', hour_remainder FROM rollup_goal_day");
    expect(remainders.rows.map((r) => Number(r.hour_remainder))).toEqual([2, 2]);
    expect(await read()).toEqual(before);
  });

  it("keeps rows the period still covers: 30 days back from now, to the millisecond", async () => {
    const db = await fresh();
    await addSite(db.client, SITE);
    const cutoff = NOW - 30 * DAY;
    await addEvents(db.client, [
      { site: SITE, session: "before", path: "/", ts: cutoff - 1 },
      { site: SITE, session: "at", path: "/", ts: cutoff },
    ]);
    await addSessions(db.client, [
      { id: "s-before", site: SITE, first: cutoff - DAY, last: cutoff - 1 },
      { id: "s-at", site: SITE, first: cutoff - DAY, last: cutoff },
    ]);
    await catchUp(db.client as never);
    expect((await applyRetention(db.client as never, { now: NOW, days: 30 })).deleted).toMatchObject({ events: 1, sessions: 1 });
    expect((await db.client.execute("SELECT session_id FROM events")).rows.map((r) => r.session_id)).toEqual(["at"]);
    expect((await db.client.execute("SELECT id FROM sessions")).rows.map((r) => r.id)).toEqual(["s-at"]);
    // A shorter period reaches further.
    await applyRetention(db.client as never, { now: NOW, days: 2 });
    expect(await count(db.client, "events")).toBe(0);
  });

  it("is bounded: at most batchRows rows per statement, each in a transaction of its own; a backlog goes over several runs", async () => {
    const db = await fresh();
    await addSite(db.client, SITE);
    await addEvents(
      db.client,
      sessions("old", 5).map((session) => ({ site: SITE, session, path: "/", ts: at("2026-09-01", 10) })),
    );
    await catchUp(db.client as never);
    const transactions: number[] = [];
    // Count what each write transaction changed: one statement per transaction, at most 2 rows.
    const counting = new Proxy(db.client, {
      get(target, prop, receiver) {
        if (prop === "transaction") throw new Error(`retention must not use ${String(prop)}`);
        // The label scrub (label-scrub.ts) rewrites one site-day's labels in one write batch.
        if (prop === "batch")
          return async (statements: never[], mode: "read" | "write") => {
            const results = await target.batch(statements, mode);
            if (mode === "write") transactions.push(results.reduce((n, r) => n + r.rowsAffected, 0));
            return results;
          };
        if (prop !== "execute") return Reflect.get(target, prop, receiver);
        return async (statement: { sql: string; args?: never[] } | string) => {
          const result = await target.execute(statement as never);
          if (/^\s*(DELETE|UPDATE)/i.test(typeof statement === "string" ? statement : statement.sql))
            transactions.push(result.rowsAffected);
          return result;
        };
      },
    });
    const runs = [];
    for (let i = 0; i < 4; i++) runs.push(await applyRetention(counting as never, { now: NOW, days: 30, batchRows: 2 }));
    expect(runs.map((r) => r.deleted.events ?? 0)).toEqual([2, 2, 1, 0]);
    expect(runs.map((r) => r.more)).toEqual([true, true, false, false]);
    expect(Math.max(...transactions)).toBeLessThanOrEqual(2);
    expect(await count(db.client, "events")).toBe(0);
  });

  it("deletes smoke-test records (the callers' ids) past the period with their conversions, whether or not foreign keys cascade", async () => {
    for (const foreignKeys of [true, false]) {
      const db = await fresh();
      if (!foreignKeys) await db.client.execute("PRAGMA foreign_keys = OFF");
      await addSite(db.client, SITE);
      await addGoal(db.client, SITE, "goal_smoke");
      for (const [id, ts] of [
        ["deploy-old", NOW - 30 * DAY - 1],
        ["deploy-new", NOW - 30 * DAY],
      ] as const) {
        const inserted = await db.client.execute({
          sql: "INSERT INTO conversions (site_id, goal_id, source, ts) VALUES (?, 'goal_smoke', 's2s', ?) RETURNING id",
          args: [SITE, ts],
        });
        await db.client.execute({
          sql: "INSERT INTO smoke_conversions (conversion_id, site_id, goal_id, external_id, attached, ts) VALUES (?, ?, 'goal_smoke', ?, 0, ?)",
          args: [Number(inserted.rows[0]!.id), SITE, id, ts],
        });
      }
      await catchUp(db.client as never);
      const run = await applyRetention(db.client as never, { now: NOW, days: 30 });
      expect(run.deleted, `foreign keys ${foreignKeys}`).toEqual({ smoke_conversions: 1, conversions: 1 });
      expect((await db.client.execute("SELECT external_id FROM smoke_conversions")).rows.map((r) => r.external_id)).toEqual(["deploy-new"]);
      expect(await count(db.client, "conversions")).toBe(1);
      expect((await applyRetention(db.client as never, { now: NOW, days: 30 })).deleted).toEqual({});
    }
  });

  it("deletes deployment hook receipts 48 hours on, once a delivery that old is refused by its age", async () => {
    const db = await fresh();
    const NOW = Date.parse("2026-11-20T12:00:00Z");
    await addSite(db.client, SITE);
    for (const [key, made] of [
      ["github:1", NOW - 2 * DAY - 1],
      ["github:2", NOW - 2 * DAY],
      ["webhook-id:msg_3", NOW - 60_000],
    ] as const) {
      await db.client.execute({ sql: "INSERT INTO deployment_hook_receipts (site_id, key, created_at) VALUES (?, ?, ?)", args: [SITE, key, made] });
    }
    expect((await applyRetention(db.client as never, { now: NOW, days: 30 })).deleted).toEqual({ deployment_hook_receipts: 1 });
    expect((await db.client.execute("SELECT key FROM deployment_hook_receipts ORDER BY key")).rows.map((r) => r.key)).toEqual(["github:2", "webhook-id:msg_3"]);
    expect((await applyRetention(db.client as never, { now: NOW, days: 30 })).deleted).toEqual({});
  });

  it("drops idempotency keys, s2s and once-per-session, once the 24-hour window has closed", async () => {
    const db = await fresh();
    await addSite(db.client, SITE);
    await addGoal(db.client, SITE, "goal_a");
    await db.client.batch(
      [
        {
          sql: "INSERT INTO conversions (site_id, goal_id, source, event_key, ts) VALUES (?, 'goal_a', 's2s', 'id:closed', ?)",
          args: [SITE, NOW - DAY - 1],
        },
        {
          sql: "INSERT INTO conversions (site_id, goal_id, source, event_key, ts) VALUES (?, 'goal_a', 'beacon', 'goal:goal_a:s1', ?)",
          args: [SITE, NOW - DAY - 1],
        },
        {
          sql: "INSERT INTO conversions (site_id, goal_id, source, event_key, ts) VALUES (?, 'goal_a', 's2s', 'id:open', ?)",
          args: [SITE, NOW - DAY],
        },
      ],
      "write",
    );
    // Not folded yet: the key goes anyway (it is about the window, not the reports).
    expect(await applyRetention(db.client as never, { now: NOW, days: 30 })).toEqual({
      keysDropped: 2,
      deleted: {},
      more: false,
    });
    expect((await db.client.execute("SELECT event_key FROM conversions ORDER BY id")).rows.map((r) => r.event_key)).toEqual([
      null,
      null,
      "id:open",
    ]);
    expect((await applyRetention(db.client as never, { now: NOW + 1, days: 30 })).keysDropped).toBe(1);
    expect(await count(db.client, "conversions", "event_key IS NOT NULL")).toBe(0);
  });
});

describe("funnels under retention", () => {
  // Sites far west and far east of UTC, a converting group of six sessions every day for 40
  // days: goal A on the day, goal B after it, and goal A first completed almost three days
  // earlier — the widest a session's completions can lie apart.
  const ZONES = { site_west: "Pacific/Pago_Pago", site_east: "Pacific/Kiritimati", site_utc: "UTC" } as const;
  const T1 = at("2026-11-20", 7, 30);

  async function seed(db: TestDb) {
    for (const [site, zone] of Object.entries(ZONES)) {
      await addSite(db.client, site, zone);
      await addGoal(db.client, site, `${site}_a`);
      await addGoal(db.client, site, `${site}_b`);
      for (let d = 40; d >= 1; d--) {
        const day = new Date(T1 - d * DAY).toISOString().slice(0, 10);
        const start = startOfLocalDay(zone, day);
        const ids = sessions(`${site}-${day}-`, 6);
        await addConversions(db.client, [
          ...ids.map((session) => ({ site, goal: `${site}_a`, session, ts: start + 8 * 3_600_000 })),
          ...ids.map((session) => ({ site, goal: `${site}_a`, session, ts: start + 8 * 3_600_000 - 70 * 3_600_000 })),
          ...ids.map((session) => ({ site, goal: `${site}_b`, session, ts: start + 9 * 3_600_000 })),
        ]);
      }
    }
    await catchUp(db.client as never);
  }

  it("cover the retention period: a funnel allowed now reads the same after any retention run within a day", async () => {
    const db = await fresh();
    await seed(db);
    const horizon = retentionHorizon(T1, 30);
    const noiseKey = await noiseKeyOfDb(db.client);
    const funnels = Object.entries(ZONES).map(([site, zone]) => {
      // The default 30-day period is allowed in every zone; its first day is at or after the horizon.
      const to = lastCompleteDay(zone, T1);
      const from = new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY).toISOString().slice(0, 10);
      expect(() => requireFunnelPeriod(from, T1, 30, "period")).not.toThrow();
      return {
        scope: { siteId: site, from: horizon.funnelsFrom, to, timeZone: zone, k: 5, noise: true, noiseKey },
        goals: [`${site}_a`, `${site}_b`],
      };
    });
    const before = [];
    for (const f of funnels) before.push(await funnelReport(db.reader, f.scope, f.goals));
    // Step 2 is shown, and rests on first completions three days before the funnel's first day.
    for (const steps of before) expect(steps[1]!.sessions.qualifier).not.toBe("suppressed");
    // Retention a whole day later (the UTC date turned, the horizon moved), run to the end.
    const t2 = T1 + DAY;
    for (let run = await applyRetention(db.client as never, { now: t2, days: 30 }); run.more;) {
      run = await applyRetention(db.client as never, { now: t2, days: 30 });
    }
    const after = [];
    for (const f of funnels) after.push(await funnelReport(db.reader, f.scope, f.goals));
    expect(after).toEqual(before);
    // Retention did remove the older days' funnel rows.
    expect(await count(db.client, "rollup_goal_day_units", `day < '${retentionHorizon(T1 + DAY, 30).daysBefore}'`)).toBe(0);
    expect(await count(db.client, "rollup_session_goals", `first_ts < ${retentionHorizon(T1 + DAY, 30).firstsBefore}`)).toBe(0);
    expect(await count(db.client, "rollup_session_goals")).toBeLessThan(3 * 40 * 6 * 2);
  });

  it("refuses a funnel that starts before the period, naming the field, and allows the first day of it", () => {
    const horizon = retentionHorizon(T1, 30);
    expect(horizon.funnelsFrom).toBe("2026-10-20");
    const refused = (() => {
      try {
        requireFunnelPeriod("2026-10-19", T1, 30, "from");
      } catch (error) {
        return error;
      }
    })() as HttpProblem;
    expect(refused).toBeInstanceOf(HttpProblem);
    expect(refused.status).toBe(422);
    expect(refused.extra.field).toBe("from");
    expect(refused.message).toContain("the earliest day a funnel can start is 2026-10-20");
    expect(() => requireFunnelPeriod("2026-10-20", T1, 30, "from")).not.toThrow();
    // A short period: a week-long funnel is refused with 2 days.
    expect(() => requireFunnelPeriod("2026-11-13", T1, 2, "period")).toThrow(/WREN_RAW_RETENTION_DAYS \(2 days\)/);
  });
});
