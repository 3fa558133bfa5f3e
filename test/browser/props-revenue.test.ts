/**
 * Issue 39's dashboard screens in real Chromium (Debian's, via playwright-core) on the real stack
 * (`wren start`), on yesterday's rows written while the service is stopped:
 * - Settings: a property name allowed through the form and listed, another removed after its
 *   confirmation, a read-only key seeing the list without the controls, and the last 7 days'
 *   drops per reason, each with its line;
 * - Sources: the Properties panel shows `dimension=prop:plan` exactly as the API answers it
 *   (visitors, events, the `other` row for the value of fewer than k), and a value's row adds
 *   the chip "Property plan is pro" (`filter=prop:plan:pro`); a site without names says how to add one;
 * - Goals: the revenue goal's total and average in euros, the total being the revenue rule's own
 *   value from the database's secrets, filtered too; the outbound goal opens to its links' hosts.
 */
import type { Client } from "@libsql/client";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastCompleteDay } from "../../worker/reports/period";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { launchChromium } from "../helpers/browser";
import {
  drawsAsAnswered as draws,
  filterChips as chips,
  openDashboardPage,
  seriousViolations,
  signIn,
  tableRows as rowsOf,
} from "../helpers/dashboard-page";
import { expectedRevenueTotal } from "../reports/helpers";

type Figure = { value: number | null; qualifier: string };
type Money = Figure & { currency: string };

let f: ApiFixture;
let browser: Browser;
let db: Client;
let site = "";
let bare = "";
let buy = "";
let outbound = "";
let download = "";
let notFound = "";

const Y = lastCompleteDay("UTC", Date.now());
const TODAY = new Date().toISOString().slice(0, 10);
const DAY_MS = 86_400_000;
const at = (minute: number) => Date.parse(`${Y}T12:00:00Z`) + minute * 60_000;

/**
 * Yesterday's sessions: plan pro (24, the first 12 buying 10…120 EUR), free (12, the first 4
 * buying 15…30 EUR), team (2: the `other` row), and 12 without a plan (in the US), the first 6
 * buying 20…25 EUR: a country's buyers are shown only when the other countries' are 0 or at least
 * k. Every row the test expects shown has at least 12 units, and every row it expects hidden fewer
 * than k: rule F's threshold is noisy, so a cell of 6–9 units is shown or hidden by each stack's
 * own noise key.
 */
const proSessions = Array.from({ length: 24 }, (_, i) => `pro-session-${String(i).padStart(2, "0")}xxxxxxx`);
const pro = proSessions.slice(0, 12).map((s, i) => [s, (i + 1) * 1000] as const);
const freeSessions = Array.from({ length: 12 }, (_, i) => `free-session-${String(i).padStart(2, "0")}xxxxxx`);
const free = freeSessions.slice(0, 4).map((s, i) => [s, 1500 + i * 500] as const);
const team = ["team-session-0xxxxxxx", "team-session-1xxxxxxx"];
const plain = Array.from({ length: 12 }, (_, i) => `plain-session-${String(i).padStart(2, "0")}xxxxx`);
const plainBuyers = plain.slice(0, 6).map((s, i) => [s, 2000 + i * 100] as const);
/** Outbound clicks: 12 sessions to docs.example, 2 to rare.example. */
const clicks = [
  ...proSessions.slice(0, 12).map((s) => [s, "https://docs.example"] as const),
  ...freeSessions.slice(0, 2).map((s) => [s, "https://rare.example"] as const),
];

