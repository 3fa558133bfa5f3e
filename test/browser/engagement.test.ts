/**
 * The Overview's engagement cards in real Chromium (Debian's, via playwright-core) on the real
 * stack (`wren start`): bounce rate with the visits it is a share of, the median visit duration
 * and views per visit draw exactly what GET /api/v1/aggregate answers for the same period:
 * unfiltered (the median a value, in minutes and seconds), with the comparison on (each card's
 * change line, as the trend's totals write it), filtered to a country (the median only a range,
 * such as "≈ 0–30 s", and no change written for it), and filtered to a country of two visitors
 * (every figure "< 5" with the words of a hidden figure, never 0). Over days the per-session rows
 * no longer cover, a filter's refusal is one line, not an error; with Today the cards say in one
 * line that they are read by whole days, and nothing is asked of the API for them.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { launchChromium } from "../helpers/browser";
import { openDashboardPage, signIn } from "../helpers/dashboard-page";
import { addEvents, type RawEvent } from "../reports/helpers";
import { lastCompleteDay } from "../../worker/reports/period";
import { addDays } from "../../worker/reports/timezone";

type Figure = { value: number | null; qualifier: string; previous?: Figure; delta?: Delta };
type Delta = { absolute: Figure; relative: Figure | null };
type Results = Record<"visits" | "views_per_visit" | "visit_duration" | "visit_duration_low" | "visit_duration_high", Figure> & {
  bounce_rate: Figure & { denominator: Figure };
};
type Aggregate = { results: Results; comparison?: { from: string; to: string } };

let f: ApiFixture;
let browser: Browser;
let site = "";
const DAY_MS = 86_400_000;
const Y = lastCompleteDay("UTC", Date.now());
/** The period before the 7 days ending yesterday (compare=previous). */
const P = addDays(Y, -7);

/** The general sentence of a hidden figure (dashboard/src/ui/hidden.ts), k = 5. */
const HIDDEN = "Hidden: fewer than 5 sessions, or hiding it keeps a small group from being worked out from the figures shown.";

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  browser = await launchChromium();
  site = (await f.makeSite("engagement.wren.test", "Engaged shop")).id;
  const events: RawEvent[] = [];
  let n = 0;
  /** A visit of `date`: a pageview at 10:00 and, unless it bounces, a second `seconds` later. */
  const visit = (date: string, country: string, seconds: number | null) => {
    const session = `engaged-${n++}`;
    const start = Date.parse(`${date}T10:00:00Z`) + n * 1000;
    events.push({ site, session, path: "/", ts: start, dims: { country } });
    if (seconds !== null) events.push({ site, session, path: "/pricing", ts: start + seconds * 1000 });
  };
  // Yesterday: 34 French visits of 95 s and 10 bounces; 12 German visits of spread durations
  // (each in a bucket of its own) and 10 bounces; 2 American bounces. The site's median lies
  // among the French (its bucket holds k: a value), the Germans' among their own spread
  // durations (a range), and the Americans are fewer than k.
  for (let i = 0; i < 34; i++) visit(Y, "FR", 95);
  for (let i = 0; i < 10; i++) visit(Y, "FR", null);
  for (const seconds of [20, 25, 30, 35, 40, 50, 60, 70, 80, 125, 160, 200]) visit(Y, "DE", seconds);
  for (let i = 0; i < 10; i++) visit(Y, "DE", null);
  for (let i = 0; i < 2; i++) visit(Y, "US", null);
  // A week earlier (the previous period): 15 French visits of 60 s and 10 bounces.
  for (let i = 0; i < 15; i++) visit(P, "FR", 60);
  for (let i = 0; i < 10; i++) visit(P, "FR", null);
  await f.seedHistory(async (db) => {
    await addEvents(db, events);
    // Registered and verified three weeks ago: the seeded days are the site's own, and the
    // Overview shows its reports rather than "No data yet".
    await db.execute({ sql: "UPDATE sites SET created_at = ? WHERE id = ?", args: [Date.now() - 21 * DAY_MS, site] });
    await db.execute({
      sql: "INSERT INTO site_beacons (site_id, origin, first_seen, path) VALUES (?, ?, ?, ?)",
      args: [site, "http://engagement.wren.test", Date.now() - 21 * DAY_MS, "/"],
    });
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await f?.close();
});

const decimals = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });
const counts = new Intl.NumberFormat("en", { maximumFractionDigits: 0 });

