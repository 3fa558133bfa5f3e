/**
 * Revenue in the rollups and the reports (issue 39, part C; docs/reports.md "Revenue"): the fold
 * keeps each converting unit's revenue per day in rollup_goal_day_units (late and split folds give
 * the same totals), and the figures — per goal, per breakdown row with a goal, under filters and
 * as query metrics — are the revenue rule's (privacy/revenue.ts), computed here from the
 * database's own secrets through the rule's TypeScript twins: exact values, not ranges.
 */
import type { Client } from "@libsql/client";
import { describe, expect, it } from "vitest";
import { exactRevenue, filteredRule, revenueRule, type RevenueCell } from "../../worker/reports/privacy";
import { DOMINANCE_SHARE } from "../../worker/reports/privacy/revenue";
import { runQuery } from "../../worker/reports/query/run";
import { queryBody } from "../../worker/reports/query/schema";
import { withBreakdownRevenue, withConversionsRevenue } from "../../worker/reports/revenue";
import { catchUp } from "../../worker/reports/rollup";
import type { ReportScope } from "../../worker/reports/scope";
import { addEvents, addGoal, at, filterOf, freshSiteDbs, noiseKey, revenueCellOf, type TestDb } from "./helpers";

const SITE = "site_revenue";
const fresh = freshSiteDbs(SITE);
const DAY = "2026-11-20";
const K = 5;

const f = filterOf;

async function scope(db: TestDb): Promise<ReportScope> {
  return { siteId: SITE, from: DAY, to: DAY, timeZone: "UTC", k: K, noise: true, noiseKey: await noiseKey(db.client) };
}

async function revenueGoal(client: Client, id: string, currency: string | null): Promise<void> {
  await addGoal(client, SITE, id);
  await client.execute({ sql: "UPDATE goals SET currency = ? WHERE id = ?", args: [currency, id] });
}

/** Conversions with revenue in cents, as the collector stores them. */
async function buy(client: Client, goal: string, session: string | null, cents: number | null, ts: number): Promise<void> {
  await client.execute({
    sql: "INSERT INTO conversions (site_id, goal_id, session_id, revenue, currency, source, ts) VALUES (?, ?, ?, ?, 'EUR', 's2s', ?)",
    args: [SITE, goal, session, cents, ts],
  });
}

/** DE: 6 sessions buying 10…60 EUR; FR: 6 buying 70…120 EUR; one sessionless purchase of 5 EUR. */
const de = Array.from({ length: 6 }, (_, i) => `de${i}`);
const fr = Array.from({ length: 6 }, (_, i) => `fr${i}`);
const amount = (session: string) => (session.startsWith("de") ? 10 : 70) * 100 + Number(session.slice(2)) * 1000;

async function seed(db: TestDb): Promise<void> {
  await revenueGoal(db.client, "goal_buy", "EUR");
  await revenueGoal(db.client, "goal_plain", null);
  await addEvents(
    db.client,
    [...de, ...fr].map((session, i) => ({
      site: SITE,
      session,
      path: "/",
      ts: at(DAY, 9, i),
      dims: { country: session.startsWith("de") ? "DE" : "FR" },
    })),
  );
  for (const [i, session] of [...de, ...fr].entries()) await buy(db.client, "goal_buy", session, amount(session), at(DAY, 10, i));
  await buy(db.client, "goal_buy", null, 500, at(DAY, 11));
}

/** The cell the rule reads for these units (session ids, or "c:<row id>"), from the database's secrets. */
async function cellOf(db: TestDb, units: [string, number][]): Promise<RevenueCell> {
  return revenueCellOf(units, await noiseKey(db.client));
}

describe("the fold", () => {
  it("keeps each unit's revenue per goal and day; split and late folds give the same cells", async () => {
    const once = await fresh();
    await seed(once);
    await catchUp(once.client as never);
    const cells = async (db: TestDb) =>
      (
        await db.client.execute("SELECT goal_id, day, unit, conversions, revenue FROM rollup_goal_day_units ORDER BY unit")
      ).rows.map((r) => ({
        ...r,
        unit: String(r.unit).startsWith("c:") ? "c:" : r.unit,
      }));
    const expected = await cells(once);
    expect(expected).toHaveLength(13);
    expect(expected.find((r) => r.unit === "fr5")).toMatchObject({ conversions: 1, revenue: 12000 });
    expect(expected.find((r) => r.unit === "c:")).toMatchObject({ conversions: 1, revenue: 500 });

    // Split into chunks of 3 rows, and a late second purchase of de0 folded after the rest.
    const split = await fresh();
    await seed(split);
    await catchUp(split.client as never, 3);
    await buy(split.client, "goal_buy", "de0", 250, at(DAY, 12));
    await buy(split.client, "goal_buy", "de0", null, at(DAY, 12, 5));
    await catchUp(split.client as never, 3);
    const after = await cells(split);
    expect(after.find((r) => r.unit === "de0")).toMatchObject({ conversions: 3, revenue: 1000 + 250 });
    expect(after.filter((r) => r.unit !== "de0")).toEqual(expected.filter((r) => r.unit !== "de0"));
  });
});

