/**
 * Each importer's fixture (test/fixtures/imports/), imported by the real runner, read back by the
 * real reports: every figure is what a hand computation gives after the k-filter
 * (docs/reports.md, "Imported days"). The hand computation below lists, per fixture, each day's
 * true cells that show (k and the complement cover decided by hand, the reasons in comments);
 * a period's figure is the sum of those cells, each perturbed by its own key. The key is
 * computed here from its definition (the cell's identity hash and the database's secret), not
 * read from the table, so the runner's SQL is checked too.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cellIdentityHash } from "../../worker/domain/imports/days";
import type { ImportSource } from "../../worker/domain/imports/model";
import { runImport } from "../../worker/domain/imports/run";
import { breakdownReport } from "../../worker/reports/breakdown";
import { IMPORTED_RULE } from "../../worker/reports/imported/rule";
import { shownCounts, type NoiseKey } from "../../worker/reports/noise";
import { pagesReport } from "../../worker/reports/pages";
import type { ReportScope } from "../../worker/reports/scope";
import { timeseriesReport } from "../../worker/reports/timeseries";
import { FIXTURES_DIR, GOATCOUNTER_CSV, PLAUSIBLE_ZIP, UMAMI_CSV } from "../fixtures/imports/generate";
import { noiseKey, openTestDb, type TestDb } from "./helpers";

const SITE = "site_import";
const NOW = Date.parse("2026-11-27T12:00:00Z");

/** A cell's key by its definition (worker/domain/imports/days.ts): the identity hash times the secret, mod 2^31 − 1, mod 2^16. */
function keyOf(key: NoiseKey, day: string, dimension: string, value: string): number {
  const hash = BigInt(cellIdentityHash(SITE, day, dimension, value));
  return Number((((hash % 2147483647n) * BigInt(key.secret)) % 2147483647n) % 65536n);
}

/** True counts of one shown cell on one day: [day, visitors, pageviews]. */
type ShownCell = readonly [day: string, visitors: number, pageviews: number];

interface HandComputed {
  source: ImportSource;
  file: string;
  timeZone: string;
  k: number;
  from: string;
  to: string;
  /** The days' totals (each day shown: every fixture day has at least k visitors). */
  days: readonly ShownCell[];
  /** Per report and value, the days its cell shows on; `other`: a value hidden on every day exists. */
  tables: Record<"page" | "source" | "country", { rows: Record<string, readonly ShownCell[]>; other: boolean }>;
}

const PLAUSIBLE: HandComputed = {
  source: "plausible",
  file: PLAUSIBLE_ZIP,
  timeZone: "UTC",
  k: 5,
  from: "2025-03-01",
  to: "2025-03-03",
  days: [
    ["2025-03-01", 41, 97],
    ["2025-03-02", 37, 80],
    ["2025-03-03", 52, 121],
  ],
  tables: {
    // Pages are never covered; /blog/hello (3 visitors on its only day) is hidden.
    page: {
      rows: {
        "/": [
          ["2025-03-01", 28, 45],
          ["2025-03-02", 24, 40],
          ["2025-03-03", 33, 60],
        ],
        "/pricing": [
          ["2025-03-01", 15, 30],
          ["2025-03-02", 11, 25],
          ["2025-03-03", 18, 40],
        ],
        "/docs": [
          ["2025-03-02", 9, 15],
          ["2025-03-03", 12, 21],
        ],
      },
      other: true,
    },
    // 1 March: Hacker News (4) is hidden and the cells add up to the day's 41, so the hidden rest
    // is 4 < k: the smallest shown source, newsletter (7), is hidden too. 2 and 3 March: none hidden.
    source: {
      rows: {
        "Direct / None": [
          ["2025-03-01", 12, 30],
          ["2025-03-02", 11, 25],
          ["2025-03-03", 17, 40],
        ],
        Google: [
          ["2025-03-01", 18, 40],
          ["2025-03-02", 16, 35],
          ["2025-03-03", 25, 60],
        ],
        newsletter: [["2025-03-02", 10, 20]],
        Lobsters: [["2025-03-03", 10, 21]],
      },
      other: true,
    },
    // 1 March: FR (3) is hidden, and 2 visitors have no country (41 − 39): the hidden rest is 5,
    // k or more, so nothing more is hidden.
    country: {
      rows: {
        DE: [
          ["2025-03-01", 20, 45],
          ["2025-03-02", 22, 47],
          ["2025-03-03", 30, 70],
        ],
        US: [
          ["2025-03-01", 16, 39],
          ["2025-03-02", 15, 33],
        ],
        GB: [["2025-03-03", 22, 51]],
      },
      other: true,
    },
  },
};

