/**
 * Hidden labels on the real stack (issue 36 item 6; docs/reports.md, "Hidden rows and labels"):
 * two visitors arrive through the real collector with `utm_content=alice@example.com` and end
 * on a page whose path carries a reset token. On the published day, no report — JSON, CSV or
 * NDJSON, any page pattern, a filter on the value — and no dashboard screen (Chromium) shows
 * either label: the hidden rows are one "other" row. Once WREN_RAW_RETENTION_DAYS has passed
 * for that day, the publisher's retention leaves no copy of either label in the database.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { launchChromium } from "../helpers/browser";
import { openDashboardPage, signIn } from "../helpers/dashboard-page";
import { BROWSER_UA, postBeacon } from "../collector/helpers";

const DOMAIN = "labels.example";
const ALICE = "alice@example.com";
const TOKEN_PATH = "/reset/tok-e2e-5fd81c";
const LABELS = [ALICE, TOKEN_PATH, "tok-e2e-5fd81c"];

let f: ApiFixture;
let browser: Browser;
let site: string;
beforeAll(async () => {
  f = await apiFixture({ WREN_RAW_RETENTION_DAYS: "2", WREN_RATE_LIMIT: "100000/60" });
  site = (await f.makeSite(DOMAIN)).id;
  browser = await launchChromium([`--user-agent=${BROWSER_UA}`]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await f?.close();
});

/** One session's pageviews through the collector, as the tracker sends them. */
async function visit(session: string, events: object[]): Promise<void> {
  const res = await postBeacon(f.stack.url, DOMAIN, { site, session: `${session}-abcdefghij`, events });
  expect(res.status).toBe(202);
}

/** Every text column of every table holding one of the labels: "table.column: label". */
async function stored(): Promise<string[]> {
  const db = f.database();
  const found: string[] = [];
  const tables = await db.execute(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'",
  );
  for (const t of tables.rows) {
    const columns = await db.execute(`SELECT name FROM pragma_table_info('${String(t.name)}') WHERE type = 'TEXT' OR type = ''`);
    for (const c of columns.rows) {
      const rs = await db.execute({
        sql: `SELECT DISTINCT l.value AS label FROM "${String(t.name)}" x JOIN json_each(?) l ON instr(x."${String(c.name)}", l.value) > 0`,
        args: [JSON.stringify(LABELS)],
      });
      for (const r of rs.rows) found.push(`${String(t.name)}.${String(c.name)}: ${String(r.label)}`);
    }
  }
  return found;
}

const ACCEPTS = ["application/json", "text/csv", "application/x-ndjson"];

