/**
 * The privacy property test's attacker against nested dimensions (issue 36 item 5; docs/reports.md
 * rule 9, "Nested dimensions"): fast-check draws one day's sessions as classes — device, system
 * and browser, where the system fixes the device for most systems (Windows, Linux, macOS are
 * desktop, iOS mobile, iPadOS tablet; Android is mobile or tablet), or a visit's source and its
 * campaign tags, where a campaign mostly sits inside one utm_source — with many cells below k.
 * The real rollup folds them into a real libSQL database; the attacker reads the day's visitors
 * and every breakdown of the linked dimensions, and by exact linear algebra over the classes
 * (attack.ts smallGroups) must find no group of 1 to k − 1 sessions, nor a shown cell below k.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readOnly } from "../../worker/lib/read-only";
import { breakdownReport } from "../../worker/reports/breakdown";
import type { Dimension } from "../../worker/reports/dimensions";
import type { Figure } from "../../worker/reports/figures";
import { catchUp } from "../../worker/reports/rollup";
import { timeseriesReport } from "../../worker/reports/timeseries";
import { smallGroups } from "./attack";
import { addEvents, addSite, clearData, openTestDb, type EventDimension, type RawEvent, type TestDb } from "./helpers";

const SITE = "site_nesting";
const DATE = "2026-11-02";

type Session = Partial<Record<EventDimension, string>>;

/**
 * Device, system and browser as a tree, the fixed nesting: each system on one device, each
 * browser version on one system (Safari 18 on macOS, Mobile Safari on iOS, Samsung Internet on
 * Android), and sessions with no User-Agent values.
 */
const SYSTEMS: Session[] = [
  { device: "desktop", os: "Windows 11", browser: "Chrome 131" },
  { device: "desktop", os: "Windows 11", browser: "Edge 131" },
  { device: "desktop", os: "Linux", browser: "Firefox 133" },
  { device: "desktop", os: "macOS 14", browser: "Safari 18" },
  { device: "desktop", os: "macOS 14", browser: "Firefox 134" },
  { device: "mobile", os: "iOS 18", browser: "Mobile Safari 18" },
  { device: "mobile", os: "Android 15", browser: "Chrome Mobile 131" },
  { device: "mobile", os: "Android 15", browser: "Samsung Internet 27" },
  { device: "tablet", os: "iPadOS 18", browser: "Mobile Safari 17" },
  {},
];

/** Device and system where one system crosses two devices (Android phones and tablets). */
const CROSSING: Session[] = [
  { device: "desktop", os: "Windows 11" },
  { device: "desktop", os: "Linux" },
  { device: "desktop", os: "macOS 14" },
  { device: "mobile", os: "iOS 18" },
  { device: "mobile", os: "Android 15" },
  { device: "tablet", os: "Android 15" },
  { device: "tablet", os: "iPadOS 18" },
  { device: "mobile", os: "Android 14" },
  { device: "desktop" },
  {},
];

/**
 * A visit's source and campaign tags as a tree: each utm_source under one source, its medium
 * fixed, each campaign under one utm_source and each content under one campaign; links are
 * tagged in full or not at all, and untagged visits come from one source (untagged visits from
 * several sources cross the tags: docs/reports.md, Limits).
 */
const CAMPAIGNS: Session[] = [
  { source: "Google", utm_source: "google", utm_medium: "cpc", utm_campaign: "spring", utm_content: "ad-a" },
  { source: "Google", utm_source: "google", utm_medium: "cpc", utm_campaign: "spring", utm_content: "ad-b" },
  { source: "Google", utm_source: "google", utm_medium: "cpc", utm_campaign: "autumn", utm_content: "ad-c" },
  { source: "Direct / None", utm_source: "newsletter", utm_medium: "email", utm_campaign: "weekly", utm_content: "top" },
  { source: "Direct / None", utm_source: "newsletter", utm_medium: "email", utm_campaign: "weekly", utm_content: "footer" },
  { source: "Direct / None", utm_source: "newsletter", utm_medium: "email", utm_campaign: "digest", utm_content: "top-digest" },
  { source: "Facebook", utm_source: "facebook", utm_medium: "social", utm_campaign: "launch", utm_content: "post" },
  { source: "Facebook", utm_source: "fb", utm_medium: "social", utm_campaign: "launch-fb", utm_content: "story" },
  { source: "Bing", utm_source: "bing", utm_medium: "cpc", utm_campaign: "spring-bing", utm_content: "ad-d" },
  { source: "Direct / None" },
];

