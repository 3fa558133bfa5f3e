/**
 * Comparisons' arithmetic without a stack (worker/reports/compare.ts): which earlier period a
 * period is compared with (weekdays aligned for `previous`, 29 February for `year`), the delta
 * and its qualifiers, and how table rows and timeseries points are matched.
 */
import { describe, expect, it } from "vitest";
import {
  compared,
  type Compared,
  compareFigures,
  comparePoints,
  compareRows,
  comparisonPeriod,
  delta,
  yearEarlier,
} from "../../worker/reports/compare";
import { SUPPRESSED, type Figure } from "../../worker/reports/figures";

const x = (value: number): Figure => ({ value, qualifier: "exact" });
const est = (value: number): Figure => ({ value, qualifier: "estimated" });
const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();

describe("comparisonPeriod", () => {
  it("previous, 7d: the 7 days before, same weekdays", () => {
    expect(comparisonPeriod({ from: "2026-11-14", to: "2026-11-20" }, "previous")).toEqual({
      from: "2026-11-07",
      to: "2026-11-13",
      days: 7,
    });
  });

  it("previous, day: the same weekday a week earlier (as Plausible's match_day_of_week), not the day before", () => {
    expect(comparisonPeriod({ from: "2026-11-20", to: "2026-11-20" }, "previous")).toEqual({
      from: "2026-11-13",
      to: "2026-11-13",
      days: 1,
    });
  });

  it("previous, 30d: 30 days starting 35 days earlier (whole weeks), never overlapping the period", () => {
    const p = comparisonPeriod({ from: "2026-10-22", to: "2026-11-20" }, "previous");
    expect(p).toEqual({ from: "2026-09-17", to: "2026-10-16", days: 30 });
    expect(weekday(p.from)).toBe(weekday("2026-10-22"));
    expect(p.to < "2026-10-22").toBe(true);
  });

  it("previous, custom from/to of 10 days: moved back 14 days, weekdays aligned", () => {
    const p = comparisonPeriod({ from: "2026-03-03", to: "2026-03-12" }, "previous");
    expect(p).toEqual({ from: "2026-02-17", to: "2026-02-26", days: 10 });
    expect(weekday(p.from)).toBe(weekday("2026-03-03"));
  });

  it("year: the same dates a year earlier, 29 February becoming 28 February", () => {
    expect(yearEarlier("2024-02-29")).toBe("2023-02-28");
    expect(yearEarlier("2026-11-20")).toBe("2025-11-20");
    expect(comparisonPeriod({ from: "2024-02-29", to: "2024-03-01" }, "year")).toEqual({
      from: "2023-02-28",
      to: "2023-03-01",
      days: 2,
    });
    expect(comparisonPeriod({ from: "2024-02-26", to: "2024-03-03" }, "year")).toEqual({
      from: "2023-02-26",
      to: "2023-03-03",
      days: 6,
    });
  });
});

describe("delta", () => {
  it("absolute and relative, exact when both sides are and the quotient is", () => {
    expect(delta(x(12), x(10))).toEqual({ absolute: x(2), relative: x(0.2) });
  });

  it("estimated when a side is, or when rounding changed the quotient", () => {
    expect(delta(est(12), x(10))).toEqual({ absolute: est(2), relative: est(0.2) });
    expect(delta(x(4), x(3))).toEqual({ absolute: x(1), relative: est(0.3333) });
  });

  it("suppressed when either side is; relative null when the earlier side is 0", () => {
    expect(delta(SUPPRESSED, x(10))).toEqual({ absolute: SUPPRESSED, relative: SUPPRESSED });
    expect(delta(x(10), SUPPRESSED)).toEqual({ absolute: SUPPRESSED, relative: SUPPRESSED });
    expect(delta(x(10), x(0))).toEqual({ absolute: x(10), relative: null });
    expect(delta(SUPPRESSED, x(0))).toEqual({ absolute: SUPPRESSED, relative: null });
  });

  it("a compared figure keeps its own fields (a band's high) and only value and qualifier of the earlier one", () => {
    expect(compared({ value: 10, qualifier: "estimated", high: 14 } as Figure, { ...x(5), extra: 1 } as Figure)).toEqual({
      value: 10,
      qualifier: "estimated",
      high: 14,
      previous: x(5),
      delta: { absolute: est(5), relative: est(1) },
    });
  });
});

describe("matching", () => {
  type Row = { path: string | null; visitors: Figure };
  const key = (r: Row) => r.path ?? "\u0000other";

  it("rows by key; a row the earlier table lacks reads the absent figure (suppressed: it may be hidden there)", () => {
    const rows = compareRows<Row>(
      [
        { path: "/", visitors: x(20) },
        { path: "/new", visitors: x(6) },
        { path: null, visitors: SUPPRESSED },
      ],
      [
        { path: null, visitors: SUPPRESSED },
        { path: "/", visitors: x(10) },
        { path: "/gone", visitors: x(9) },
      ],
      key,
      ["visitors"],
      SUPPRESSED,
    );
    expect(rows).toEqual([
      { path: "/", visitors: { ...x(20), previous: x(10), delta: { absolute: x(10), relative: x(1) } } },
      { path: "/new", visitors: { ...x(6), previous: SUPPRESSED, delta: { absolute: SUPPRESSED, relative: SUPPRESSED } } },
      { path: null, visitors: { ...SUPPRESSED, previous: SUPPRESSED, delta: { absolute: SUPPRESSED, relative: SUPPRESSED } } },
    ]);
  });

  it("an absent optional figure stays absent", () => {
    expect(compareFigures<{ a: Figure; b?: Figure }>({ a: x(1) }, { a: x(1) }, ["a", "b"], SUPPRESSED)).toEqual({
      a: { ...x(1), previous: x(1), delta: { absolute: x(0), relative: x(0) } },
    });
  });

  it("timeseries points by counterpart date, hours by the same local hour", () => {
    const pt = (local: string, v: number) => ({ local, visitors: x(v) });
    const days = comparePoints(
      [pt("2026-11-19", 3), pt("2026-11-20", 4)],
      [pt("2026-11-12", 1), pt("2026-11-13", 2)],
      "previous",
      2,
      ["visitors"],
    );
    expect(days.map((p) => [p.previous_date, (p.visitors as Compared).previous])).toEqual([
      ["2026-11-12", x(1)],
      ["2026-11-13", x(2)],
    ]);
    const hours = comparePoints([pt("2024-02-29T10:00", 5)], [pt("2023-02-28T09:00", 1), pt("2023-02-28T10:00", 2)], "year", 1, [
      "visitors",
    ]);
    expect(hours[0]!.previous_date).toBe("2023-02-28T10:00");
    expect((hours[0]!.visitors as Compared).previous).toEqual(x(2));
    const skipped = comparePoints([pt("2026-03-29T02:00", 5)], [], "previous", 1, ["visitors"]);
    expect(skipped[0]).toEqual({
      local: "2026-03-29T02:00",
      visitors: { ...x(5), previous: x(0), delta: { absolute: x(5), relative: null } },
      previous_date: null,
    });
  });
});
