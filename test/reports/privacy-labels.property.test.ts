/**
 * Property test of hidden labels (docs/reports.md, "Hidden rows and labels"; issue 36 item 6):
 * fast-check makes random days of sessions whose paths, campaigns (utm_content) and sources are
 * drawn from pools that include person-like values (an e-mail address, a path with a reset
 * token), some frequent enough to be shown and some not, with LCP samples and sometimes a page
 * goal; the real rollup folds them into a real libSQL database.
 *
 * The attacker knows every label of the pools (and one nobody used). It reads, for every single
 * day and for the whole range, every breakdown (each dimension), the pages and the vitals — in
 * JSON, CSV and NDJSON — under every page pattern it can form from the paths it knows (the path,
 * a prefix*, a *suffix), and the timeseries and conversions filtered on every value it knows.
 *
 * L1 No label whose cells were all hidden in the period appears in any output of that period;
 *    a page pattern reads the same as a pattern nothing matches when only hidden paths match it.
 * L2 A filter on a value hidden in the period reads exactly as a filter on a value nobody had.
 * L3 After raw retention passes (an injected clock 40 days on), every report of every period
 *    reads exactly as before, and no label that no report ever showed is left in any text column
 *    of any table.
 */
import type { Client } from "@libsql/client";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { breakdownReport } from "../../worker/reports/breakdown";
import { conversionsReport } from "../../worker/reports/conversions";
import { DIMENSIONS } from "../../worker/reports/dimensions";
import { flatten, toCsv, toNdjson } from "../../worker/reports/format";
import { pagesReport } from "../../worker/reports/pages";
import { pathFilter } from "../../worker/reports/pattern";
import { applyRetention } from "../../worker/reports/retention";
import { catchUp } from "../../worker/reports/rollup";
import type { ReportScope } from "../../worker/reports/scope";
import { timeseriesReport } from "../../worker/reports/timeseries";
import { vitalsReport } from "../../worker/reports/vitals";
import {
  addConversions,
  addEvents,
  addSite,
  addVitals,
  clearData,
  noiseKey,
  openTestDb,
  type RawEvent,
  type TestDb,
} from "./helpers";

const SITE = "site_labels";
const K = 5;
const DATES = ["2026-09-01", "2026-09-02", "2026-09-03"];
/** Paths: two common ones, and three that name someone or carry a secret. */
const PATHS = ["/home", "/pricing", "/reset/tok-7f3a9c", "/u/alice-smith", "/invite/q8z"];
const CONTENTS = ["spring-sale", "alice@example.com", "bob.jones@example.org"];
const SOURCES = ["Google", "carol-personal-blog.example"];
const ABSENT_VALUE = "nobody@example.net";
const ABSENT_PATH = "/never-visited";
const LABELS = [...PATHS, ...CONTENTS, ...SOURCES];
const PAGE_GOAL_PATTERNS = ["/reset/*", "/u/*", "/*"];

interface Session {
  day: number;
  paths: number[];
  content: number | null;
  source: number;
  /** LCP in ms on its first path, or none. */
  lcp: number | null;
}
interface Dataset {
  sessions: Session[];
  pageGoal: number | null;
}

/** Frequent values first: most sessions take them, so some cells reach k and some do not. */
const skewed = (n: number) =>
  fc.oneof({ arbitrary: fc.constant(0), weight: 6 }, { arbitrary: fc.integer({ min: 0, max: n - 1 }), weight: 4 });
const sessionArb: fc.Arbitrary<Session> = fc.record({
  day: fc.integer({ min: 0, max: DATES.length - 1 }),
  paths: fc.array(skewed(PATHS.length), { minLength: 1, maxLength: 3 }),
  content: fc.option(skewed(CONTENTS.length), { nil: null, freq: 3 }),
  source: skewed(SOURCES.length),
  lcp: fc.option(fc.constantFrom(1200, 3100, 5200), { nil: null, freq: 2 }),
});
const datasetArb: fc.Arbitrary<Dataset> = fc.record({
  sessions: fc.array(sessionArb, { minLength: 4, maxLength: 45 }),
  pageGoal: fc.option(fc.integer({ min: 0, max: PAGE_GOAL_PATTERNS.length - 1 }), { nil: null }),
});

const ts = (day: number, i: number, j: number) => Date.parse(`${DATES[day]}T10:00:00Z`) + i * 60_000 + j * 1000;

