/**
 * The writer's statements for sessions and site_beacons, run on a real libSQL database: the
 * verification's row is the first beacon per site and origin, and no later flush (a later
 * beacon, another page, a restarted isolate offering it again) changes it; a session keeps its
 * first time and entry page, and no per-session pageview count is written; a smoke-test
 * conversion gets its record (the caller's id in plain text) in the same flush, once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyRequest, writeStatements, type IngestRequest } from "../../worker/collector/rows";
import { EVENT_WINDOW_MS } from "../../worker/collector/window";
import { addGoal, addSite, openTestDb, type TestDb } from "../reports/helpers";

let db: TestDb;
beforeAll(async () => {
  db = await openTestDb();
  await addSite(db.client, "site_rows");
  await addGoal(db.client, "site_rows", "goal_smoke");
  await addGoal(db.client, "site_rows", "goal_plain");
}, 60_000);
afterAll(() => db?.close());

function request(part: Partial<IngestRequest>): IngestRequest {
  return { ...emptyRequest(), ...part };
}

async function flush(...requests: IngestRequest[]): Promise<void> {
  await db.client.batch(writeStatements(requests, 10_000, EVENT_WINDOW_MS), "write");
}

const table = async (sql: string) => (await db.client.execute(sql)).rows.map((r) => ({ ...r }));

describe("site_beacons", () => {
  it("keeps the first beacon per site and origin, with its page, whatever comes later", async () => {
    const beacon = (origin: string, ts: number) => request({ beacons: [{ siteId: "site_rows", origin, ts, path: `/at-${ts}` }] });
    // One flush with two beacons of one origin: the earlier one.
    await flush(beacon("https://a.example", 2000), beacon("https://a.example", 1500));
    await flush(beacon("https://a.example", 5000));
    await flush(beacon("https://a.example", 1000), beacon("https://www.a.example", 7000));
    expect(await table("SELECT * FROM site_beacons ORDER BY origin")).toEqual([
      { site_id: "site_rows", origin: "https://a.example", first_seen: 1500, path: "/at-1500" },
      { site_id: "site_rows", origin: "https://www.a.example", first_seen: 7000, path: "/at-7000" },
    ]);
  });
});

describe("sessions", () => {
  it("keeps the first time and entry page, moves last_seen, and counts no pageviews", async () => {
    const touch = (ts: number, entryPath: string | null) =>
      request({ sessions: [{ id: "s1", siteId: "site_rows", ts, entryPath }] });
    await flush(touch(3000, null), touch(3500, "/pricing"));
    await flush(touch(4000, "/later"));
    expect(await table("SELECT id, first_seen, last_seen, entry_path FROM sessions")).toEqual([
      { id: "s1", first_seen: 3000, last_seen: 4000, entry_path: "/pricing" },
    ]);
    const [statement] = writeStatements([touch(5000, "/")], 10_000, EVENT_WINDOW_MS);
    expect(typeof statement === "string" ? statement : statement!.sql).not.toContain("pageviews");
  });
});

describe("smoke_conversions", () => {
  const conversion = (key: string, goalId: string, smokeId: string | null | undefined, tokenVersion: number | null = null) =>
    request({
      conversions: [
        {
          siteId: "site_rows",
          goalId,
          value: null,
          source: "s2s",
          key,
          ts: 9000,
          sessionId: null,
          lookup: null,
          tokenVersion,
          ...(smokeId !== undefined ? { smoke: { id: smokeId } } : {}),
        },
      ],
    });

  it("records each stored smoke-test conversion once, with the caller's id, beside the conversion it describes", async () => {
    await flush(
      conversion("id:a", "goal_smoke", "dep_a"),
      conversion("auto:b", "goal_smoke", null),
      conversion("id:c", "goal_plain", undefined),
    );
    // A replay (same key): no second conversion, no second record; a reused key on another goal: none.
    await flush(conversion("id:a", "goal_smoke", "dep_a"), conversion("id:c", "goal_smoke", "dep_c"));
    // Refused by the token version guard (the site's version is 1): nothing.
    await flush(conversion("id:d", "goal_smoke", "dep_d", 7));
    expect(
      await table(
        "SELECT c.event_key, s.goal_id, s.external_id, s.attached, s.ts FROM smoke_conversions s JOIN conversions c ON c.id = s.conversion_id ORDER BY c.id",
      ),
    ).toEqual([
      { event_key: "id:a", goal_id: "goal_smoke", external_id: "dep_a", attached: 0, ts: 9000 },
      { event_key: "auto:b", goal_id: "goal_smoke", external_id: null, attached: 0, ts: 9000 },
    ]);
    expect(await table("SELECT event_key, goal_id FROM conversions ORDER BY id")).toEqual([
      { event_key: "id:a", goal_id: "goal_smoke" },
      { event_key: "auto:b", goal_id: "goal_smoke" },
      { event_key: "id:c", goal_id: "goal_plain" },
    ]);
  });
});

describe("rows as one JSON argument", () => {
  const event = (path: string, extra: Partial<IngestRequest["events"][number]> = {}): IngestRequest["events"][number] => ({
    siteId: "site_rows",
    sessionId: null,
    kind: "event",
    name: null,
    path,
    referrer: null,
    value: null,
    seconds: null,
    scrollDepth: null,
    ts: 20_000,
    dimensions: null,
    ...extra,
  }) as IngestRequest["events"][number];

  it("stores each value as given: text with quotes and non-ASCII, whole and fractional numbers, nulls", async () => {
    await flush(
      request({
        events: [
          event("/q\"u'o\\te/✓/😀", {
            kind: "pageview",
            referrer: "news.example",
            sessionId: "s-json",
            dimensions: {
              source: "news.example",
              utmSource: "news'letter",
              utmMedium: null,
              utmCampaign: "launch ✓",
              utmContent: null,
              utmTerm: null,
              browser: "Firefox 133",
              os: "Windows 11",
              device: "desktop",
              country: "DE",
            },
          }),
          event("/frac", { name: "buy", value: 12.5 }),
          event("/whole", { kind: "engagement", seconds: 40, scrollDepth: 100, ts: 1_767_225_600_123 }),
        ],
        vitals: [{ siteId: "site_rows", sessionId: null, path: "/v", metric: "CLS", value: 0.0625, ts: 20_001 }],
      }),
    );
    expect(
      await table(
        "SELECT session_id, kind, name, path, referrer, value, typeof(value) AS value_type, seconds, scroll_depth, ts, typeof(ts) AS ts_type " +
          "FROM events WHERE path IN ('/q\"u''o\\te/✓/😀', '/frac', '/whole') ORDER BY id",
      ),
    ).toEqual([
      {
        session_id: "s-json",
        kind: "pageview",
        name: null,
        path: "/q\"u'o\\te/✓/😀",
        referrer: "news.example",
        value: null,
        value_type: "null",
        seconds: null,
        scroll_depth: null,
        ts: 20_000,
        ts_type: "integer",
      },
      {
        session_id: null,
        kind: "event",
        name: "buy",
        path: "/frac",
        referrer: null,
        value: 12.5,
        value_type: "real",
        seconds: null,
        scroll_depth: null,
        ts: 20_000,
        ts_type: "integer",
      },
      {
        session_id: null,
        kind: "engagement",
        name: null,
        path: "/whole",
        referrer: null,
        value: null,
        value_type: "null",
        seconds: 40,
        scroll_depth: 100,
        ts: 1_767_225_600_123,
        ts_type: "integer",
      },
    ]);
    expect(await table("SELECT path, metric, value FROM vitals WHERE path = '/v'")).toEqual([
      { path: "/v", metric: "CLS", value: 0.0625 },
    ]);
    expect(
      await table(
        "SELECT path, source, utm_source, utm_medium, utm_campaign, utm_content, utm_term, browser, os, device, country FROM events WHERE path IN ('/q\"u''o\\te/✓/😀', '/frac') ORDER BY id",
      ),
    ).toEqual([
      {
        path: "/q\"u'o\\te/✓/😀",
        source: "news.example",
        utm_source: "news'letter",
        utm_medium: null,
        utm_campaign: "launch ✓",
        utm_content: null,
        utm_term: null,
        browser: "Firefox 133",
        os: "Windows 11",
        device: "desktop",
        country: "DE",
      },
      {
        path: "/frac",
        source: null,
        utm_source: null,
        utm_medium: null,
        utm_campaign: null,
        utm_content: null,
        utm_term: null,
        browser: null,
        os: null,
        device: null,
        country: null,
      },
    ]);
  });

  it("sends the same SQL text whatever the number of rows, so the server prepares each statement once", () => {
    const sqlOf = (count: number) =>
      writeStatements(
        [request({ events: Array.from({ length: count }, (_, i) => event(`/n${i}`)) })],
        10_000,
        EVENT_WINDOW_MS,
      ).map((s) => (typeof s === "string" ? s : s.sql));
    expect(sqlOf(1)).toEqual(sqlOf(4_000));
    expect(sqlOf(4_000)).toHaveLength(1);
  });
});
