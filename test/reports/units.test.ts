/** The reports' pure parts: privacy rules, figures, periods, time zones, histograms, pagination, formats. */
import { describe, expect, it } from "vitest";
import { HttpProblem } from "../../worker/lib/problem";
import { difference, ratio, SUPPRESSED, type Figure } from "../../worker/reports/figures";
import { flatten, negotiate, toCsv, toNdjson } from "../../worker/reports/format";
import { BUCKET_EDGES, percentileFromBucket, quantileRange } from "../../worker/reports/histogram";
import { decodeCursor, encodeCursor, paginate } from "../../worker/reports/list";
import { pathFilter } from "../../worker/reports/pattern";
import { resolvePeriod } from "../../worker/reports/period";
import {
  additiveFigure,
  closingHours,
  COVER_RULE,
  emptyHoursShown,
  complementSafe,
  coverHiddenRemainder,
  distinctFigure,
  funnelStepsVisible,
  kAnonymity,
  pathGoalsVisible,
  type PartitionCell,
  type PathGoalDay,
} from "../../worker/reports/privacy";
import { canonicalTimeZone, offsetAt, offsetSegments, offsetSql, startOfLocalDay } from "../../worker/reports/timezone";

const x = (value: number): Figure => ({ value, qualifier: "exact" });
const est = (value: number): Figure => ({ value, qualifier: "estimated" });