/** Downloads: 12 pro sessions of guide.pdf, 2 free ones of rare.zip. */
const downloads = [
  ...proSessions.slice(2, 14).map((s) => [s, "/files/guide.pdf"] as const),
  ...freeSessions.slice(10).map((s) => [s, "/files/rare.zip"] as const),
];

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  browser = await launchChromium();
  site = (await f.makeSite("props.wren.test", "Props shop")).id;
  bare = (await f.makeSite("bare.wren.test", "Bare shop")).id;
  buy = (await f.makeGoal(site, { name: "Purchase", kind: "event", match: "purchase", revenue: { currency: "EUR" } })).id;
  outbound = (await f.makeGoal(site, { name: "Outbound", kind: "outbound" })).id;
  download = (await f.makeGoal(site, { name: "Downloads", kind: "download" })).id;
  notFound = (await f.makeGoal(site, { name: "Missing", kind: "not-found" })).id;
  for (const name of ["method", "plan"]) expect((await f.admin("PUT", `/api/v1/sites/${site}/props/${name}`)).status).toBe(201);
  await f.seedHistory(async (history) => {
    const event = (
      session: string,
      minute: number,
      kind: string,
      name: string | null,
      props: object | null,
      country: string,
      path = "/",
    ) => ({
      sql: "INSERT INTO events (site_id, session_id, kind, name, path, ts, props, country) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      args: [site, session, kind, name, path, at(minute), props ? JSON.stringify(props) : null, country],
    });
    const conversion = (goal: string, session: string, minute: number, cents: number | null) => ({
      sql: "INSERT INTO conversions (site_id, goal_id, session_id, revenue, currency, source, ts) VALUES (?, ?, ?, ?, ?, 's2s', ?)",
      args: [site, goal, session, cents, cents === null ? null : "EUR", at(minute)],
    });
    const rows = [
      ...proSessions.map((s, i) => event(s, i, "pageview", null, { plan: "pro" }, "DE")),
      ...plain.map((s, i) => event(s, 70 + i, "pageview", null, null, "US")),
      ...freeSessions.map((s, i) => event(s, 10 + i, "pageview", null, { plan: "free" }, "FR")),
      ...team.map((s, i) => event(s, 20 + i, "pageview", null, { plan: "team" }, "FR")),
      // A second event with the plan for the pro sessions: their events are 48.
      ...proSessions.map((s, i) => event(s, 30 + i, "event", "signup", { plan: "pro" }, "DE")),
      ...[...pro, ...free, ...plainBuyers].map(([s, cents], i) => conversion(buy, s, 40 + i, cents)),
      ...clicks.map(([s, url], i) => event(s, 60 + i, "event", "Outbound Link: Click", { url }, "DE")),
      ...clicks.map(([s], i) => conversion(outbound, s, 60 + i, null)),
      ...downloads.map(([s, file], i) => event(s, 90 + i, "event", "File Download", { file }, "DE")),
      ...downloads.map(([s], i) => conversion(download, s, 90 + i, null)),
      // The plain sessions reach a missing page: its pageview and its 404 event.
      ...plain.map((s, i) => event(s, 100 + i, "pageview", null, null, "US", "/old-pricing")),
      // The collector gives a 404 event its own path as the prop `path` (beacon.ts).
      ...plain.map((s, i) => event(s, 100 + i, "event", "404", { path: "/old-pricing" }, "US", "/old-pricing")),
      ...plain.map((s, i) => conversion(notFound, s, 100 + i, null)),
    ];
    await history.batch(rows, "write");
    // A site with yesterday's visits had its first beacon before them: the Overview is not the "waiting" one.
    await history.batch(
      [
        { sql: "UPDATE sites SET created_at = ? WHERE id = ?", args: [Date.now() - 3 * DAY_MS, site] },
        {
          sql: "INSERT INTO site_beacons (site_id, origin, first_seen, path) VALUES (?, ?, ?, ?)",
          args: [site, "http://props.wren.test", Date.now() - 3 * DAY_MS, "/"],
        },
      ],
      "write",
    );
    await history.batch(
      [
        ["not_allowed", 12],
        ["invalid_value", 3],
      ].map(([reason, count]) => ({
        sql: "INSERT INTO prop_drops (site_id, day, reason, count) VALUES (?, ?, ?, ?)",
        args: [site, TODAY, reason!, count!],
      })),
      "write",
    );
  });
  db = f.stack.openDatabase();
  await db.execute("PRAGMA busy_timeout = 10000");
}, 120_000);

afterAll(async () => {
  db?.close();
  await browser?.close();
  await f?.close();
});

/** The revenue rule's figure for these session units, from the database's secrets. */
const expectedTotal = (units: readonly (readonly [string, number])[]): Promise<Money> =>
  expectedRevenueTotal(db, units, "EUR", 5);

/** A figure as the dashboard draws it (k = 5). */
const shown = (figure: Figure) =>
  figure.qualifier === "suppressed" || figure.value === null
    ? "< 5"
    : figure.qualifier === "estimated"
      ? `≈ ${figure.value}`
      : String(figure.value);
/** Money as the dashboard draws it: "≈ €2,380", "≈ €58.05", an exact "€0" where nobody converted, "hidden". */
const money = (figure: Money, cents: boolean) =>
  figure.value === null
    ? "hidden"
    : `${figure.qualifier === "estimated" ? "≈ " : ""}${new Intl.NumberFormat("en", { style: "currency", currency: figure.currency, minimumFractionDigits: cents ? 2 : 0, maximumFractionDigits: cents ? 2 : 0 }).format(figure.value)}`;

