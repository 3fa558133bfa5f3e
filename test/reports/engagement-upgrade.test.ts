/**
 * Upgrading to the engagement figures (migration 0019): on a database at 0018 whose session-days
 * and page-day units were folded by the earlier fold (no span, no unit key, no pageviews per
 * unit), the migration backfills each session-day's span from its first and last pageview ids,
 * its unit key, each page-day unit's pageviews and the site-days' engagement rows and duration
 * histograms, so the engagement figures read exactly as a fold by the new code reads them. A
 * real upgrade on real libSQL: the migrations before 0019, the old rows, then 0019.
 */
import { createClient, type Client } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readOnly } from "../../worker/lib/read-only";
import { engagementFigures } from "../../worker/reports/engagement";
import { catchUp } from "../../worker/reports/rollup";
import { addEvents, addSite, at, noiseKey, openTestDb, type RawEvent } from "./helpers";

const SITE = "site_engagement_upgrade";
const DAY = "2026-11-02";
const MIGRATIONS = resolve(import.meta.dirname, "../../migrations");
const dir = mkdtempSync(join(tmpdir(), "wren-engagement-upgrade-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The migrations folder up to `last` (inclusive): a copy with a shortened journal. */
function migrationsUpTo(last: string): string {
  const folder = join(dir, last);
  cpSync(MIGRATIONS, folder, { recursive: true });
  const file = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(file, "utf8")) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag === last);
  expect(at).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, at + 1);
  writeFileSync(file, JSON.stringify(journal));
  return folder;
}

/** "a": / twice and /pricing, 10:00–10:07; "b" bounces; "c": / then /docs 30 s later; a pageview without a session. */
const EVENTS: RawEvent[] = [
  { site: SITE, session: "a", path: "/", ts: at(DAY, 10, 0) },
  { site: SITE, session: "a", path: "/pricing", ts: at(DAY, 10, 3) },
  { site: SITE, session: "a", path: "/", ts: at(DAY, 10, 7) },
  { site: SITE, session: "b", path: "/", ts: at(DAY, 11, 0) },
  { site: SITE, session: "c", path: "/", ts: at(DAY, 12, 0) },
  { site: SITE, session: "c", path: "/docs", ts: at(DAY, 12, 0) + 30_000 },
  { site: SITE, session: null, path: "/", ts: at(DAY, 13, 0) },
];

/** The session-days and page-day units as the fold before 0019 wrote them. */
async function oldRollups(client: Client): Promise<void> {
  const ids = (await client.execute("SELECT id, session_id, path FROM events ORDER BY id")).rows.map((r) => ({
    id: Number(r.id),
    unit: r.session_id === null ? `e:${Number(r.id)}` : String(r.session_id),
    path: String(r.path),
  }));
  const units = [...new Set(ids.map((r) => r.unit))];
  await client.batch(
    [
      ...units.map((unit) => {
        const mine = ids.filter((r) => r.unit === unit);
        return {
          sql: "INSERT INTO rollup_session_day (site_id, day, unit, first_pageview_id, last_pageview_id, pageviews, entry_page, exit_page) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
          args: [SITE, DAY, unit, mine[0]!.id, mine.at(-1)!.id, mine.length, mine[0]!.path, mine.at(-1)!.path],
        };
      }),
      ...[...new Set(ids.map((r) => `${r.unit}\u0000${r.path}`))].map((pair) => ({
        sql: "INSERT INTO rollup_page_day_units (site_id, day, path, unit) VALUES (?, ?, ?, ?)",
        args: [SITE, DAY, pair.split("\u0000")[1]!, pair.split("\u0000")[0]!],
      })),
    ],
    "write",
  );
}

describe("migration 0019", () => {
  it("backfills spans, unit keys, pageviews per page and the site-day's engagement: the figures read as the new fold's", async () => {
    const client = createClient({ url: `file:${join(dir, "wren.db")}` });
    try {
      await migrate(drizzle(client), { migrationsFolder: migrationsUpTo("0018_sessions_first_seen") });
      await addSite(client, SITE);
      await addEvents(client, EVENTS);
      await oldRollups(client);
      await migrate(drizzle(client), { migrationsFolder: MIGRATIONS });

      // The reference: the same events folded by today's fold, on a fresh database with the same secrets.
      const fresh = await openTestDb();
      try {
        const secrets = (await client.execute("SELECT secret, position_secret FROM rollup_cell_key")).rows[0]!;
        await fresh.client.execute({
          sql: "UPDATE rollup_cell_key SET secret = ?, position_secret = ?",
          args: [Number(secrets.secret), Number(secrets.position_secret)],
        });
        await addSite(fresh.client, SITE);
        await addEvents(fresh.client, EVENTS);
        await catchUp(fresh.client as never);

        const rows = async (c: Client, sql: string) => (await c.execute(sql)).rows.map((r) => ({ ...r }));
        for (const sql of [
          "SELECT unit, first_ts, last_ts, unit_key, pageviews FROM rollup_session_day ORDER BY unit",
          "SELECT unit, path, pageviews FROM rollup_page_day_units ORDER BY unit, path",
          "SELECT * FROM rollup_engagement_day",
          "SELECT * FROM rollup_duration_histogram ORDER BY bucket",
        ]) {
          expect(await rows(client, sql), sql).toEqual(await rows(fresh.client, sql));
        }
        expect(await rows(client, "SELECT unit, pageviews FROM rollup_page_day_units WHERE path = '/' ORDER BY unit")).toEqual([
          { unit: "a", pageviews: 2 },
          { unit: "b", pageviews: 1 },
          { unit: "c", pageviews: 1 },
          { unit: expect.stringMatching(/^e:\d+$/), pageviews: 1 },
        ]);
        const site = { site: { siteId: SITE, from: DAY, to: DAY } };
        const options = { k: 2, noiseKey: await noiseKey(client) };
        const upgraded = await engagementFigures(readOnly(client), site, options);
        expect(upgraded.visits.value).not.toBeNull();
        expect(upgraded).toEqual(await engagementFigures(fresh.reader, site, options));
      } finally {
        fresh.close();
      }
    } finally {
      client.close();
    }
  });
});