async function load(client: Client, data: Dataset): Promise<void> {
  await clearData(client);
  await addSite(client, SITE);
  const goal = data.pageGoal === null ? null : PAGE_GOAL_PATTERNS[data.pageGoal]!;
  if (goal) {
    await client.execute({
      sql: "INSERT INTO goals (id, site_id, name, kind, match, created_at) VALUES ('page_goal', ?, 'page goal', 'page', ?, 0)",
      args: [SITE, goal],
    });
  }
  const events: RawEvent[] = [];
  const conversions: { site: string; goal: string; session: string; ts: number }[] = [];
  const vitals: { site: string; session: string; path: string; metric: string; value: number; ts: number }[] = [];
  data.sessions.forEach((s, i) => {
    const session = `s${i}`;
    s.paths.forEach((p, j) => {
      const dims: RawEvent["dims"] = { source: SOURCES[s.source]! };
      if (s.content !== null) dims.utm_content = CONTENTS[s.content]!;
      events.push({ site: SITE, session, path: PATHS[p]!, ts: ts(s.day, i, j), dims });
    });
    // A page goal converts once per session, at its first matching pageview (as the collector does).
    const first = goal ? s.paths.findIndex((p) => pathFilter(goal)(PATHS[p]!)) : -1;
    if (first >= 0) conversions.push({ site: SITE, goal: "page_goal", session, ts: ts(s.day, i, first) });
    if (s.lcp !== null)
      vitals.push({ site: SITE, session, path: PATHS[s.paths[0]!]!, metric: "LCP", value: s.lcp, ts: ts(s.day, i, 0) });
  });
  await addEvents(client, events);
  await addConversions(client, conversions);
  await addVitals(client, vitals);
  await catchUp(client as never);
}

const PERIODS = [...DATES.map((d) => [d, d] as const), [DATES[0]!, DATES[DATES.length - 1]!] as const];

/** Every page pattern the attacker forms from the paths it knows: the path, a prefix*, a *suffix. */
const PATTERNS = [...PATHS, ABSENT_PATH].flatMap((p) => [p, `${p.slice(0, 4)}*`, `*${p.slice(-4)}`]);

/** A report's rows in the three formats, as the API renders them (format.ts). */
function renderings(rows: object[], whole: unknown): string[] {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(flatten(r as Record<string, unknown>))))];
  return [JSON.stringify(whole), toCsv(rows as Record<string, unknown>[], columns), toNdjson(rows as Record<string, unknown>[])];
}

interface Reading {
  /** Labels some unfiltered row shows a figure for. */
  shown: Set<string>;
  /** Every output text of the period. */
  texts: string[];
  /** Everything read, for before/after comparison. */
  all: unknown[];
  /** Pages and vitals per pattern (JSON), and filtered readings per value. */
  byPattern: Map<string, string>;
  byValue: Map<string, string>;
}

async function readPeriod(db: TestDb, from: string, to: string, goal: boolean): Promise<Reading> {
  const scope: ReportScope = { siteId: SITE, from, to, timeZone: "UTC", k: K, noise: true, noiseKey: await noiseKey(db.client) };
  const reading: Reading = { shown: new Set(), texts: [], all: [], byPattern: new Map(), byValue: new Map() };
  const note = (label: string | null, row: object) => {
    const figures = Object.values(row).filter(
      (v): v is { value: unknown } => typeof v === "object" && v !== null && "qualifier" in v,
    );
    if (label !== null && figures.some((f) => f.value !== null)) reading.shown.add(label);
  };
  const take = (rows: object[], whole: unknown) => {
    reading.texts.push(...renderings(rows, whole));
    reading.all.push(whole);
  };
  for (const dimension of DIMENSIONS) {
    for (const g of goal ? [undefined, "page_goal"] : [undefined]) {
      const report = await breakdownReport(db.reader, scope, dimension, g);
      for (const r of report.rows) note(r.value, r);
      take(report.rows, report);
    }
  }
  const pages = await pagesReport(db.reader, scope);
  for (const r of pages.rows) note(r.path, r);
  take(pages.rows, pages);
  const vitals = await vitalsReport(db.reader, scope);
  for (const r of vitals) note(r.path, r);
  take(vitals, vitals);
  for (const pattern of PATTERNS) {
    const p = await pagesReport(db.reader, scope, pattern);
    const v = await vitalsReport(db.reader, scope, { page: pattern });
    take(p.rows, p);
    take(v, v);
    reading.byPattern.set(pattern, JSON.stringify([p, v]));
  }
  const filters = [
    ...[...CONTENTS, ABSENT_VALUE].map((value) => ({ dimension: "utm_content" as const, value })),
    ...[...PATHS, ABSENT_PATH].map((value) => ({ dimension: "entry_page" as const, value })),
  ];
  for (const filter of filters) {
    const series = await timeseriesReport(db.reader, scope, "day", undefined, filter);
    const conversions = await conversionsReport(db.reader, scope, filter);
    take(series.points, series);
    take(conversions.rows, conversions);
    reading.byValue.set(`${filter.dimension}:${filter.value}`, JSON.stringify([series, conversions]));
  }
  return reading;
}