/** Umami's six sessions, read at the lowest k (2): the fixture's days are small. */
const UMAMI: HandComputed = {
  source: "umami",
  file: UMAMI_CSV,
  timeZone: "Europe/Berlin",
  k: 2,
  from: "2025-03-01",
  to: "2025-03-03",
  days: [
    ["2025-03-01", 6, 12],
    ["2025-03-02", 2, 4],
    ["2025-03-03", 2, 3],
  ],
  tables: {
    // 2 March's pages (1 visitor each) and 3 March's "/" are hidden; each shows on another day.
    page: {
      rows: {
        "/": [["2025-03-01", 4, 5]],
        "/blog/hello": [["2025-03-01", 2, 2]],
        "/pricing": [["2025-03-01", 3, 3]],
        "/signup": [["2025-03-01", 2, 2]],
        "/docs": [["2025-03-03", 2, 2]],
      },
      other: false,
    },
    // 1 March: no source below 2. DuckDuckGo and GitHub (1 each, on their days) never show.
    source: {
      rows: {
        "Direct / None": [["2025-03-01", 3, 4]],
        Google: [["2025-03-01", 2, 5]],
        "Hacker News": [["2025-03-01", 2, 3]],
      },
      other: true,
    },
    // 1 March: FR and GB hidden, 2 visitors together: no cover. IN never shows.
    country: {
      rows: {
        DE: [["2025-03-01", 2, 6]],
        US: [["2025-03-01", 2, 3]],
      },
      other: true,
    },
  },
};

/** GoatCounter's hits, read at k = 2. */
const GOATCOUNTER: HandComputed = {
  source: "goatcounter",
  file: GOATCOUNTER_CSV,
  timeZone: "UTC",
  k: 2,
  from: "2025-03-01",
  to: "2025-03-02",
  days: [
    ["2025-03-01", 4, 6],
    ["2025-03-02", 2, 2],
  ],
  tables: {
    page: {
      rows: {
        "/": [["2025-03-01", 3, 3]],
        "/about": [["2025-03-01", 2, 2]],
      },
      other: true,
    },
    // Every source is one visitor: all hidden, on both days (their rest, 4 and 2, is k or more).
    source: { rows: {}, other: true },
    // 1 March: GB and US hidden, 2 together. 2 March: NL hidden, with the visitor without a country (2).
    country: { rows: { DE: [["2025-03-01", 2, 2]] }, other: true },
  },
};

let db: TestDb | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
});

/** The figures a reader should see for a value: the sums of its shown cells, each perturbed by its key. */
function expectedRow(key: NoiseKey, k: number, dimension: string, value: string, cells: readonly ShownCell[]) {
  let visitors = 0;
  let pageviews = 0;
  for (const [day, units, events] of cells) {
    const shown = shownCounts({ units, events, keySum: keyOf(key, day, dimension, value) }, key, k, true);
    visitors += shown.units;
    pageviews += shown.events;
  }
  return {
    visitors: { value: visitors, qualifier: "estimated" },
    pageviews: { value: pageviews, qualifier: "estimated" },
  };
}

const sorted = <T extends { label: string }>(rows: T[]) => rows.sort((a, b) => (a.label < b.label ? -1 : 1));

describe.each([PLAUSIBLE, UMAMI, GOATCOUNTER])("$source's fixture, imported and read back", (hand) => {
  it("gives the hand-computed timeseries, pages, sources and countries after the k-filter", async () => {
    db = await openTestDb();
    await db.client.execute({
      sql: "INSERT INTO sites (id, name, domain, allowlist, timezone) VALUES (?, 'Imported', 'example.com', '[\"example.com\"]', ?)",
      args: [SITE, hand.timeZone],
    });
    const summary = await runImport(db.client, {
      siteId: SITE,
      source: hand.source,
      fileName: hand.file,
      bytes: new Uint8Array(readFileSync(join(FIXTURES_DIR, hand.file))),
      createdBy: "test",
      now: () => NOW,
    });
    expect([summary.daysImported, summary.firstDay, summary.lastDay]).toEqual([hand.days.length, hand.from, hand.to]);
    const key = await noiseKey(db.client);
    const scope: ReportScope = {
      siteId: SITE,
      from: hand.from,
      to: hand.to,
      timeZone: hand.timeZone,
      k: hand.k,
      noise: true,
      noiseKey: key,
      imported: IMPORTED_RULE,
    };

    const series = await timeseriesReport(db.reader, scope, "day");
    expect(series.points.map((p) => [p.local, p.visitors, p.pageviews])).toEqual(
      hand.days.map(([day, visitors, pageviews]) => {
        const shown = expectedRow(key, hand.k, "", "", [[day, visitors, pageviews]]);
        return [day, shown.visitors, shown.pageviews];
      }),
    );

    const pages = await pagesReport(db.reader, scope);
    expect(
      sorted(pages.rows.filter((r) => !r.other).map((r) => ({ label: r.path!, visitors: r.visitors, pageviews: r.pageviews }))),
    ).toEqual(
      sorted(
        Object.entries(hand.tables.page.rows).map(([path, cells]) => ({
          label: path,
          ...expectedRow(key, hand.k, "page", path, cells),
        })),
      ),
    );
    expect(pages.rows.some((r) => r.other)).toBe(hand.tables.page.other);

    for (const dimension of ["source", "country"] as const) {
      const report = await breakdownReport(db.reader, scope, dimension);
      expect(
        sorted(
          report.rows.filter((r) => !r.other).map((r) => ({ label: r.value!, visitors: r.visitors, pageviews: r.pageviews })),
        ),
      ).toEqual(
        sorted(
          Object.entries(hand.tables[dimension].rows).map(([value, cells]) => ({
            label: value,
            ...expectedRow(key, hand.k, dimension, value, cells),
          })),
        ),
      );
      // A hidden value is never named: only the one `other` row stands for them, all suppressed.
      expect(report.rows.filter((r) => r.other)).toEqual(
        hand.tables[dimension].other
          ? [expect.objectContaining({ value: null, other: true, visitors: { value: null, qualifier: "suppressed" } })]
          : [],
      );
    }
  });
});