describe("privacy rules", () => {
  it("k from WREN_K_ANONYMITY: default 5, never below 2", () => {
    expect([undefined, null, "", " ", "abc", "2.5"].map(kAnonymity)).toEqual([5, 5, 5, 5, 5, 5]);
    expect(["1", "0", "-4", "2", "7", " 10 "].map(kAnonymity)).toEqual([2, 2, 2, 2, 7, 10]);
  });

  it("a complement is safe when it is empty or holds k", () => {
    expect([
      complementSafe(10, 10, 5),
      complementSafe(10, 6, 5),
      complementSafe(10, 5, 5),
      complementSafe(10, 4, 5),
      complementSafe(3, 7, 5),
    ]).toEqual([true, false, true, true, true]);
  });

  it("covers a small hidden remainder with the smallest visible cell", () => {
    const cells = (...spec: [string, number, number, boolean][]): PartitionCell[] =>
      spec.map(([key, units, value, visible]) => ({ key, units, value, visible }));
    const a = cells(["a", 9, 20, true], ["b", 6, 8, true], ["c", 6, 7, true], ["d", 2, 3, false]);
    coverHiddenRemainder(a, 5);
    expect(a.map((c) => c.visible)).toEqual([true, true, false, false]);
    // Already covered: a hidden cell holds k units.
    const b = cells(["a", 9, 20, true], ["b", 6, 8, false], ["d", 2, 3, false]);
    coverHiddenRemainder(b, 5);
    expect(b.map((c) => c.visible)).toEqual([true, false, false]);
    // Nothing hidden: nothing to cover.
    const c = cells(["a", 9, 20, true]);
    coverHiddenRemainder(c, 5);
    expect(c[0]!.visible).toBe(true);
  });

  it("decides hours as they close: every hour of k units at once, the day's first too", () => {
    const hours = (...units: number[]) => units.map((u) => ({ units: u }));
    const decide = (units: number[], day: { visible: boolean; units: number } | null) =>
      closingHours(hours(...units), 5, day, emptyHoursShown(hours(...units), 5, day));
    // While the day runs: an empty hour before any hour of k units is suppressed like a small one;
    // 9:00 (6), the first hour of k, is shown as it closes.
    expect(decide([0, 2, 6, 0, 7], null)).toEqual(["hidden", "hidden", "shown", "zero", "shown"]);
    // The day ended shown: what was shown stays, the early empty hour turns 0, the small hour stays hidden.
    expect(decide([0, 2, 6, 0, 7], { visible: true, units: 14 })).toEqual(["zero", "hidden", "shown", "zero", "shown"]);
    expect(decide([0, 6, 7], { visible: true, units: 12 })).toEqual(["zero", "shown", "shown"]);
    // A hidden day keeps what it showed and suppresses the rest: it is the day that hides.
    expect(decide([0, 6, 7], { visible: false, units: 12 })).toEqual(["hidden", "shown", "shown"]);
    expect(decide([0, 6], { visible: true, units: 8 })).toEqual(["zero", "shown"]);
    // A day without data shows zeros; a small day shows nothing.
    expect(decide([0, 0], { visible: true, units: 0 })).toEqual(["zero", "zero"]);
    expect(decide([0, 3], { visible: false, units: 3 })).toEqual(["hidden", "hidden"]);
    // A goal's empty hours follow the site's: 0 from the site's first hour of k on, whatever the goal's own data.
    expect(closingHours(hours(0, 0, 1), 5, null, emptyHoursShown(hours(0, 6, 7), 5, null))).toEqual(["hidden", "zero", "hidden"]);
    // What the running day decided, the ended day decides alike, for every hour it showed.
    const running = decide([1, 8, 0, 9, 3], null);
    const ended = decide([1, 8, 0, 9, 3], { visible: true, units: 19 });
    running.forEach((d, i) => {
      if (d !== "hidden") expect(ended[i]).toBe(d);
    });
  });

  it("keeps the cover rule for the days published under it: the day's first hour of k held back until the day ends", () => {
    const hours = (...units: number[]) => units.map((u) => ({ units: u }));
    const decide = (units: number[], day: { visible: boolean; units: number } | null) =>
      closingHours(hours(...units), 5, day, emptyHoursShown(hours(...units), 5, day), COVER_RULE);
    expect(decide([0, 2, 6, 0, 7], null)).toEqual(["hidden", "hidden", "hidden", "zero", "shown"]);
    // The day ended shown with a small hour hidden: the cover stays hidden, so the hidden hours hold 6 ≥ k units.
    expect(decide([0, 2, 6, 0, 7], { visible: true, units: 14 })).toEqual(["zero", "hidden", "hidden", "zero", "shown"]);
    // Nothing small: the cover is shown at the day's end, every hour being shown.
    expect(decide([0, 6, 7], { visible: true, units: 12 })).toEqual(["zero", "shown", "shown"]);
    expect(decide([0, 6, 7], { visible: false, units: 12 })).toEqual(["hidden", "hidden", "shown"]);
    // The cover differs from the day by 2 < k: it stays hidden.
    expect(decide([0, 6], { visible: true, units: 8 })).toEqual(["zero", "hidden"]);
  });

  it("funnel steps: the previous step, k units, every coarser funnel, and each step's own goal", () => {
    // Masks: 1 = a, 2 = b, 4 = c (each goal's day atom), 3 = a→b, 5 = a→c, 6 = b→c, 7 = a→b→c.
    const units: Record<number, number> = { 1: 12, 2: 6, 4: 6, 3: 6, 5: 6, 6: 6, 7: 6 };
    expect(funnelStepsVisible((m) => units[m]!, 3, true, 5)).toEqual([true, true, true]);
    expect(funnelStepsVisible((m) => ({ ...units, 5: 8 })[m]!, 3, true, 5)).toEqual([true, true, false]);
    expect(funnelStepsVisible((m) => units[m]!, 3, false, 5)).toEqual([false, false, false]);
    expect(funnelStepsVisible((m) => ({ ...units, 3: 4 })[m]!, 3, true, 5)).toEqual([true, false, false]);
    // Checkout (b) converting 8, pricing → checkout 6: 2 checked out without pricing.
    expect(funnelStepsVisible((m) => ({ ...units, 2: 8 })[m]!, 3, true, 5)).toEqual([true, false, false]);
    // A funnel that does not start at step 1 (b → c, 9) holds the 6 of a → b → c too.
    expect(funnelStepsVisible((m) => ({ ...units, 6: 9 })[m]!, 3, true, 5)).toEqual([true, true, false]);
  });

  it("page goals: shown unions of page-days stay nested or disjoint, with safe differences and overlaps", () => {
    const pages = (spec: Record<string, [number, boolean]>) =>
      new Map(Object.entries(spec).map(([path, [units, visible]]) => [path, { units, visible }]));
    const page = (paths: string[], units: number, visible = true): PathGoalDay => ({
      kind: "page",
      threshold: 0,
      paths: new Set(paths),
      units,
      visible,
    });
    // /home 10, /sale 6, /secret 1 (k = 5): the pages report hides /secret and its cover /sale.
    const day = pages({ "/home": [10, true], "/sale": [6, false], "/secret": [1, false] });
    // Goal /sale (6) alone is a union of one hidden page-day of 6: shown. /s* (7) − /sale = 1: hidden.
    expect(pathGoalsVisible(day, [page(["/sale"], 6), page(["/sale", "/secret"], 7)], 5)).toEqual([true, false]);
    // /s* alone: nothing inside it is shown, nothing crosses it.
    expect(pathGoalsVisible(day, [page(["/sale", "/secret"], 7)], 5)).toEqual([true]);
    // * (all three, 16) minus the visible /home (10) is 6: shown; with /secret's session on /home too, 17 − 10 = 7.
    expect(pathGoalsVisible(day, [page(["/home", "/sale", "/secret"], 16)], 5)).toEqual([true]);
    expect(pathGoalsVisible(day, [page(["/home", "/secret"], 11)], 5)).toEqual([false]);
    // Two visible pages that make up a goal: |A ∩ B| = 10 + 8 − 16 = 2 is a small group.
    const two = pages({ "/a": [10, true], "/b": [8, true] });
    expect(pathGoalsVisible(two, [page(["/a", "/b"], 16)], 5)).toEqual([false]);
    expect(pathGoalsVisible(two, [page(["/a", "/b"], 18)], 5)).toEqual([true]);
    expect(pathGoalsVisible(pages({ "/a": [10, true], "/b": [10, true] }), [page(["/a", "/b"], 15)], 5)).toEqual([true]);
    // Crossing goals: the later one is hidden, whatever the counts.
    const three = pages({ "/a": [1, false], "/b": [1, false], "/c": [1, false] });
    expect(pathGoalsVisible(three, [page(["/a", "/b"], 20), page(["/b", "/c"], 20)], 5)).toEqual([true, false]);
    // A goal inserted under a parent it now makes up with one sibling: the parent's overlap is checked too.
    const four = pages({ "/a": [1, false], "/b": [1, false], "/c": [1, false] });
    expect(pathGoalsVisible(four, [page(["/a", "/b", "/c"], 20), page(["/a", "/b"], 10), page(["/c"], 12)], 5)).toEqual([
      true,
      true,
      false,
    ]);
    expect(pathGoalsVisible(four, [page(["/a", "/b", "/c"], 20), page(["/a", "/b"], 10), page(["/c"], 10)], 5)).toEqual([
      true,
      true,
      true,
    ]);
    // A goal the base rules hide takes no part.
    expect(pathGoalsVisible(day, [page(["/sale"], 6, false), page(["/sale", "/secret"], 7)], 5)).toEqual([false, true]);
    // Time and scroll goals: against the smallest shown node containing their paths, and nested goals of their kind.
    const time = (paths: string[], threshold: number, units: number): PathGoalDay => ({
      kind: "time",
      threshold,
      paths: new Set(paths),
      units,
      visible: true,
    });
    expect(pathGoalsVisible(day, [time(["/home"], 30, 8)], 5)).toEqual([false]);
    // ≥ 60 s on /home is inside ≥ 30 s on /home: 7 − 5 = 2 sessions stayed 30 to 60 s.
    expect(pathGoalsVisible(day, [time(["/home"], 30, 7), time(["/home"], 60, 5)], 3)).toEqual([true, false]);
    expect(pathGoalsVisible(day, [time(["/home"], 30, 7), time(["/home"], 60, 4)], 3)).toEqual([true, true]);
    expect(pathGoalsVisible(day, [page(["/sale", "/secret"], 7), time(["/secret"], 30, 5)], 2)).toEqual([true, true]);
    expect(pathGoalsVisible(day, [page(["/sale", "/secret"], 7), time(["/secret"], 30, 6)], 2)).toEqual([true, false]);
  });

  it("lets at most two shown path goals a day read a page-day the pages report hides", () => {
    const page = (paths: string[], units: number): PathGoalDay => ({
      kind: "page",
      threshold: 0,
      paths: new Set(paths),
      units,
      visible: true,
    });
    // The attack: /secret (2 victims, hidden) inside nested goals padded by 3, 8, 13, … own sessions.
    const day = new Map([["/secret", { units: 2, visible: false }]]);
    const sybilPaths = ["/secretA", "/secreB", "/secrC", "/secD", "/seE", "/sF"];
    sybilPaths.forEach((p, i) => day.set(p, { units: i === 0 ? 3 : 5, visible: i !== 0 }));
    const nested = sybilPaths.map((_, i) => page(["/secret", ...sybilPaths.slice(0, i + 1)], 2 + 3 + 5 * i));
    expect(pathGoalsVisible(day, nested, 5)).toEqual([true, true, false, false, false, false]);
    // A time goal over the hidden page is a reading too (time and scroll goals are decided after the page goals).
    const time: PathGoalDay = { kind: "time", threshold: 30, paths: new Set(["/secret", "/secretA"]), units: 5, visible: true };
    expect(pathGoalsVisible(day, [nested[0]!, time, nested[1]!], 5)).toEqual([true, false, true]);
    expect(pathGoalsVisible(day, [nested[0]!, time], 5)).toEqual([true, true]);
    // Goals that hold no hidden page-day are not counted.
    expect(pathGoalsVisible(day, [page(["/secreB"], 5), page(["/secrC"], 5), nested[0]!, nested[1]!], 5)).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it("builds figures from the visible atoms", () => {
    expect(additiveFigure({ sum: 0, visible: 0, hidden: 0 })).toEqual(x(0));
    expect(additiveFigure({ sum: 0, visible: 0, hidden: 2 })).toEqual(SUPPRESSED);
    expect(additiveFigure({ sum: 12, visible: 3, hidden: 0 })).toEqual(x(12));
    expect(additiveFigure({ sum: 12, visible: 3, hidden: 1 })).toEqual(est(12));
    expect(distinctFigure({ sum: 12, visible: 1, hidden: 0 })).toEqual(x(12));
    expect(distinctFigure({ sum: 12, visible: 3, hidden: 0 })).toEqual(est(12));
  });

  it("ratios and differences keep the weakest qualifier", () => {
    expect(ratio(x(3), x(12))).toEqual(x(0.25));
    expect(ratio(est(3), x(12))).toEqual(est(0.25));
    expect(ratio(x(3), SUPPRESSED)).toEqual(SUPPRESSED);
    expect(ratio(x(0), x(0))).toEqual(x(0));
    expect(ratio(x(7), x(5))).toEqual(est(1));
    expect(difference(x(9), est(4))).toEqual(est(5));
    expect(difference(x(9), SUPPRESSED)).toEqual(SUPPRESSED);
  });
});

describe("periods", () => {
  const now = Date.parse("2026-11-21T10:00:00Z");
  const problem = (f: () => unknown) => {
    try {
      f();
    } catch (error) {
      if (error instanceof HttpProblem) return [error.status, error.extra.field];
      throw error;
    }
    return null;
  };

  it("ends yesterday in the site's zone by default", () => {
    expect(resolvePeriod({}, "UTC", now)).toEqual({ from: "2026-10-22", to: "2026-11-20", days: 30, timeZone: "UTC" });
    expect(resolvePeriod({ period: "7d" }, "UTC", now)).toMatchObject({ from: "2026-11-14", to: "2026-11-20", days: 7 });
    expect(resolvePeriod({ period: "day", date: "2026-11-02" }, "UTC", now)).toMatchObject({
      from: "2026-11-02",
      to: "2026-11-02",
      days: 1,
    });
    // 10:00 UTC is already the 22nd in Kiritimati (UTC+14): yesterday there is the 21st.
    expect(resolvePeriod({ period: "day" }, "Pacific/Kiritimati", now)).toMatchObject({ from: "2026-11-21", to: "2026-11-21" });
    expect(resolvePeriod({ from: "2026-01-01", to: "2026-01-31", tz: "utc" }, "UTC", now)).toMatchObject({ days: 31 });
  });

  it("refuses today, another zone, inverted and overlong ranges, and mixed forms", () => {
    expect(problem(() => resolvePeriod({ from: "2026-11-20", to: "2026-11-21" }, "UTC", now))).toEqual([422, "to"]);
    expect(problem(() => resolvePeriod({ date: "2026-11-21" }, "UTC", now))).toEqual([422, "date"]);
    expect(problem(() => resolvePeriod({ tz: "Europe/Paris" }, "Europe/Berlin", now))).toEqual([422, "tz"]);
    expect(problem(() => resolvePeriod({ from: "2026-11-10", to: "2026-11-01" }, "UTC", now))).toEqual([400, "to"]);
    expect(problem(() => resolvePeriod({ from: "2024-01-01", to: "2026-11-01" }, "UTC", now))).toEqual([400, "from"]);
    expect(problem(() => resolvePeriod({ from: "2026-11-01" }, "UTC", now))).toEqual([400, "to"]);
    expect(problem(() => resolvePeriod({ period: "7d", from: "2026-11-01", to: "2026-11-02" }, "UTC", now))).toEqual([
      400,
      "period",
    ]);
  });
});

describe("time zones", () => {
  it("knows IANA names, canonically", () => {
    expect(["UTC", "utc", "Europe/Berlin", "europe/berlin", "Nowhere/City", "", "../etc"].map(canonicalTimeZone)).toEqual([
      "UTC",
      "UTC",
      "Europe/Berlin",
      "Europe/Berlin",
      null,
      null,
      null,
    ]);
  });

  it("finds the offsets and the instant they change", () => {
    const segments = offsetSegments("Europe/Berlin", Date.parse("2026-10-20T00:00:00Z"), Date.parse("2026-10-30T00:00:00Z"));
    expect(segments).toEqual([
      { until: Date.parse("2026-10-25T01:00:00Z"), offset: 7_200_000 },
      { until: null, offset: 3_600_000 },
    ]);
    expect(offsetSql(segments, "ts")).toBe(
      `(CASE WHEN ts < ${Date.parse("2026-10-25T01:00:00Z")} THEN 7200000 ELSE 3600000 END)`,
    );
    expect(offsetAt("Asia/Kathmandu", Date.parse("2026-11-02T00:00:00Z"))).toBe(20_700_000);
    expect(startOfLocalDay("America/Sao_Paulo", "2026-11-02")).toBe(Date.parse("2026-11-02T03:00:00Z"));
  });
});

describe("vitals histogram", () => {
  it("has edges on the thresholds' scale and estimates p75 inside a bucket", () => {
    expect(BUCKET_EDGES.LCP[0]).toBe(1);
    expect(BUCKET_EDGES.LCP.at(-1)).toBeGreaterThanOrEqual(120_000);
    for (const edges of Object.values(BUCKET_EDGES))
      for (let i = 1; i < edges.length; i++) expect(edges[i]! / edges[i - 1]!).toBeLessThan(1.13);
    const b = BUCKET_EDGES.LCP.findIndex((e) => e >= 5000);
    const estimate = percentileFromBucket("LCP", b, 8, 1, 12);
    expect(estimate).toBeGreaterThan(BUCKET_EDGES.LCP[b - 1]!);
    expect(estimate).toBeLessThanOrEqual(BUCKET_EDGES.LCP[b]!);
    expect(percentileFromBucket("CLS", 0, 0, 4, 4)).toBe(0);
  });

  it("shows p75 as the range of its block of the fixed grid, and as a value only at level 0", () => {
    const est = (value: number) => ({ value, qualifier: "estimated" });
    // 3,100 ms is in bucket 71 (2,788–3,122 ms).
    const rank = { bucket: 71, below: 5, n: 1, total: 7 };
    expect(quantileRange("LCP", rank, null)).toEqual({ p75: SUPPRESSED, p75_low: SUPPRESSED, p75_high: SUPPRESSED });
    expect(quantileRange("LCP", rank, 0)).toEqual({ p75: est(percentileFromBucket("LCP", 71, 5, 1, 7)), p75_low: est(2788), p75_high: est(3122) });
    // Level 1: buckets 70–71; level 3: 64–71; the block is aligned whatever the rank's place in it.
    expect(quantileRange("LCP", rank, 1)).toEqual({ p75: SUPPRESSED, p75_low: est(2489), p75_high: est(3122) });
    expect(quantileRange("LCP", rank, 3)).toEqual({ p75: SUPPRESSED, p75_low: est(1261), p75_high: est(3122) });
    expect(quantileRange("LCP", { ...rank, bucket: 64 }, 3)).toEqual(quantileRange("LCP", rank, 3));
    // Bucket 0 starts at 0; the buckets above the last edge read at it.
    expect(quantileRange("LCP", { ...rank, bucket: 0 }, 2).p75_low).toEqual(est(0));
    expect(quantileRange("LCP", { ...rank, bucket: 100 }, 6).p75_high).toEqual(est(Math.round(BUCKET_EDGES.LCP.at(-1)!)));
    expect(quantileRange("CLS", { ...rank, bucket: 40 }, 1)).toEqual({ p75: SUPPRESSED, p75_low: est(0.008308), p75_high: est(0.01042) });
  });
});

describe("pagination", () => {
  const rows = [
    { path: "/a", v: 5 },
    { path: "/b", v: null },
    { path: "/c", v: 9 },
    { path: "/d", v: 5 },
    { path: "/e", v: 1 },
  ];
  it("sorts with suppressed values last and ties by key, and continues after the cursor", () => {
    const first = paginate(
      rows,
      (r) => r.v,
      (r) => r.path,
      "desc",
      2,
    );
    expect(first.rows.map((r) => r.path)).toEqual(["/c", "/a"]);
    const second = paginate(
      rows,
      (r) => r.v,
      (r) => r.path,
      "desc",
      2,
      decodeCursor(first.next_cursor!)!,
    );
    expect(second.rows.map((r) => r.path)).toEqual(["/d", "/e"]);
    const third = paginate(
      rows,
      (r) => r.v,
      (r) => r.path,
      "desc",
      2,
      decodeCursor(second.next_cursor!)!,
    );
    expect(third).toEqual({ rows: [{ path: "/b", v: null }], next_cursor: null });
    expect(
      paginate(
        rows,
        (r) => r.v,
        (r) => r.path,
        "asc",
        undefined,
      ).rows.map((r) => r.path),
    ).toEqual(["/e", "/a", "/d", "/c", "/b"]);
  });

  it("round-trips cursors and refuses anything else", () => {
    expect(decodeCursor(encodeCursor({ value: '/ü,"x"', key: "k" }))).toEqual({ value: '/ü,"x"', key: "k" });
    expect(decodeCursor(encodeCursor({ value: null, key: "/b" }))).toEqual({ value: null, key: "/b" });
    expect(["", "abc", "W10", encodeCursor({ value: 1, key: "a" }).slice(1)].map(decodeCursor)).toEqual([null, null, null, null]);
  });
});

describe("formats", () => {
  it("negotiates from Accept, q-values included", () => {
    expect(
      [
        null,
        "*/*",
        "application/json",
        "text/csv",
        "application/x-ndjson",
        "text/csv;q=0.5, application/x-ndjson",
        "image/png",
        "text/csv;q=0",
      ].map(negotiate),
    ).toEqual(["json", "json", "json", "csv", "ndjson", "ndjson", "json", "json"]);
  });

  it("keeps each figure's qualifier in CSV and NDJSON", () => {
    const row = {
      site: "site_x",
      path: '/a,"b"',
      goal: { id: "goal_1", name: "Sign up" },
      visitors: x(5),
      pageviews: SUPPRESSED,
    };
    expect(flatten(row)).toEqual({
      site: "site_x",
      path: '/a,"b"',
      goal_id: "goal_1",
      goal_name: "Sign up",
      visitors: 5,
      visitors_qualifier: "exact",
      pageviews: null,
      pageviews_qualifier: "suppressed",
    });
    expect(toCsv([row], ["site", "path", "visitors", "visitors_qualifier", "pageviews", "pageviews_qualifier"])).toBe(
      'site,path,visitors,visitors_qualifier,pageviews,pageviews_qualifier\r\nsite_x,"/a,""b""",5,exact,,suppressed\r\n',
    );
    expect(toNdjson([row, row]).split("\n")).toHaveLength(3);
    expect(JSON.parse(toNdjson([row]))).toEqual(row);
  });

  it("matches page patterns like goal patterns", () => {
    const blog = pathFilter("/blog/*");
    expect(["/blog/", "/blog/a", "/blog/a/b", "/blogx", "/x/blog/a"].map(blog)).toEqual([true, true, true, false, false]);
    expect(["/a.b", "/axb"].map(pathFilter("/a.b"))).toEqual([true, false]);
  });
});
