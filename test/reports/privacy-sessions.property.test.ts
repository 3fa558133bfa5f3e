/**
 * Property test of the sessions list (docs/api.md "Sessions"; issue 36 item 4): visitors enter
 * on a few pages in a few hours of a day, and an attacker adds sybil sessions of its own on a
 * page and hour it chooses (so it knows exactly how many of each cell are its own). The real
 * rollup and publication run; the attacker walks the whole list as the API serves it (noise on)
 * and takes every exact count it can read off it — a figure marked exact, or, from a list of
 * one row per session, the rows of a day, an hour or an entry page — and subtracts its own
 * sessions. No such exact count may be of a cell the reports perturb or hide (the daily and
 * hourly timeseries, the entry-page breakdown), and every figure the list shows must be the one
 * the reports show for that cell; a hidden cell is not named at all.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { breakdownReport } from "../../worker/reports/breakdown";
import type { Figure } from "../../worker/reports/figures";
import { publishStatement } from "../../worker/reports/publication";
import { catchUp } from "../../worker/reports/rollup";
import { listPublishedSessions } from "../../worker/reports/sessions-list";
import { timeseriesReport } from "../../worker/reports/timeseries";
import { addEvents, addSite, clearData, noiseKey, openTestDb, type TestDb } from "./helpers";

const SITE = "site_sessions_attack";
const DAY = "2026-11-02";
const PATHS = ["/a", "/b", "/c"];
const HOURS = [9, 10, 11];
/** Published through two days later: the day is final. */
const PUBLISHED_THROUGH = Date.parse("2026-11-04T00:00:00Z");

interface Group {
  sybil: boolean;
  sessions: number;
  path: number;
  hour: number;
}

const groups = fc.integer({ min: 3, max: 5 }).chain((k) =>
  fc.record({
    k: fc.constant(k),
    groups: fc
      .tuple(
        fc.array(
          fc.record({
            sybil: fc.constant(false),
            sessions: fc.integer({ min: 1, max: k + 2 }),
            path: fc.nat(2),
            hour: fc.nat(2),
          }),
          {
            minLength: 1,
            maxLength: 5,
          },
        ),
        fc.record({ sybil: fc.constant(true), sessions: fc.integer({ min: 1, max: k }), path: fc.nat(2), hour: fc.nat(2) }),
      )
      .map(([visitors, sybils]) => [...visitors, sybils] as Group[]),
  }),
);

/** Each session views one page once (its entry page), as the collector stores it, with its sessions row. */
async function load(db: TestDb, data: Group[]): Promise<void> {
  await clearData(db.client);
  await addSite(db.client, SITE);
  const rows = data.flatMap((g, gi) =>
    Array.from({ length: g.sessions }, (_, i) => ({
      id: `${g.sybil ? "sybil" : "visitor"}-${gi}-${i}`,
      path: PATHS[g.path]!,
      ts: Date.parse(`${DAY}T${String(HOURS[g.hour]).padStart(2, "0")}:10:00Z`) + gi * 1000 + i,
    })),
  );
  await addEvents(
    db.client,
    rows.map((r) => ({ site: SITE, session: r.id, path: r.path, ts: r.ts })),
  );
  await db.client.batch(
    rows.map((r) => ({
      sql: "INSERT INTO sessions (id, site_id, first_seen, last_seen, entry_path) VALUES (?, ?, ?, ?, ?)",
      args: [r.id, SITE, r.ts, r.ts, r.path],
    })),
    "write",
  );
  await catchUp(db.client as never);
  await db.client.execute(publishStatement(PUBLISHED_THROUGH, PUBLISHED_THROUGH));
}

/** A cell of the day: the day itself, an hour (its start instant) or an entry page. */
type Cell = string;
const dayCell = "day";
const hourCell = (iso: string) => `hour ${iso}`;
const entryCell = (path: string) => `entry ${path}`;

/**
 * Every exact count the attacker reads off a listing: figures marked exact, and row counts when
 * the list has one row per session (`sessions`: what it listed before issue 36).
 */
