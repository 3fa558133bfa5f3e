/**
 * The pair cells of nesting dimensions (reports/dimension-pairs.ts) on a real libSQL database:
 * each session-day counts once under its first pageview's pair of values; a fold split anywhere
 * gives the same cells; they stay after raw retention and go with the site. And the nesting rule
 * they feed (privacy/nested-dimensions.ts) on the day: desktop minus its shown systems
 * gives no hidden system's sessions, and every linked breakdown decides the same cells.
 */
import type { Client } from "@libsql/client";
import { describe, expect, it } from "vitest";
import { breakdownReport } from "../../worker/reports/breakdown";
import { DIMENSION_PAIRS, nestingGroup } from "../../worker/reports/dimension-pairs";
import { isToken } from "../../worker/reports/label-scrub";
import { applyRetention } from "../../worker/reports/retention";
import { catchUp, deleteSiteRollupsStatements, fold } from "../../worker/reports/rollup";
import { addEvents, at, freshSiteDbs, type RawEvent } from "./helpers";

const SITE = "site_pairs";
const fresh = freshSiteDbs(SITE);
const DAY = "2026-11-02";

async function pairs(client: Client, parent: string, child: string) {
  const rs = await client.execute({
    sql: "SELECT day, parent_value, child_value, units FROM rollup_dimension_pair_day WHERE site_id = ? AND parent_dimension = ? AND child_dimension = ? ORDER BY day, parent_value, child_value",
    args: [SITE, parent, child],
  });
  return rs.rows.map((r) => [r.day, r.parent_value, r.child_value, Number(r.units)]);
}

const pv = (session: string, minute: number, dims: RawEvent["dims"] = {}, path = "/"): RawEvent => ({
  site: SITE,
  session,
  path,
  ts: at(DAY, 10, minute),
  dims,
});

const fixture: RawEvent[] = [
  pv("a", 0, {
    device: "desktop",
    os: "macOS 14",
    browser: "Safari 18",
    source: "Google",
    utm_source: "google",
    utm_campaign: "spring",
  }),
  // A later pageview changes no entry value (and moves the exit page only).
  pv("a", 1, { device: "mobile", os: "iOS 18", browser: "Mobile Safari 18" }, "/pricing"),
  pv("b", 2, {
    device: "desktop",
    os: "Windows 11",
    browser: "Chrome 131",
    source: "Google",
    utm_source: "google",
    utm_campaign: "spring",
  }),
  pv("c", 3, { device: "desktop", os: "Windows 11", browser: "Chrome 131" }),
  pv("d", 4, { device: "mobile" }), // no system known: in no (device, os) cell
];

