/**
 * Property test of the filter's utility (docs/reports.md, "Utility"): on random days folded by
 * the real rollup into a real database, the cells of 2k units or more that a rule hides must be
 * hidden for a reason — showing one would let the exact attacker (attack.ts smallGroups) derive
 * a group of 1 to k − 1 sessions — and the relaxed covers must still leave no small remainder.
 *
 * U1 pages: sessions walk 1–3 of six pages. Every hidden page-day of 2k units is explained
 *    (privacy/explain.ts) by the group it protects: a complement or two-page overlap must be
 *    that group's true size, 1 to k − 1; a cover's remainder (the sessions with a pageview on
 *    the other hidden pages) is either 1 to k − 1 sessions (the hiding was needed) or not
 *    provable from what the rollup keeps — the bounds the rule read are below k — and counted
 *    as over-suppression the rollup cannot see. And the attacker's move: the day's pageviews
 *    minus the shown pages' is the pageviews of the sessions on hidden pages, which must be 0
 *    or at least k sessions.
 * U3 the day's two pages: sessions on /a, /b, both, or on no page at all; the country breakdown's
 *    rest (who sent no pageview) turns the day into the two pages' union, so their overlap must
 *    be hidden when small even where |/a| + |/b| − the day is not.
 * U2 breakdowns: sessions by page journey and country (18 classes, as in the breakdown property
 *    of privacy.property.test.ts). Every hidden country, entry or exit cell of 2k units in a
 *    shown day, added alone to everything the day shows, must let smallGroups find a group of
 *    1 to k − 1 sessions; otherwise it is over-suppression and the test fails. Each is named,
 *    with the group it protects, by breakdown-explain.ts.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { breakdownReport } from "../../worker/reports/breakdown";
import { explainHiddenValues } from "../../worker/reports/breakdown-explain";
import type { Dimension } from "../../worker/reports/dimensions";
import type { Figure } from "../../worker/reports/figures";
import { pagesReport } from "../../worker/reports/pages";
import { explainHiddenPages } from "../../worker/reports/privacy/explain";
import { catchUp } from "../../worker/reports/rollup";
import type { ReportScope } from "../../worker/reports/scope";
import { timeseriesReport } from "../../worker/reports/timeseries";
import { smallGroups } from "./attack";
import { addEvents, addSite, clearData, openTestDb, type RawEvent, type TestDb } from "./helpers";

const SITE = "site_utility_prop";
const DATE = "2026-11-02";
const PATHS = ["/", "/a", "/b", "/c", "/d", "/e"];
const RUNS = Number(process.env.UTILITY_RUNS ?? 150);
const shownValue = (f: Figure) => f.value;

/** One day: k, and each session's pages in the order viewed (first: entry, last: exit). */
const pageDays = fc.record({
  k: fc.constantFrom(2, 3, 4),
  sessions: fc.array(
    // Popular pages first: "/" most, "/e" least, so the day has big pages beside small ones.
    fc.array(
      fc.integer({ min: 0, max: 20 }).map((n) => Math.min(PATHS.length - 1, Math.floor(Math.sqrt(n * 1.8)))),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
    { maxLength: 60 },
  ),
});

async function load(db: TestDb, events: RawEvent[]): Promise<void> {
  await clearData(db.client);
  await addSite(db.client, SITE);
  await addEvents(db.client, events);
  await catchUp(db.client as never);
}

describe("the k-anonymity filter hides no more than the guarantee needs", () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb();
  });
  afterAll(() => db?.close());

  it("U1: every hidden page of 2k names the group it protects, and no cover leaves a small remainder", async () => {
    const stats = { hidden2k: 0, needed: 0, unprovable: 0 };
    await fc.assert(
      fc.asyncProperty(pageDays, async ({ k, sessions }) => {
        const events = sessions.flatMap((walk, s) =>
          walk.map((p, i): RawEvent => ({
            site: SITE,
            session: `s${s}`,
            path: PATHS[p]!,
            ts: Date.parse(`${DATE}T10:0${i}:00Z`),
          })),
        );
        await load(db, events);
        const scope: ReportScope = { siteId: SITE, from: DATE, to: DATE, timeZone: "UTC", k };
        const pages = await pagesReport(db.reader, scope);
        const day = (await timeseriesReport(db.reader, scope, "day")).points[0]!;
        const viewers = (path: string) => sessions.flatMap((walk, s) => (walk.some((p) => PATHS[p] === path) ? [s] : []));
        // Hidden pages are one `other` row (hidden-rows.ts): the attacker knows which pages had data.
        const shownPaths = new Set(pages.rows.flatMap((r) => (r.path !== null && r.visitors.value !== null ? [r.path] : [])));
        const hiddenPaths = PATHS.filter((p) => viewers(p).length > 0 && !shownPaths.has(p));
        // The attacker's move: the day's pageviews − the shown pages' is the hidden pages' pageviews.
        const onHidden = (paths: string[]) => new Set(paths.flatMap(viewers)).size;
        const remainder = onHidden(hiddenPaths);
        if (day.pageviews.value !== null && hiddenPaths.length > 0)
          expect(
            remainder === 0 || remainder >= k,
            `day pageviews − shown pages' = the pageviews of ${remainder} session(s) on ${hiddenPaths.join(", ")}`,
          ).toBe(true);

        const explained = await explainHiddenPages(db.reader, scope);
        const big = hiddenPaths.filter((p) => viewers(p).length >= 2 * k);
        expect(explained.map((e) => e.cell).sort()).toEqual(big.sort());
        for (const e of explained) {
          stats.hidden2k++;
          if (e.rule === "cover") {
            const group = onHidden(hiddenPaths.filter((p) => p !== e.cell));
            expect(group, e.because).toBeGreaterThanOrEqual(e.group.atLeast!);
            expect(group, e.because).toBeLessThanOrEqual(e.group.atMost!);
            expect(e.group.atLeast!, `${e.because}: the rule proved the remainder safe`).toBeLessThan(k);
            if (group > 0 && group < k) stats.needed++;
            else stats.unprovable++;
          } else {
            expect(e.group.units! >= 1 && e.group.units! < k, e.because).toBe(true);
            stats.needed++;
          }
        }
      }),
      { numRuns: RUNS },
    );
    console.log(
      `U1: ${stats.hidden2k} hidden page-days of 2k units: ${stats.needed} needed, ${stats.unprovable} covers the rollup cannot prove unneeded`,
    );
  }, 120_000);

  /** The breakdown property's classes: 6 page journeys × 3 countries (null: none known). */
  const JOURNEYS = [["/a"], ["/b"], ["/a", "/b", "/a"], ["/a", "/b"], ["/b", "/a"], ["/b", "/a", "/b"]];
  const COUNTRIES = ["DE", "FR", null] as const;
  const classDays = fc.record({
    k: fc.constantFrom(2, 3),
    counts: fc.array(
      fc.integer({ min: 0, max: 6 }).map((n) => Math.max(0, n - 2)),
      {
        minLength: JOURNEYS.length * COUNTRIES.length,
        maxLength: JOURNEYS.length * COUNTRIES.length,
      },
    ),
  });

  it("U2: every hidden breakdown cell of 2k, shown alone, would let the exact attacker derive a small group", async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(classDays, async ({ k, counts }) => {
        const classes = counts.map((_, c) => ({
          views: JOURNEYS[c % JOURNEYS.length]!,
          country: COUNTRIES[Math.floor(c / JOURNEYS.length)]!,
        }));
        const events: RawEvent[] = [];
        classes.forEach(({ views, country }, c) => {
          for (let n = 0; n < counts[c]!; n++)
            views.forEach((path, i) =>
              events.push({
                site: SITE,
                session: `s${c}_${n}`,
                path,
                ts: Date.parse(`${DATE}T10:0${i}:00Z`),
                dims: i === 0 && country ? { country } : {},
              }),
            );
        });
        await load(db, events);
        const scope: ReportScope = { siteId: SITE, from: DATE, to: DATE, timeZone: "UTC", k };
        const members = (test: (c: (typeof classes)[number]) => boolean) => classes.flatMap((c, i) => (test(c) ? [i] : []));
        const units = (of: number[]) => of.reduce((n, i) => n + counts[i]!, 0);
        const facts: number[][] = [];
        const shown = (of: number[], figure: Figure) => {
          if (shownValue(figure) === null) return;
          expect(figure.value).toBe(units(of));
          facts.push(of);
        };
        const day = (await timeseriesReport(db.reader, scope, "day")).points[0]!;
        shown(
          members(() => true),
          day.visitors,
        );
        for (const r of (await pagesReport(db.reader, scope)).rows)
          if (r.path !== null)
            shown(
              members((c) => c.views.includes(r.path!)),
              r.visitors,
            );
        const cellsOf: Record<string, (value: string | null) => number[]> = {
          country: (v) => members((c) => c.country === v),
          entry_page: (v) => members((c) => (v === null ? false : c.views[0] === v)),
          exit_page: (v) => members((c) => (v === null ? false : c.views.at(-1) === v)),
        };
        const hiddenBig: { what: string; cell: string; of: number[] }[] = [];
        const valueOf: Record<string, (c: (typeof classes)[number]) => string | null> = {
          country: (c) => c.country,
          entry_page: (c) => c.views[0] ?? null,
          exit_page: (c) => c.views.at(-1) ?? null,
        };
        for (const [dimension, of] of Object.entries(cellsOf)) {
          // Hidden values are one `other` row (hidden-rows.ts): the attacker knows which values occur.
          const rows = (await breakdownReport(db.reader, scope, dimension as Dimension)).rows.filter((r) => !r.other);
          for (const r of rows) shown(of(r.value), r.visitors);
          const values = new Set(classes.filter((_, i) => counts[i]! > 0).map(valueOf[dimension]!));
          for (const value of values) {
            const row = rows.find((r) => r.value === value);
            if ((!row || row.visitors.value === null) && day.visitors.value !== null && units(of(value)) >= 2 * k)
              hiddenBig.push({
                what: `${dimension} ${value} (${units(of(value))})`,
                cell: `${dimension}:${value}`,
                of: of(value),
              });
          }
        }
        expect(smallGroups(classes.length, facts, counts, k), "the day as shown leaks nothing").toEqual([]);
        // Each is explained by the rule that hides it and the group it protects.
        const explained = [];
        for (const dimension of Object.keys(cellsOf))
          explained.push(...(await explainHiddenValues(db.reader, scope, dimension as Dimension)));
        expect(explained.map((e) => e.cell).sort()).toEqual(hiddenBig.map((c) => c.cell).sort());
        for (const e of explained)
          expect(e.rule === "cover" ? e.group.atMost! < k : e.group.units! > 0 && e.group.units! < k, e.because).toBe(true);
        for (const cell of hiddenBig) {
          checked++;
          expect(
            smallGroups(classes.length, [...facts, cell.of], counts, k, 1).length,
            `${cell.what} hidden though showing it derives no small group`,
          ).toBe(1);
        }
      }),
      { numRuns: RUNS },
    );
    console.log(`U2: ${checked} hidden breakdown cells of 2k units, each needed`);
  }, 120_000);

  it("U3: two pages, sessions without a pageview and a breakdown's rest pin no overlap", async () => {
    // Classes: /a only, /b only, both, and no pageview at all (an engagement beacon). Everyone
    // with a pageview has a country, so the country breakdown's rest is who sent none.
    const twoPages = fc.record({
      k: fc.constantFrom(2, 3, 4, 5),
      counts: fc.tuple(fc.nat(8), fc.nat(8), fc.nat(3), fc.nat(8)),
    });
    await fc.assert(
      fc.asyncProperty(twoPages, async ({ k, counts }) => {
        const journeys = [["/a"], ["/b"], ["/a", "/b"], []];
        const events: RawEvent[] = [];
        journeys.forEach((views, c) => {
          for (let n = 0; n < counts[c]!; n++) {
            const session = `s${c}_${n}`;
            if (views.length === 0)
              events.push({ site: SITE, session, path: "/a", kind: "engagement", ts: Date.parse(`${DATE}T10:00:00Z`) });
            views.forEach((path, i) =>
              events.push({ site: SITE, session, path, ts: Date.parse(`${DATE}T10:0${i}:00Z`), dims: { country: "DE" } }),
            );
          }
        });
        await load(db, events);
        const scope: ReportScope = { siteId: SITE, from: DATE, to: DATE, timeZone: "UTC", k };
        const facts: number[][] = [];
        const fact = (of: number[], figure: Figure) => {
          if (figure.value === null) return;
          expect(figure.value).toBe(of.reduce((n, c) => n + counts[c]!, 0));
          facts.push(of);
        };
        fact([0, 1, 2, 3], (await timeseriesReport(db.reader, scope, "day")).points[0]!.visitors);
        for (const r of (await pagesReport(db.reader, scope)).rows) fact(r.path === "/a" ? [0, 2] : [1, 2], r.visitors);
        for (const r of (await breakdownReport(db.reader, scope, "country")).rows)
          fact(r.value === "DE" ? [0, 1, 2] : [3], r.visitors);
        expect(smallGroups(4, facts, [...counts], k)).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