describe("labels of hidden rows", () => {
  it("are never shown, in any format, pattern, filter or screen, and are gone from storage once raw retention passes", async () => {
    // The first beacon of the origin is a common page (site_beacons keeps it for the wizard).
    for (let i = 0; i < 6; i++) await visit(`crowd-${i}`, [{ type: "pageview", path: "/", utm: { content: "spring-sale" } }]);
    for (let i = 0; i < 4; i++) await visit(`plain-${i}`, [{ type: "pageview", path: "/" }]);
    for (const who of ["alice-1", "alice-2"])
      await visit(who, [
        { type: "pageview", path: "/", utm: { content: ALICE } },
        { type: "pageview", path: TOKEN_PATH },
      ]);
    // What came in today, moved to yesterday: published, inside the retention period.
    await f.rewindDays(1);
    const db = f.database();
    // Stored, and hidden: two sessions each.
    const cells = await db.execute({
      sql: "SELECT dimension, value, visitors FROM rollup_dimension_day WHERE site_id = ? AND value IN (?, ?) ORDER BY dimension",
      args: [site, ALICE, TOKEN_PATH],
    });
    expect(cells.rows.map((r) => [r.dimension, r.value, Number(r.visitors)])).toEqual([
      ["exit_page", TOKEN_PATH, 2],
      ["utm_content", ALICE, 2],
    ]);

    const reads = [
      ...["utm_content", "exit_page", "entry_page", "source", "browser", "os", "device", "country"].map(
        (d) => `/api/v1/breakdown?site=${site}&period=day&dimension=${d}`,
      ),
      ...["", "&page=" + encodeURIComponent(TOKEN_PATH), "&page=%2Freset%2F*", "&page=%2F*5fd81c"].flatMap((q) => [
        `/api/v1/pages?site=${site}&period=day${q}`,
        `/api/v1/vitals?site=${site}&period=day${q}`,
      ]),
      `/api/v1/timeseries?site=${site}&period=day&filter=utm_content:${encodeURIComponent(ALICE)}`,
      `/api/v1/conversions?site=${site}&period=day&filter=exit_page:${encodeURIComponent(TOKEN_PATH)}`,
    ];
    for (const path of reads) {
      for (const accept of ACCEPTS) {
        const res = await fetch(`${f.stack.url}${path}`, { headers: { authorization: `Bearer ${f.stack.adminKey}`, accept } });
        const text = await res.text();
        expect(res.status, `${path} ${accept}: ${text}`).toBe(200);
        for (const label of LABELS) expect(text.includes(label), `${label} in ${path} (${accept}): ${text}`).toBe(false);
      }
    }
    // One `other` row stands for both hidden values, last, in JSON, CSV and NDJSON.
    const content = await f.admin("GET", `/api/v1/breakdown?site=${site}&period=day&dimension=utm_content&sort=value&order=desc`);
    expect(content.body.rows.at(-1)).toEqual({
      value: null,
      other: true,
      visitors: { value: null, qualifier: "suppressed" },
      pageviews: { value: null, qualifier: "suppressed" },
    });
    expect(content.body.rows.filter((r: { other: boolean }) => r.other)).toHaveLength(1);
    const csv = await fetch(`${f.stack.url}/api/v1/breakdown?site=${site}&period=day&dimension=utm_content`, {
      headers: { authorization: `Bearer ${f.stack.adminKey}`, accept: "text/csv" },
    }).then((r) => r.text());
    expect(csv.split("\r\n")[0]).toBe(
      "site,from,to,timezone,value,other,visitors,visitors_qualifier,pageviews,pageviews_qualifier",
    );
    expect(csv).toContain(",,true,,suppressed,,suppressed\r\n");
    // A page pattern only the hidden path matches reads as one nothing matches; so does a filter on the hidden value.
    const body = async (path: string) => (await f.admin("GET", path)).body;
    expect(await body(`/api/v1/pages?site=${site}&period=day&page=${encodeURIComponent(TOKEN_PATH)}`)).toEqual(
      await body(`/api/v1/pages?site=${site}&period=day&page=%2Fnever-visited`),
    );
    expect(await body(`/api/v1/timeseries?site=${site}&period=day&filter=utm_content:${encodeURIComponent(ALICE)}`)).toEqual(
      await body(`/api/v1/timeseries?site=${site}&period=day&filter=utm_content:nobody%40example.net`),
    );

    // The dashboard: the campaigns and exit pages panels and the pages screen, in Chromium.
    const { page, context, errors } = await openDashboardPage(browser);
    await signIn(page, f.stack.url, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${site}/sources?period=day&sources=utm_content&pages=exit_page`);
    const campaigns = page.getByRole("table", { name: /^UTM content/ });
    await campaigns.getByText("Other values (fewer than 5 each)").waitFor();
    expect(await campaigns.locator("tr.other-row").count()).toBe(1);
    await page
      .getByRole("table", { name: /^Exit pages/ })
      .getByText("Other values (fewer than 5 each)")
      .waitFor();
    for (const label of LABELS) expect(await page.content(), label).not.toContain(label);
    await page.goto(`${f.stack.url}/dashboard/s/${site}/pages?period=day`);
    await page.getByText("Other pages (fewer than 5 each)").first().waitFor();
    for (const label of LABELS) expect(await page.content(), label).not.toContain(label);
    expect(errors).toEqual([]);
    await context.close();

    // Five more days back: past WREN_RAW_RETENTION_DAYS (2) and the per-session rows' margin.
    // The publisher folds it anew, publishes, and its retention scrubs the day's never-shown labels.
    await f.rewindDays(5);
    const deadline = Date.now() + 60_000;
    let left = await stored();
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      left = await stored();
    }
    expect(left).toEqual([]);
    // The counts stay: the two sessions' cells are there under a token.
    const after = await f.database().execute({
      sql: "SELECT dimension, visitors FROM rollup_dimension_day WHERE site_id = ? AND dimension IN ('utm_content', 'exit_page') AND visitors = 2 ORDER BY dimension",
      args: [site],
    });
    expect(after.rows.map((r) => [r.dimension, Number(r.visitors)])).toEqual([
      ["exit_page", 2],
      ["utm_content", 2],
    ]);
  }, 240_000);
});