async function api(path: string) {
  const res = await f.admin("GET", path);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe("issue 39 in the dashboard", () => {
  it("Settings: allows and removes a property name, lists them read-only without write:goals, shows the week's drops", async () => {
    const { page, context, errors } = await openDashboardPage(browser);
    await signIn(page, f.stack.url, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${site}/settings`);
    const list = page.getByRole("list", { name: "Property names kept" });
    await expect.poll(() => list.locator("code").allTextContents()).toEqual(["method", "plan"]);

    await page.getByRole("textbox", { name: "Property name" }).fill("source.campaign");
    await page.getByRole("button", { name: "Allow" }).click();
    await expect.poll(() => list.locator("code").allTextContents()).toEqual(["method", "plan", "source.campaign"]);
    // A name off the pattern: the API's refusal under the field, nothing added.
    await page.getByRole("textbox", { name: "Property name" }).fill("bad name");
    await page.getByRole("button", { name: "Allow" }).click();
    const problem = page.locator("#prop-add-name-problem");
    await problem.waitFor();
    expect(await page.getByRole("textbox", { name: "Property name" }).getAttribute("aria-invalid")).toBe("true");
    expect(await problem.textContent()).toBe("Must be a property name (1–64 of A–Z a–z 0–9 _ . : -)");
    expect((await api(`/api/v1/sites/${site}/props`)).names).toEqual(["method", "plan", "source.campaign"]);

    // Remove asks first; Cancel keeps it, "Yes, remove" stops it.
    await page.getByRole("button", { name: "Remove method" }).click();
    await page.getByRole("button", { name: "Cancel" }).click();
    expect((await api(`/api/v1/sites/${site}/props`)).names).toContain("method");
    await page.getByRole("button", { name: "Remove method" }).click();
    await page.getByRole("button", { name: "Yes, remove" }).click();
    await expect.poll(() => list.locator("code").allTextContents()).toEqual(["plan", "source.campaign"]);
    expect((await api(`/api/v1/sites/${site}/props`)).names).toEqual(["plan", "source.campaign"]);

    const props = await api(`/api/v1/sites/${site}/props`);
    expect(await rowsOf(page, /^Properties dropped since/)).toEqual([
      ["not_allowed", "12", "The name is not in the list above: allow it to keep its values."],
      ["invalid_name", "0", "The name has characters other than letters, digits and _ . : - or is longer than 64."],
      ["invalid_value", "3", "The value was empty or not text."],
      ["too_many", "0", "The event carried more than 30 properties; the rest were dropped."],
    ]);
    expect(
      await page
        .getByRole("table", { name: /^Properties dropped since/ })
        .locator("caption")
        .textContent(),
    ).toBe(`Properties dropped since ${props.drops_since} (the last 7 days)`);
    expect(await seriousViolations(page)).toEqual([]);
    // The browser logs the refused request itself; the page shows no error.
    expect([...new Set(errors)]).toEqual(["Failed to load resource: the server responded with a status of 400 ()"]);
    await context.close();

    // A key reading sites without write:goals: the list, no form, no Remove.
    const reader = await f.makeKey(["read:sites", "read:reports"], [site]);
    const second = await openDashboardPage(browser);
    await signIn(second.page, f.stack.url, reader.key);
    await second.page.goto(`${f.stack.url}/dashboard/s/${site}/settings`);
    const readOnly = second.page.getByRole("list", { name: "Property names kept" });
    await expect.poll(() => readOnly.locator("code").allTextContents()).toEqual(["plan", "source.campaign"]);
    expect(await second.page.getByRole("button", { name: /^Remove / }).count()).toBe(0);
    expect(await second.page.getByRole("textbox", { name: "Property name" }).count()).toBe(0);
    await second.page.getByText("A key with the write:goals scope can add and remove names.").waitFor();
    expect(second.errors).toEqual([]);
    await second.context.close();
  }, 120_000);

  it("Sources: the Properties panel shows prop:plan as the API answers it, and a row adds its chip", async () => {
    const { page, context, errors } = await openDashboardPage(browser);
    await signIn(page, f.stack.url, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${site}/sources?period=day`);
    const breakdown = async (filter = "") => {
      const body = await api(
        `/api/v1/breakdown?site=${site}&period=day&dimension=prop:plan&sort=visitors&order=desc&limit=10${filter}`,
      );
      return (body.rows as { value: string | null; other: boolean; visitors: Figure; pageviews: Figure }[]).map((r) => [
        r.other
          ? "Other values (fewer than 5 each)"
          : decodeURIComponent(filter).includes(`prop:plan:${r.value}`)
            ? `✓ ${r.value}`
            : r.value,
        shown(r.visitors),
        shown(r.pageviews),
      ]);
    };
    // The first name (method) is shown first; plan is chosen.
    await page.locator("section[aria-labelledby=props-title] select").selectOption("prop:plan");
    await draws(
      () => rowsOf(page, /^plan/),
      () => breakdown(),
    );
    // Pro and free are shown, team (2 sessions) is only in the other row, unnamed.
    const rows = await breakdown();
    // Pro (24) and free (12) may read in either order only if the noise reached its tails.
    expect(
      rows
        .map((r) => r[0])
        .slice(0, 2)
        .sort(),
    ).toEqual(["free", "pro"]);
    expect(rows[2]![0]).toBe("Other values (fewer than 5 each)");
    const proRow = rows.find((r) => r[0] === "pro")!;
    expect(proRow[2]).not.toBe(proRow[1]); // the events (48) are not the visitors (24)
    const panel = page.locator("section[aria-labelledby=props-title]");
    expect(await panel.locator("thead th").allTextContents()).toEqual(["Value↕", "Visitors▼", "Events↕"]);
    expect(await panel.getByRole("button", { name: "team" }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    await panel.getByRole("button", { name: "pro", exact: true }).click();
    await expect.poll(() => chips(page)).toEqual(["Property plan is pro"]);
    expect(new URL(page.url()).searchParams.getAll("filter")).toEqual(["prop:plan:pro"]);
    await draws(
      () => rowsOf(page, /^plan/),
      () => breakdown(`&filter=${encodeURIComponent("prop:plan:pro")}`),
    );

    // The chip follows to the Overview, whose figures read it without a refusal.
    await page.getByRole("navigation", { name: "Site" }).getByRole("link", { name: "Overview", exact: true }).click();
    await expect.poll(() => chips(page)).toEqual(["Property plan is pro"]);
    await page.locator("table.overview-points").waitFor();
    await expect.poll(() => page.locator(".loading").count()).toBe(0);
    expect(await page.locator(".failure").allTextContents()).toEqual([]);

    // A site without names says how to add one.
    await page.goto(`${f.stack.url}/dashboard/s/${bare}/sources?period=day`);
    const none = page.locator("section[aria-labelledby=props-title]");
    await none.getByText("No custom properties yet.").waitFor();
    expect(await none.getByRole("link", { name: "Settings" }).getAttribute("href")).toBe(
      `/dashboard/s/${bare}/settings?period=day`,
    );
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it("Goals: the revenue goal's total and average in euros (the rule's own figure, filtered too); the outbound goal opens to its hosts", async () => {
    const { page, context, errors } = await openDashboardPage(browser);
    await signIn(page, f.stack.url, f.stack.adminKey!);
    const total = await expectedTotal([...pro, ...free, ...plainBuyers]);
    expect(total.qualifier).toBe("estimated");
    const conversionsRow = async (filter = "") => {
      const body = await api(`/api/v1/conversions?site=${site}&period=day${filter}`);
      return (body.rows as { goal: { id: string }; total_revenue?: Money; average_revenue?: Money }[]).find(
        (r) => r.goal.id === buy,
      )!;
    };
    expect((await conversionsRow()).total_revenue).toEqual(total);
    const revenueCells = (table: RegExp) =>
      page
        .getByRole("table", { name: table })
        .locator("tbody tr", { hasText: "Purchase" })
        .locator("td.num")
        .evaluateAll((tds) => tds.slice(1).map((td) => td.textContent));

    await page.goto(`${f.stack.url}/dashboard/s/${site}/goals?period=day`);
    await draws(
      () => revenueCells(/^Conversions by goal/),
      async () => {
        const row = await conversionsRow();
        return [money(row.total_revenue!, false), money(row.average_revenue!, true)];
      },
    );
    expect((await revenueCells(/^Conversions by goal/))[0]).toBe(money(total, false));
    const cell = page
      .getByRole("table", { name: /^Conversions by goal/ })
      .locator("tbody tr", { hasText: "Purchase" })
      .locator("td.num .figure")
      .nth(1);
    expect(await cell.getAttribute("data-qualifier")).toBe("estimated");
    // The outbound goal has no revenue: a dash, not a zero.
    expect(
      await page
        .getByRole("table", { name: /^Conversions by goal/ })
        .locator("tbody tr", { hasText: "Outbound" })
        .locator("td.num")
        .evaluateAll((tds) => tds.slice(1).map((td) => td.textContent)),
    ).toEqual(["—not a revenue goal", "—not a revenue goal"]);

    // Filtered to the pro plan: the rule's figure of the pro buyers.
    const proTotal = await expectedTotal(pro);
    await page.goto(`${f.stack.url}/dashboard/s/${site}/goals?period=day&filter=${encodeURIComponent("prop:plan:pro")}`);
    await draws(
      () => revenueCells(/^Conversions by goal/),
      async () => {
        const row = await conversionsRow(`&filter=${encodeURIComponent("prop:plan:pro")}`);
        return [money(row.total_revenue!, false), money(row.average_revenue!, true)];
      },
    );
    expect((await revenueCells(/^Conversions by goal/))[0]).toBe(money(proTotal, false));

    // With the goal on the Sources screen, each country's row carries its revenue as the API answers it.
    await page.goto(`${f.stack.url}/dashboard/s/${site}/sources?period=day&goal=${buy}`);
    const countries = page.getByRole("table", { name: /^Countries/ });
    await draws(
      () =>
        countries
          .locator("tbody tr")
          .evaluateAll((trs) => trs.map((tr) => [...tr.children].slice(-2).map((td) => td.textContent))),
      async () => {
        const body = await api(
          `/api/v1/breakdown?site=${site}&period=day&dimension=country&goal=${buy}&sort=visitors&order=desc&limit=10`,
        );
        return (body.rows as { total_revenue: Money; average_revenue: Money }[]).map((r) => [
          money(r.total_revenue, false),
          money(r.average_revenue, true),
        ]);
      },
    );
    expect(await countries.locator("thead th").evaluateAll((ths) => ths.slice(-2).map((th) => th.textContent))).toEqual([
      "Revenue",
      "Average revenue",
    ]);
    // Germany's buyers are the pro plan's (the rule's figure); France's 4 buyers of 14 sessions are fewer than k: the row is shown, its revenue says "hidden", not "< 5".
    const byCountry = Object.fromEntries((await rowsOf(page, /^Countries/)).map((r) => [r[0], r.slice(-2)]));
    expect(byCountry["DE Germany"]![0]).toBe(money(proTotal, false));
    expect(byCountry["FR France"]).toEqual(["hidden", "hidden"]);

    // The outbound goal opens to its links' hosts: docs.example shown, rare.example (2) in the other row.
    await page.goto(`${f.stack.url}/dashboard/s/${site}/goals?period=day`);
    const toggle = page.getByRole("button", { name: "Show hosts of Outbound" });
    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    const hosts = async () => {
      const body = await api(
        `/api/v1/breakdown?site=${site}&period=day&dimension=prop:url&goal=${outbound}&sort=visitors&order=desc&limit=50`,
      );
      return (body.rows as { value: string | null; other: boolean; visitors: Figure; pageviews: Figure }[]).map((r) => [
        r.other ? "Other hosts (fewer than 5 each)" : r.value,
        shown(r.visitors),
        shown(r.pageviews),
      ]);
    };
    await draws(
      () => rowsOf(page, /^Outbound clicks by host, Outbound/),
      () => hosts(),
    );
    expect((await hosts()).map((r) => r[0])).toEqual(["https://docs.example", "Other hosts (fewer than 5 each)"]);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it("Goals: a download goal opens to its files, a not-found goal to its paths, through the k-filter", async () => {
    const { page, context, errors } = await openDashboardPage(browser);
    await signIn(page, f.stack.url, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${site}/goals?period=day`);
    type Row = { value?: string | null; path?: string | null; other: boolean; visitors: Figure; pageviews: Figure };
    const drawn = (rows: Row[], what: string) =>
      rows.map((r) => [
        r.other ? `Other ${what} (fewer than 5 each)` : (r.value ?? r.path),
        shown(r.visitors),
        shown(r.pageviews),
      ]);

    await page.getByRole("button", { name: "Show files of Downloads" }).click();
    const files = async () =>
      drawn(
        (
          await api(
            `/api/v1/breakdown?site=${site}&period=day&dimension=prop:file&goal=${download}&sort=visitors&order=desc&limit=50`,
          )
        ).rows,
        "files",
      );
    await draws(
      () => rowsOf(page, /^Downloads by file, Downloads/),
      () => files(),
    );
    expect((await files()).map((r) => r[0])).toEqual(["/files/guide.pdf", "Other files (fewer than 5 each)"]);

    await page.getByRole("button", { name: "Show paths of Missing" }).click();
    const paths = async () =>
      drawn(
        (
          await api(
            `/api/v1/breakdown?site=${site}&period=day&dimension=prop:path&goal=${notFound}&sort=visitors&order=desc&limit=50`,
          )
        ).rows,
        "paths",
      );
    await draws(
      () => rowsOf(page, /^Missing pages by path, Missing/),
      () => paths(),
    );
    expect((await paths()).map((r) => r[0])).toEqual(["/old-pricing"]);
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