describe("pair cells", () => {
  it("count each session-day under its first pageview's two values, for every two dimensions of a group", async () => {
    const { client } = await fresh();
    await addEvents(client, fixture);
    await catchUp(client as never);
    expect(DIMENSION_PAIRS).toHaveLength(3 + 15);
    expect(nestingGroup("os")).toEqual(["device", "os", "browser"]);
    expect(nestingGroup("country")).toEqual(["country"]);
    expect(await pairs(client, "device", "os")).toEqual([
      [DAY, "desktop", "Windows 11", 2],
      [DAY, "desktop", "macOS 14", 1],
    ]);
    expect(await pairs(client, "os", "browser")).toEqual([
      [DAY, "Windows 11", "Chrome 131", 2],
      [DAY, "macOS 14", "Safari 18", 1],
    ]);
    expect(await pairs(client, "utm_source", "utm_campaign")).toEqual([[DAY, "google", "spring", 2]]);
    expect(await pairs(client, "source", "utm_campaign")).toEqual([[DAY, "Google", "spring", 2]]);
    expect(await pairs(client, "utm_campaign", "utm_content")).toEqual([]);
  });

  it("are the same whichever chunks the pageviews fold in, stay after raw retention and go with the site", async () => {
    const whole = await fresh();
    const split = await fresh();
    await addEvents(whole.client, fixture);
    await catchUp(whole.client as never);
    for (const event of fixture) {
      await addEvents(split.client, [event]);
      await fold(split.client as never, { chunkRows: 1 });
    }
    const all = async (client: Client) =>
      (await client.execute("SELECT * FROM rollup_dimension_pair_day ORDER BY 1, 2, 3, 4, 5, 6")).rows.map((r) =>
        Object.values(r).map(String),
      );
    expect(await all(split.client)).toEqual(await all(whole.client));
    expect((await whole.client.execute("SELECT count(*) AS n FROM rollup_dimension_pair_day WHERE units <= 0")).rows[0]!.n).toBe(
      0,
    );

    // Aggregates without unit ids: raw retention (40 days on) keeps every cell and count; only
    // the labels never shown (this day's cells are all below k) become label-scrub.ts tokens,
    // the same in the dimension cells they join.
    const before = await all(whole.client);
    await applyRetention(whole.client as never, { now: at(DAY) + 40 * 86_400_000, days: 30 });
    expect((await whole.client.execute("SELECT count(*) AS n FROM rollup_session_day")).rows[0]!.n).toBe(0);
    const after = await all(whole.client);
    const labels = [3, 5];
    expect(after.map((row) => row.filter((_, i) => !labels.includes(i)))).toEqual(
      before.map((row) => row.filter((_, i) => !labels.includes(i))),
    );
    expect(after.flatMap((row) => labels.map((i) => isToken(row[i]!)))).toEqual(after.flatMap(() => [true, true]));
    const values = await whole.client.execute("SELECT dimension, value FROM rollup_dimension_day");
    const known = new Set(values.rows.map((r) => `${String(r.dimension)}\u0000${String(r.value)}`));
    for (const row of after)
      expect([known.has(`${row[2]}\u0000${row[3]}`), known.has(`${row[4]}\u0000${row[5]}`)]).toEqual([true, true]);

    await whole.client.batch(deleteSiteRollupsStatements(SITE), "write");
    expect(await all(whole.client)).toEqual([]);
  });
});

describe("nested dimensions", () => {
  it("desktop minus its shown systems gives no hidden system's sessions, and device, os and browser decide the same cells", async () => {
    const { client, reader } = await fresh();
    const sessions = (prefix: string, n: number, dims: RawEvent["dims"]) =>
      Array.from({ length: n }, (_, i) => pv(`${prefix}${i}`, i % 50, dims));
    // The day (k = 5): desktop 15 = Windows 11 8 + Linux 6 + macOS 1; and 12 phones.
    await addEvents(client, [
      ...sessions("w", 8, { device: "desktop", os: "Windows 11", browser: "Chrome 131" }),
      ...sessions("l", 6, { device: "desktop", os: "Linux", browser: "Firefox 133" }),
      ...sessions("m", 1, { device: "desktop", os: "macOS 14", browser: "Safari 18" }),
      ...sessions("i", 6, { device: "mobile", os: "iOS 18", browser: "Mobile Safari 18" }),
      ...sessions("g", 6, { device: "mobile", os: "Android 15", browser: "Chrome Mobile 131" }),
    ]);
    await catchUp(client as never);
    const scope = { siteId: SITE, from: DAY, to: DAY, timeZone: "UTC", k: 5 };
    const shown = async (dimension: "device" | "os" | "browser") =>
      Object.fromEntries(
        (await breakdownReport(reader, scope, dimension)).rows
          .filter((r) => r.visitors.value !== null)
          .map((r) => [r.value, r.visitors.value]),
      );
    const [device, os, browser] = [await shown("device"), await shown("os"), await shown("browser")];
    // Before the rule: desktop 15, Windows 11 8 and Linux 6 all shown (the os partition's cover
    // held, Android 6 hidden beside macOS' 1), so 15 − 8 − 6 = 1. Now Linux goes too.
    expect(device).toEqual({ desktop: 15, mobile: 12 });
    expect(os).toEqual({ "Windows 11": 8, "iOS 18": 6 });
    expect(browser).toEqual({ "Chrome 131": 8, "Mobile Safari 18": 6 });
    const desktopSystems = ["Windows 11", "Linux", "macOS 14"].reduce((n, s) => n + (os[s] ?? 0), 0);
    expect(device.desktop - desktopSystems).toBeGreaterThanOrEqual(5);
  });
});