function exactCounts(listing: Record<string, unknown>[]): Map<Cell, number> {
  const out = new Map<Cell, number>();
  const add = (cell: Cell, n: number) => out.set(cell, (out.get(cell) ?? 0) + n);
  for (const item of listing) {
    if ("sessions" in item && typeof item.sessions === "object" && item.sessions !== null) {
      const day = item as {
        sessions: Figure;
        hours: { hour: string; sessions: Figure }[];
        entry_pages: { path: string; sessions: Figure }[];
      };
      if (day.sessions.qualifier === "exact") add(dayCell, day.sessions.value!);
      for (const h of day.hours) if (h.sessions.qualifier === "exact") add(hourCell(h.hour), h.sessions.value!);
      for (const e of day.entry_pages) if (e.sessions.qualifier === "exact") add(entryCell(e.path), e.sessions.value!);
    } else {
      // One row per session: each row counts once in its day, its hour and its entry page.
      const row = item as { hour: string | null; entry_path: string | null };
      add(dayCell, 1);
      if (row.hour) add(hourCell(row.hour), 1);
      if (row.entry_path) add(entryCell(row.entry_path), 1);
    }
  }
  return out;
}

/** What the reports show of each cell of the day (noise on, as the API reads them). */
async function reportFigures(db: TestDb, k: number): Promise<Map<Cell, Figure>> {
  const scope = { siteId: SITE, from: DAY, to: DAY, timeZone: "UTC", k, noise: true, noiseKey: await noiseKey(db.client) };
  const out = new Map<Cell, Figure>();
  out.set(dayCell, (await timeseriesReport(db.reader, scope, "day")).points[0]!.visitors);
  for (const p of (await timeseriesReport(db.reader, scope, "hour")).points) out.set(hourCell(p.start), p.visitors);
  for (const r of (await breakdownReport(db.reader, scope, "entry_page")).rows)
    if (r.value !== null) out.set(entryCell(r.value), r.visitors);
  return out;
}

/** The cells the sybils are in, and how many of them each holds. */
function ownSessions(data: Group[]): Map<Cell, number> {
  const own = new Map<Cell, number>();
  for (const g of data.filter((x) => x.sybil)) {
    const hour = new Date(Date.parse(`${DAY}T${String(HOURS[g.hour]).padStart(2, "0")}:00:00Z`)).toISOString();
    for (const cell of [dayCell, hourCell(hour), entryCell(PATHS[g.path]!)]) own.set(cell, (own.get(cell) ?? 0) + g.sessions);
  }
  return own;
}

describe("the sessions list under attack: sybils subtracted from what it lists", () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb();
  });
  afterAll(() => db?.close());

  it("gives no exact count of a cell the reports perturb or hide, and only the reports' figures", async () => {
    await fc.assert(
      fc.asyncProperty(groups, async ({ k, groups: data }) => {
        await load(db, data);
        const listing: Record<string, unknown>[] = [];
        let after: string | undefined;
        for (let page = 0; page < 100; page++) {
          const result = (await listPublishedSessions(db.reader, SITE, {
            limit: 2,
            after,
            k,
            retentionDays: 30,
            now: PUBLISHED_THROUGH,
          })) as unknown as Record<string, unknown>;
          listing.push(...((result.days ?? result.sessions) as Record<string, unknown>[]));
          const next = result.next as string | { day: string; offset: number } | null;
          if (!next) break;
          after = next as string;
        }
        const reports = await reportFigures(db, k);
        const own = ownSessions(data);
        const leaks: string[] = [];
        for (const [cell, count] of exactCounts(listing)) {
          const shown = reports.get(cell);
          if (shown?.qualifier === "exact") continue; // the reports show it exactly too
          leaks.push(
            `${cell}: ${count} exact − ${own.get(cell) ?? 0} own = ${count - (own.get(cell) ?? 0)} (reports: ${shown?.qualifier ?? "not shown"} ${shown?.value ?? ""})`,
          );
        }
        // Every figure listed is the reports' figure of that cell; a hidden cell is not named.
        for (const item of listing.filter((i) => "entry_pages" in i)) {
          const day = item as {
            sessions: Figure;
            hours: { hour: string; sessions: Figure }[];
            entry_pages: { path: string; sessions: Figure }[];
          };
          const listed: [Cell, Figure][] = [
            [dayCell, day.sessions],
            ...day.hours.map((h): [Cell, Figure] => [hourCell(h.hour), h.sessions]),
            ...day.entry_pages.map((e): [Cell, Figure] => [entryCell(e.path), e.sessions]),
          ];
          for (const [cell, figure] of listed) {
            if (JSON.stringify(figure) !== JSON.stringify(reports.get(cell)))
              leaks.push(`${cell}: listed ${JSON.stringify(figure)}, reports ${JSON.stringify(reports.get(cell))}`);
            if (cell !== dayCell && figure.value === null) leaks.push(`${cell}: a hidden cell named`);
          }
        }
        expect(leaks).toEqual([]);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
