/**
 * The first-day read (GET /api/v1/sites/{id}/arrivals, worker/reports/arrivals.ts): what it
 * costs on a site whose first day is busy — a Plausible CE user moving a site with traffic —
 * beside a second site of the same size, so the index ranges have something to skip. The read
 * counts the first day's sessions per local hour (sessions_site_first_seen, migration 0019) and
 * its events per hour (events_site_ts), both from the index alone, through the read-only handle.
 *
 *   npm run bench arrivals
 *   BENCH_ARRIVALS_SCALES=10000,100000,1000000 npm run bench arrivals   (events on the first day)
 *
 * Target: p95 ≤ 50 ms at 100,000 events on the first day, ≤ 200 ms at 1,000,000.
 */
import { createClient } from "@libsql/client";
import Database from "libsql";
import { join } from "node:path";
import { applyMigrations, openDatabase } from "../cli/database";
import { loadSettings } from "../cli/settings";
import { readOnly } from "../worker/lib/read-only";
import { siteArrivals } from "../worker/reports/arrivals";
import { publishStatement } from "../worker/reports/publication";
import { percentile, printJson, timeCalls } from "./load";
import { benchScales, inScratchFolder } from "./scratch";

const SITE = "site_benchfirstday01";
const OTHER = "site_benchfirstday02";
const HOUR = 3_600_000;
/** Events per session, as the bench's traffic has them (pageviews and engagement). */
const EVENTS_PER_SESSION = 5;
const READS = 30;

/** Fills the first 23 hours after `first` with `events` events of `events / 5` sessions, for both sites. */
function fill(file: string, events: number, first: number): void {
  const db = new Database(file);
  db.exec("PRAGMA journal_mode = WAL");
  const session = db.prepare("INSERT INTO sessions (id, site_id, first_seen, last_seen, entry_path) VALUES (?, ?, ?, ?, '/')");
  const event = db.prepare("INSERT INTO events (site_id, session_id, kind, path, ts) VALUES (?, ?, 'pageview', '/', ?)");
  let seed = 7;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  db.exec("BEGIN");
  for (const site of [SITE, OTHER]) {
    db.prepare("INSERT INTO sites (id, name, domain, allowlist, timezone) VALUES (?, ?, ?, ?, 'Europe/Berlin')").run(
      site,
      site,
      `${site}.example`,
      JSON.stringify([`${site}.example`]),
    );
    db.prepare("INSERT INTO site_beacons (site_id, origin, first_seen, path) VALUES (?, ?, ?, '/')").run(
      site,
      `https://${site}.example`,
      first,
    );
    for (let s = 0; s < events / EVENTS_PER_SESSION; s++) {
      const start = first + Math.floor(random() * 23 * HOUR);
      const id = `${site.slice(-2)}${s.toString(36)}${Math.floor(random() * 1e9).toString(36)}`;
      session.run(id, site, start, start + 5 * 60_000);
      for (let e = 0; e < EVENTS_PER_SESSION; e++) event.run(site, id, start + e * 60_000);
    }
  }
  db.exec("COMMIT");
  db.close();
}

export async function run(): Promise<void> {
  const results: { events: number; median_ms: number; p95_ms: number; beacons: unknown }[] = [];
  for (const events of benchScales("BENCH_ARRIVALS_SCALES", "10000,100000,1000000")) {
    await inScratchFolder("arrivals", async (dir) => {
      const migrated = await openDatabase(loadSettings({ ...process.env, WREN_DATA: dir }));
      await applyMigrations(migrated);
      migrated.$client.close();
      const now = Date.now();
      const first = now - 23.5 * HOUR;
      const built = performance.now();
      fill(join(dir, "wren.db"), events, first);
      const client = createClient({ url: `file:${join(dir, "wren.db")}` });
      await client.batch([publishStatement(now - 15_000, now)], "write");
      const reader = readOnly(client as never);
      console.log(
        `  ${events.toLocaleString("en")} events on the first day (and as many on another site): written in ${((performance.now() - built) / 1000).toFixed(1)} s`,
      );
      let answer = await siteArrivals(reader, SITE, 5); // warm the page cache, as a running service has it
      const times = await timeCalls(READS, async () => (answer = await siteArrivals(reader, SITE, 5)));
      const row = {
        events,
        median_ms: Number(percentile(times, 0.5).toFixed(1)),
        p95_ms: Number(percentile(times, 0.95).toFixed(1)),
        beacons: answer.beacons,
      };
      console.log(
        `    arrivals read: median ${row.median_ms} ms, p95 ${row.p95_ms} ms over ${READS} reads; band ${JSON.stringify(answer.beacons)}`,
      );
      results.push(row);
      client.close();
    });
  }
  printJson({ bench: "arrivals", results });
}