describe("the figures", () => {
  it("per goal: the rule's total over every converting unit, sessionless ones included, and the average over the shown converting units", async () => {
    const db = await fresh();
    await seed(db);
    await catchUp(db.client as never);
    const s = await scope(db);
    const row = (id: string) => ({ goal: { id }, converting_sessions: { value: 13, qualifier: "estimated" as const } });
    const [buyRow, plainRow] = await withConversionsRevenue(db.reader, s, [row("goal_buy"), row("goal_plain")], null);
    const sessionless = (await db.client.execute("SELECT unit FROM rollup_goal_day_units WHERE unit LIKE 'c:%'")).rows[0]!
      .unit as string;
    const cell = await cellOf(db, [...[...de, ...fr].map((u): [string, number] => [u, amount(u)]), [sessionless, 500]]);
    expect(cell.cents).toBe((10 + 20 + 30 + 40 + 50 + 60 + 70 + 80 + 90 + 100 + 110 + 120) * 100 + 500);
    const total = revenueRule.shown(cell, s.noiseKey!, K)!;
    expect(buyRow!.total_revenue).toEqual({ value: total, qualifier: "estimated", currency: "EUR" });
    expect(buyRow!.average_revenue).toEqual({
      value: Math.round((total / 13) * 100) / 100,
      qualifier: "estimated",
      currency: "EUR",
    });
    // A plain goal has no revenue fields.
    expect(plainRow).toEqual(row("goal_plain"));
    // The rule taken out: the exact sum.
    const [exact] = await withConversionsRevenue(db.reader, s, [row("goal_buy")], null, { rule: exactRevenue });
    expect(exact!.total_revenue).toEqual({ value: 785, qualifier: "exact", currency: "EUR" });
    // Older than the per-session rows: suppressed.
    const [old] = await withConversionsRevenue(db.reader, s, [row("goal_buy")], null, { perSessionFrom: "2026-11-21" });
    expect(old!.total_revenue).toEqual({ value: null, qualifier: "suppressed", currency: "EUR" });
  });

  it("hides a total that one unit dominates (more than 60 %), and one whose converting units are hidden", async () => {
    const db = await fresh();
    await revenueGoal(db.client, "goal_big", "EUR");
    await revenueGoal(db.client, "goal_few", "EUR");
    const buyers = ["a0", "a1", "a2", "a3", "a4", "a5"];
    await addEvents(
      db.client,
      buyers.map((session, i) => ({ site: SITE, session, path: "/", ts: at(DAY, 9, i) })),
    );
    // goal_big: 1,000 EUR beside five of 10 EUR: above 60 % whatever the units' own fractions
    // (500 of 500 + 75 at worst). goal_few: 4 units < k.
    for (const [i, session] of buyers.entries())
      await buy(db.client, "goal_big", session, i === 0 ? 100_000 : 1_000, at(DAY, 10, i));
    for (const [i, session] of buyers.slice(0, 4).entries()) await buy(db.client, "goal_few", session, 1000, at(DAY, 10, 10 + i));
    await catchUp(db.client as never);
    const s = await scope(db);
    const row = (id: string) => ({ goal: { id }, converting_sessions: { value: 6, qualifier: "estimated" as const } });
    const [big, few] = await withConversionsRevenue(db.reader, s, [row("goal_big"), row("goal_few")], null);
    expect(50_000 / (50_000 + 5 * 1_500)).toBeGreaterThan(DOMINANCE_SHARE);
    expect(big!.total_revenue).toEqual({ value: null, qualifier: "suppressed", currency: "EUR" });
    expect(big!.average_revenue).toEqual({ value: null, qualifier: "suppressed", currency: "EUR" });
    expect(few!.total_revenue).toEqual({ value: null, qualifier: "suppressed", currency: "EUR" });
    // Without the rule the dominant buyer's total is readable.
    const [bare] = await withConversionsRevenue(db.reader, s, [row("goal_big")], null, { rule: exactRevenue });
    expect(bare!.total_revenue!.value).toBe(1050);
  });

  it("per breakdown row with a goal and under filters: the row's units' cell, from the engine", async () => {
    const db = await fresh();
    await seed(db);
    await catchUp(db.client as never);
    const s = await scope(db);
    const shownRow = { value: 6, qualifier: "estimated" as const };
    const rows = await withBreakdownRevenue(
      db.reader,
      s,
      [
        { value: "DE", other: false, converting_sessions: shownRow },
        { value: "FR", other: false, converting_sessions: shownRow },
        { value: null, other: true, converting_sessions: { value: null, qualifier: "suppressed" as const } },
      ],
      "country",
      "goal_buy",
      [],
    );
    const deCell = await cellOf(
      db,
      de.map((u): [string, number] => [u, amount(u)]),
    );
    const frCell = await cellOf(
      db,
      fr.map((u): [string, number] => [u, amount(u)]),
    );
    const expectTotal = (cell: RevenueCell) => {
      const v = revenueRule.shown(cell, s.noiseKey!, K);
      return v === null
        ? { value: null, qualifier: "suppressed", currency: "EUR" }
        : { value: v, qualifier: "estimated", currency: "EUR" };
    };
    expect(rows[0]!.total_revenue).toEqual(expectTotal(deCell));
    expect(rows[1]!.total_revenue).toEqual(expectTotal(frCell));
    expect(rows[2]!.total_revenue).toEqual({ value: null, qualifier: "suppressed", currency: "EUR" });
    // Under a filter, the conversions report's row is the filtered units' cell (sessionless units have no session-day).
    const [filtered] = await withConversionsRevenue(
      db.reader,
      s,
      [{ goal: { id: "goal_buy" }, converting_sessions: shownRow }],
      [f("country:FR")],
    );
    expect(filtered!.total_revenue).toEqual(expectTotal(frCell));
    const [exactFr] = await withConversionsRevenue(
      db.reader,
      s,
      [{ goal: { id: "goal_buy" }, converting_sessions: shownRow }],
      [f("country:FR")],
      {
        rule: exactRevenue,
      },
    );
    expect(exactFr!.total_revenue).toEqual({ value: 70 + 80 + 90 + 100 + 110 + 120, qualifier: "exact", currency: "EUR" });
  });

  it("as query metrics grouped by goal, with the goal's currency; refused without event:goal", async () => {
    const db = await fresh();
    await seed(db);
    await catchUp(db.client as never);
    // At k = 2 the row of Germany's 6 buyers is shown but for a −5 draw and its tail (rule F's noisy
    // threshold hides a cell of 6 at k = 5 for many noise keys); which one, rule F says below.
    const s = { ...(await scope(db)), k: 2 };
    const body = queryBody.parse({
      site_id: SITE,
      metrics: ["visitors", "total_revenue", "average_revenue"],
      dimensions: ["event:goal"],
      date_range: [DAY, DAY],
      filters: [["is", "visit:country", ["DE"]]],
    });
    const result = await runQuery(db.reader, s, body);
    const deCell = await cellOf(
      db,
      de.map((u): [string, number] => [u, amount(u)]),
    );
    const total = revenueRule.shown(deCell, s.noiseKey!, s.k);
    const shown = filteredRule.shown(
      { units: deCell.units, events: deCell.conversions, keySum: deCell.keySum },
      s.noiseKey!,
      s.k,
      true,
    );
    const row = result.rows.find((r) => r.dimensions[0] === "goal_buy")!;
    expect(row !== undefined).toBe(shown !== null);
    if (!row) return;
    expect(row.currency).toBe("EUR");
    expect(row.metrics[1]).toBe(total);
    expect(row.qualifiers[1]).toBe(total === null ? "suppressed" : "estimated");
    if (total !== null) expect(row.metrics[2]).toBe(Math.round((total / row.metrics[0]!) * 100) / 100);
    const exact = await runQuery(db.reader, s, body, { revenue: { rule: exactRevenue } });
    expect(exact.rows.find((r) => r.dimensions[0] === "goal_buy")!.metrics[1]).toBe(10 + 20 + 30 + 40 + 50 + 60);
    const ungrouped = queryBody.parse({
      site_id: SITE,
      metrics: ["total_revenue"],
      dimensions: ["visit:country"],
      date_range: [DAY, DAY],
    });
    await expect(runQuery(db.reader, s, ungrouped)).rejects.toMatchObject({ status: 422, extra: { field: "metrics" } });
  });
});