const SYSTEM_DIMENSIONS: Dimension[] = ["device", "os", "browser"];
const CAMPAIGN_DIMENSIONS: Dimension[] = ["source", "utm_source", "utm_medium", "utm_campaign", "utm_content"];

/** Sessions per class: most classes empty or below k, a few near it, so parents are shown and children not. */
const days = (classes: number) =>
  fc.record({
    k: fc.constantFrom(2, 3),
    counts: fc.array(
      fc.integer({ min: 0, max: 6 }).map((n) => Math.max(0, n - 2)),
      { minLength: classes, maxLength: classes },
    ),
  });

const visible = (f: Figure) => f.value !== null;

/**
 * Loads one day of `counts` sessions per class, reads the day's visitors and every breakdown of
 * `dimensions`, and returns what the attacker pins down: shown cells below k and small groups.
 */
async function attack(db: TestDb, classes: Session[], dimensions: Dimension[], counts: number[], k: number) {
  await clearData(db.client);
  await addSite(db.client, SITE);
  const events: RawEvent[] = [];
  classes.forEach((dims, c) => {
    for (let n = 0; n < counts[c]!; n++)
      events.push({ site: SITE, session: `s${c}_${n}`, path: "/", ts: Date.parse(`${DATE}T10:00:00Z`), dims });
  });
  await addEvents(db.client, events);
  await catchUp(db.client as never);
  const reader = readOnly(db.client as never);
  const scope = { siteId: SITE, from: DATE, to: DATE, timeZone: "UTC", k };
  const facts: number[][] = [];
  const shownSmall: string[] = [];
  const fact = (members: (i: number) => boolean, figure: Figure, what: string) => {
    if (!visible(figure)) return;
    const of = counts.flatMap((_, i) => (members(i) ? [i] : []));
    expect(figure.value, what).toBe(of.reduce((n, i) => n + counts[i]!, 0));
    if (figure.value! > 0 && figure.value! < k) shownSmall.push(`${what}: ${figure.value}`);
    facts.push(of);
  };
  fact(() => true, (await timeseriesReport(reader, scope, "day")).points[0]!.visitors, "the day's visitors");
  for (const dimension of dimensions)
    for (const r of (await breakdownReport(reader, scope, dimension)).rows)
      fact((i) => (classes[i]![dimension as EventDimension] ?? null) === r.value, r.visitors, `${dimension} ${r.value} visitors`);
  const name = (i: number) => Object.values(classes[i]!).join(" ") || "no value";
  const groups = smallGroups(classes.length, facts, counts, k).map(
    (g) => `${g.map(name).join(" or ")} (${g.reduce((n, i) => n + counts[i]!, 0)})`,
  );
  return { shownSmall, groups };
}

describe("the k-anonymity filter under attack, nested dimensions", () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb();
  });
  afterAll(() => db.close());

  it("no small group of sessions follows from the device, system and browser breakdowns", async () => {
    await fc.assert(
      fc.asyncProperty(days(SYSTEMS.length), async ({ k, counts }) => {
        const { shownSmall, groups } = await attack(db, SYSTEMS, SYSTEM_DIMENSIONS, counts, k);
        expect(shownSmall).toEqual([]);
        expect(groups).toEqual([]);
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it("no small group of sessions follows from the device and system breakdowns when a system crosses devices", async () => {
    await fc.assert(
      fc.asyncProperty(days(CROSSING.length), async ({ k, counts }) => {
        const { shownSmall, groups } = await attack(db, CROSSING, ["device", "os"], counts, k);
        expect(shownSmall).toEqual([]);
        expect(groups).toEqual([]);
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it("no small group of sessions follows from the source and campaign breakdowns", async () => {
    await fc.assert(
      fc.asyncProperty(days(CAMPAIGNS.length), async ({ k, counts }) => {
        const { shownSmall, groups } = await attack(db, CAMPAIGNS, CAMPAIGN_DIMENSIONS, counts, k);
        expect(shownSmall).toEqual([]);
        expect(groups).toEqual([]);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
