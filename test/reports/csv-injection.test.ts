/**
 * CSV formula injection on the real stack: goals named like spreadsheet formulas are made
 * through the API, sessions convert on them (k = 2, so the figures are exact), and the
 * conversions and funnels CSV must carry every name as text (a leading `'`) and every figure
 * as a plain number.
 */
import { createClient, type Client } from "@libsql/client";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ratio } from "../../worker/reports/figures";
import { lastCompleteDay } from "../../worker/reports/period";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { addConversions, addEvents, sessions, shown } from "./helpers";

const HYPERLINK = '=HYPERLINK("http://127.0.0.1:9/x","click")';

let f: ApiFixture;
let db: Client;
let site: string;
let reader: Awaited<ReturnType<ApiFixture["makeKey"]>>;
const goals: Record<string, { id: string; name: string }> = {};
const Y = lastCompleteDay("UTC", Date.now());
const atY = (hour: number, minute = 0) =>
  Date.parse(`${Y}T${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:00Z`);

beforeAll(async () => {
  f = await apiFixture({ WREN_K_ANONYMITY: "2", WREN_RATE_LIMIT: "100000/60" });
  site = (await f.makeSite("formulas.example")).id;
  for (const [match, name] of [
    ["hyperlink", HYPERLINK],
    ["sum", "@SUM(1)"],
    ["plus", "+1"],
    ["minus", "-1"],
    ["tab", "\t=1+1"],
  ] as const) {
    const res = await f.admin("POST", `/api/v1/sites/${site}/goals`, { kind: "event", match, name });
    if (res.status !== 201) throw new Error(`goal create: ${res.status} ${res.text}`);
    goals[match] = res.body;
  }
  reader = await f.makeKey(["read:reports"], [site]);
  await f.seedHistory(async (history) => {
    // The API trims names, so a leading tab is written the way another tool could store it.
    await history.execute({ sql: "UPDATE goals SET name = ? WHERE id = ?", args: ["\tcmd", goals.minus!.id] });
    // Yesterday: two sessions view "/" and convert on the HYPERLINK goal, then on @SUM(1).
    const s = sessions("s", 2);
    await addEvents(
      history,
      s.map((session) => ({ site, session, path: "/", ts: atY(12) })),
    );
    await addConversions(history, [
      ...s.map((session) => ({ site, goal: goals.hyperlink!.id, session, ts: atY(12, 30) })),
      ...s.map((session) => ({ site, goal: goals.sum!.id, session, ts: atY(12, 40) })),
    ]);
  });
  db = createClient({ url: `file:${join(f.stack.dataDir, "wren.db")}` });
  await db.execute("PRAGMA busy_timeout = 10000");
}, 120_000);
afterAll(async () => {
  db?.close();
  await f?.stack.stop();
});

const csv = (path: string) => reader.call("GET", path, undefined, { accept: "text/csv" });

describe("goal names in CSV exports", () => {
  it("the API keeps the names as given (a leading tab trimmed), so the attack reaches the export", () => {
    expect(Object.fromEntries(Object.entries(goals).map(([match, g]) => [match, g.name]))).toEqual({
      hyperlink: HYPERLINK,
      sum: "@SUM(1)",
      plus: "+1",
      minus: "-1",
      tab: "=1+1",
    });
  });

  it("conversions: every formula-like name starts with ', figures stay numbers", async () => {
    const res = await csv(`/api/v1/conversions?site=${site}&period=day&sort=name`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8; header=present");
    const head = `${site},${Y},${Y},UTC`;
    // Figures are perturbed (worker/reports/noise.ts): what each cell shows is read off its key sum.
    const sessionsShown = await shown(db, "rollup_site_day", { site_id: site, day: Y }, 2, "units", 2);
    const goalFigures = async (goal: string) => {
      const cell = { site_id: site, goal_id: goal, day: Y };
      const converting = await shown(db, "rollup_goal_day", cell, 2, "units", 2);
      const rate = ratio({ value: converting, qualifier: "estimated" }, { value: sessionsShown, qualifier: "estimated" });
      return `${await shown(db, "rollup_goal_day", cell, 2, { eventsOf: 2 }, 2)},estimated,${converting},estimated,${sessionsShown},estimated,${rate.value},estimated`;
    };
    const none = `,0,exact,0,exact,${sessionsShown},estimated,0,estimated`;
    expect(res.text).toBe(
      [
        "site,from,to,timezone,goal_id,goal_name,goal_kind,conversions,conversions_qualifier,converting_sessions,converting_sessions_qualifier,sessions,sessions_qualifier,rate,rate_qualifier",
        `${head},${goals.minus!.id},'\tcmd,event${none}`,
        `${head},${goals.plus!.id},'+1,event${none}`,
        `${head},${goals.tab!.id},'=1+1,event${none}`,
        `${head},${goals.hyperlink!.id},"'=HYPERLINK(""http://127.0.0.1:9/x"",""click"")",event,${await goalFigures(goals.hyperlink!.id)}`,
        `${head},${goals.sum!.id},'@SUM(1),event,${await goalFigures(goals.sum!.id)}`,
        "",
      ].join("\r\n"),
    );
  });

  it("funnels: the step names are escaped the same way", async () => {
    const res = await csv(`/api/v1/funnels?site=${site}&period=day&goals=${goals.hyperlink!.id},${goals.sum!.id}`);
    expect(res.status, res.text).toBe(200);
    // Both steps hold the same two sessions, so the same key sum: the same perturbed count.
    const step = await shown(db, "rollup_goal_day", { site_id: site, goal_id: goals.hyperlink!.id, day: Y }, 2, "units", 2);
    expect(res.text).toBe(
      [
        "site,from,to,timezone,step,goal_id,goal_name,goal_kind,sessions,sessions_qualifier,dropoff,dropoff_qualifier,rate,rate_qualifier",
        `${site},${Y},${Y},UTC,1,${goals.hyperlink!.id},"'=HYPERLINK(""http://127.0.0.1:9/x"",""click"")",event,${step},estimated,0,exact,1,estimated`,
        `${site},${Y},${Y},UTC,2,${goals.sum!.id},'@SUM(1),event,${step},estimated,0,estimated,1,estimated`,
        "",
      ].join("\r\n"),
    );
  });

  it("JSON and NDJSON keep the names unchanged: the escape is CSV's alone", async () => {
    const json = await reader.call("GET", `/api/v1/conversions?site=${site}&period=day&sort=name`);
    expect(json.body.rows.map((r: { goal: { name: string } }) => r.goal.name)).toEqual([
      "\tcmd",
      "+1",
      "=1+1",
      HYPERLINK,
      "@SUM(1)",
    ]);
    const nd = await reader.call("GET", `/api/v1/conversions?site=${site}&period=day&sort=name`, undefined, {
      accept: "application/x-ndjson",
    });
    expect(
      nd.text
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l).goal.name),
    ).toEqual(["\tcmd", "+1", "=1+1", HYPERLINK, "@SUM(1)"]);
  });
});