/** "48 s", "1 m 35 s", "2 m", "1 h 5 m". */
function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)} m ${s % 60} s` : `${s / 60} m`;
  const m = Math.floor((s % 3600) / 60);
  return m ? `${Math.floor(s / 3600)} h ${m} m` : `${Math.floor(s / 3600)} h`;
}

type Format = "count" | "percent" | "decimal" | "duration";
function formatted(value: number, format: Format): string {
  if (format === "percent") return `${decimals.format(Math.round(value * 1000) / 10)} %`;
  if (format === "decimal") return decimals.format(value);
  if (format === "duration") return duration(value);
  return counts.format(value);
}

/** A figure as the dashboard draws it: "< 5" when hidden (k = 5), "≈ …" when estimated. */
function shown(figure: Figure, format: Format = "count"): string {
  if (figure.qualifier === "suppressed" || figure.value === null) return "< 5";
  const text = formatted(figure.value, format);
  return figure.qualifier === "estimated" ? `≈ ${text}` : text;
}

/** The median as drawn: its value, else the range it lies in, widened to whole seconds, else "< 5". */
function median(value: Figure, low: Figure | undefined, high: Figure | undefined): string {
  if (value.value !== null || !low || !high || low.value === null || high.value === null) return shown(value, "duration");
  const [from, to] = [Math.floor(low.value), Math.ceil(high.value)];
  return `≈ ${to < 60 ? `${from}–${to} s` : `${duration(from)} – ${duration(to)}`}`;
}

/** The median is no value, but its range is shown: no change is written for it. */
const onlyRange = (value?: Figure, low?: Figure, high?: Figure) =>
  value?.value === null && typeof low?.value === "number" && typeof high?.value === "number";

/** A change line as drawn (the words for screen readers left out): "↓ ≈ 34.2 % from ≈ 40 % (… to …)". */
function change(report: Aggregate, figure: Figure, format: Format, previous: string, ranged = false): string[] {
  if (!report.comparison || !figure.delta) return [];
  const { absolute, relative } = figure.delta;
  let text: string;
  if (ranged) text = "change not shown (a range)";
  else if (absolute.value === null) text = "change < 5";
  else {
    const direction = absolute.value > 0 ? "up" : absolute.value < 0 ? "down" : "none";
    const arrow = direction === "up" ? "↑" : direction === "down" ? "↓" : "→";
    if (!relative || relative.value === null)
      text = `${arrow} ${direction === "none" ? "no change" : `${direction} ${formatted(Math.abs(absolute.value), format)}, nothing before`}`;
    else text = `${arrow} ${relative.qualifier === "estimated" ? "≈ " : ""}${formatted(Math.abs(relative.value), "percent")}`;
  }
  return [`${text} from ${previous} (${report.comparison.from} to ${report.comparison.to})`];
}

/** The cards as the API's answer must draw them: each card's label and lines. */
function cardsOf(report: Aggregate): string[][] {
  const r = report.results;
  const [d, low, high] = [r.visit_duration, r.visit_duration_low, r.visit_duration_high];
  return [
    [
      "Bounce rate",
      shown(r.bounce_rate, "percent"),
      `of ${shown(r.bounce_rate.denominator)} visits`,
      ...change(report, r.bounce_rate, "percent", r.bounce_rate.previous ? shown(r.bounce_rate.previous, "percent") : ""),
    ],
    [
      "Visit duration",
      median(d, low, high),
      "median",
      ...change(
        report,
        d,
        "duration",
        d.previous ? median(d.previous, low.previous, high.previous) : "",
        onlyRange(d, low, high) || onlyRange(d.previous, low.previous, high.previous),
      ),
    ],
    [
      "Views per visit",
      shown(r.views_per_visit, "decimal"),
      ...change(
        report,
        r.views_per_visit,
        "decimal",
        r.views_per_visit.previous ? shown(r.views_per_visit.previous, "decimal") : "",
      ),
    ],
  ];
}

async function aggregate(query: string): Promise<Aggregate> {
  const res = await f.admin("GET", `/api/v1/aggregate?site=${site}&${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const CARDS = ["Bounce rate", "Visit duration", "Views per visit"].map((label) => `${label} in the period`);

/** The cards as the page draws them: heading, then each line, without the screen readers' words. */
const drawnCards = (page: Page) =>
  Promise.all(
    CARDS.map(async (name) => {
      const card = page.getByRole("region", { name, exact: true });
      if ((await card.count()) === 0) return [];
      return card.evaluate((section) =>
        [...section.querySelectorAll("h3, p")].map((line) => {
          const copy = line.cloneNode(true) as typeof line;
          copy.querySelectorAll(".sr-only").forEach((hidden: { remove(): void }) => hidden.remove());
          return copy.textContent;
        }),
      );
    }),
  );

/** Polls until the page draws what the API answers (read afresh: days publish after a restart). */
async function follows(page: Page, query: string): Promise<Aggregate> {
  let report: Aggregate | undefined;
  await expect
    .poll(
      async () => {
        const [drawn, answer] = await Promise.all([drawnCards(page), aggregate(query)]);
        report = answer;
        const want = cardsOf(answer);
        return JSON.stringify(drawn) === JSON.stringify(want) ? "same" : JSON.stringify({ drawn, want });
      },
      { timeout: 20_000 },
    )
    .toBe("same");
  return report!;
}

describe("engagement cards on the Overview", () => {
  it("show the aggregate's figures under filters and with a comparison, and say why Today has none", async () => {
    const { page, context, errors } = await openDashboardPage(browser);
    const reads: URL[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname === "/api/v1/aggregate") reads.push(url);
    });
    await signIn(page, f.stack.url, f.stack.adminKey!);

    // Unfiltered: the site's median lies in a bucket of k visits (a value, past a minute).
    await page.goto(`${f.stack.url}/dashboard/s/${site}/overview?period=7d`);
    const everyone = await follows(page, "period=7d");
    expect(everyone.results.visit_duration.value).toBeGreaterThan(60);
    expect(everyone.results.bounce_rate.value).toBeGreaterThan(0);
    expect(await page.getByRole("region", { name: "Visit duration in the period" }).locator(".value").textContent()).toMatch(
      /^≈ 1 m \d+ s$/,
    );
    expect(reads.at(-1)!.searchParams.get("period")).toBe("7d");

    // The comparison's change line on each card, as the trend's totals write theirs.
    await page.getByRole("group", { name: "Compare with" }).getByRole("button", { name: "Previous period" }).click();
    const compared = await follows(page, "period=7d&compare=previous");
    expect(compared.comparison).toMatchObject({ from: addDays(P, -6), to: P });
    expect(compared.results.visit_duration.delta!.relative!.value).toBeGreaterThan(0);
    expect(reads.at(-1)!.searchParams.get("compare")).toBe("previous");
    const durationCard = page.getByRole("region", { name: "Visit duration in the period" });
    expect(await durationCard.locator(".delta-change").getAttribute("data-delta")).toBe(
      String(compared.results.visit_duration.delta!.relative!.value),
    );
    expect(await durationCard.locator(".delta-change .sr-only").textContent()).toMatch(/^up /);

    // Filtered to Germany (the address, as a bookmark holds it): the median is only a range.
    await page.goto(`${f.stack.url}/dashboard/s/${site}/overview?period=7d&compare=previous&filter=country:DE`);
    const germans = await follows(page, "period=7d&compare=previous&filter=country:DE");
    expect(germans.results.visit_duration.value).toBeNull();
    expect(germans.results.visit_duration_low.value).not.toBeNull();
    expect(await durationCard.locator(".value").textContent()).toMatch(/^≈ \d+–\d+ s$/);
    expect(await durationCard.locator(".value .figure").getAttribute("title")).toMatch(
      /^A range: the histogram bucket holding the median/,
    );
    expect(reads.at(-1)!.searchParams.getAll("filter")).toEqual(["country:DE"]);
    // A median known only as a range has no change to write ("< 5" would read as seconds).
    expect(await durationCard.locator(".delta-change").textContent()).toBe("change not shown (a range)");
    expect(JSON.stringify(germans.results)).not.toBe(JSON.stringify(compared.results));

    // Two American visitors: fewer than k, every figure hidden and read as hidden, never 0.
    await page.goto(`${f.stack.url}/dashboard/s/${site}/overview?period=7d&filter=country:US`);
    const americans = await follows(page, "period=7d&filter=country:US");
    expect(americans.results.bounce_rate.qualifier).toBe("suppressed");
    expect(americans.results.visit_duration.qualifier).toBe("suppressed");
    const bounceCard = page.getByRole("region", { name: "Bounce rate in the period" });
    expect(await bounceCard.locator(".value").textContent()).toBe("< 5");
    expect(await bounceCard.locator(".value .figure").getAttribute("title")).toBe(HIDDEN);
    expect(await bounceCard.locator(".rate-of").textContent()).toBe("of < 5 visits");

    // Filters over days the per-session rows no longer cover (30 days kept): one line says so,
    // where the trend (one session filter reaches further there) still draws.
    const from = addDays(Y, -59);
    await page.goto(`${f.stack.url}/dashboard/s/${site}/overview?period=custom&from=${from}&to=${Y}&filter=country:DE`);
    const refused = page.getByRole("note").filter({ hasText: "cannot be read with filters over this period" });
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(
      /^Bounce rate, visit duration and views per visit cannot be read with filters over this period\. Filtered figures are read from per-session rows, which are kept for WREN_RAW_RETENTION_DAYS \(30 days\); the earliest day such a period can start is \d{4}-\d{2}-\d{2}\.$/,
    );
    expect(await drawnCards(page)).toEqual([[], [], []]);
    await page.locator("table.overview-points").waitFor();
    expect(await page.locator(".failure").count()).toBe(0);
    // The browser logs the refused read itself; the page shows no error.
    expect([...new Set(errors.splice(0))]).toEqual(["Failed to load resource: the server responded with a status of 422 ()"]);

    // Today: one line says why, no card, no read of the aggregate, no error.
    reads.length = 0;
    await page.goto(`${f.stack.url}/dashboard/s/${site}/overview?period=7d`);
    await follows(page, "period=7d");
    reads.length = 0;
    await page.getByRole("group", { name: "Period" }).getByRole("button", { name: "Today" }).click();
    const note = page.getByRole("note").filter({ hasText: "read by whole days" });
    await note.waitFor();
    expect(await note.textContent()).toBe(
      "Bounce rate, visit duration and views per visit are read by whole days, since a visit goes on after an hour closes: pick Yesterday, 7 days or 30 days to see them.",
    );
    expect(await drawnCards(page)).toEqual([[], [], []]);
    expect(reads).toEqual([]);
    expect(await page.locator(".failure").count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
});