/** Every text column of every table that holds one of `labels`: "table.column: label" for each found. */
async function labelsStored(client: Client, labels: string[]): Promise<string[]> {
  if (labels.length === 0) return [];
  const tables = await client.execute(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'",
  );
  const found: string[] = [];
  const list = JSON.stringify(labels);
  for (const t of tables.rows) {
    const table = String(t.name);
    const columns = await client.execute(`SELECT name FROM pragma_table_info('${table}') WHERE type = 'TEXT' OR type = ''`);
    for (const c of columns.rows) {
      const rs = await client.execute({
        sql: `SELECT DISTINCT l.value AS label FROM "${table}" t JOIN json_each(?) l ON instr(t."${String(c.name)}", l.value) > 0`,
        args: [list],
      });
      for (const r of rs.rows) found.push(`${table}.${String(c.name)}: ${String(r.label)}`);
    }
  }
  return found;
}

let db: TestDb;
beforeAll(async () => {
  db = await openTestDb();
});
afterAll(() => db?.close());

describe("hidden labels", () => {
  it("L1–L3: no hidden label in any output, format or filter; none left in storage once raw retention passes", async () => {
    await fc.assert(
      fc.asyncProperty(datasetArb, async (data) => {
        await load(db.client, data);
        const goal = data.pageGoal !== null;
        const before: Reading[] = [];
        for (const [from, to] of PERIODS) {
          const reading = await readPeriod(db, from, to, goal);
          before.push(reading);
          // L1: only labels shown in the period, in every output and format.
          const hidden = LABELS.filter((l) => !reading.shown.has(l));
          for (const text of reading.texts)
            for (const label of hidden)
              expect(text.includes(label), `${from}..${to}: ${label} in ${text.slice(0, 300)}`).toBe(false);
          // A pattern matching only hidden paths reads as one matching nothing.
          for (const pattern of PATTERNS) {
            const matches = pathFilter(pattern);
            if (![...PATHS, ABSENT_PATH].some((p) => reading.shown.has(p) && matches(p)))
              expect(reading.byPattern.get(pattern), `${from}..${to} page=${pattern}`).toBe(reading.byPattern.get(ABSENT_PATH));
          }
          // L2: a hidden value filtered on reads as one nobody had.
          for (const [dimension, values, absent] of [
            ["utm_content", CONTENTS, ABSENT_VALUE],
            ["entry_page", PATHS, ABSENT_PATH],
          ] as const) {
            for (const value of values)
              if (!reading.shown.has(value))
                expect(reading.byValue.get(`${dimension}:${value}`), `${from}..${to} filter=${dimension}:${value}`).toBe(
                  reading.byValue.get(`${dimension}:${absent}`),
                );
          }
        }
        // L3: retention 40 days on (an injected clock), run until it has nothing left to do.
        const now = Date.parse(`${DATES[DATES.length - 1]}T00:00:00Z`) + 40 * 86_400_000;
        for (let i = 0; i < 20; i++) if (!(await applyRetention(db.client as never, { now, days: 30, k: K })).more) break;
        for (const [i, [from, to]] of PERIODS.entries())
          expect((await readPeriod(db, from, to, goal)).all, `${from}..${to} after retention`).toEqual(before[i]!.all);
        const everShown = new Set(before.flatMap((r) => [...r.shown]));
        // Paths a page goal that converted matches are kept: its decisions read their text (label-scrub.ts).
        const converted =
          goal && data.sessions.some((s) => s.paths.some((p) => pathFilter(PAGE_GOAL_PATTERNS[data.pageGoal!]!)(PATHS[p]!)));
        const goalPath = (l: string) => converted && pathFilter(PAGE_GOAL_PATTERNS[data.pageGoal!]!)(l);
        expect(
          await labelsStored(
            db.client,
            LABELS.filter((l) => !everShown.has(l) && !goalPath(l)),
          ),
        ).toEqual([]);
      }),
      { numRuns: Number(process.env.LABELS_RUNS ?? 15) },
    );
  }, 300_000);
});
