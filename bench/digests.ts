/**
 * Digest composition at scale: the alerts bench's data (bench/alerts.ts generate: 100 Zipf
 * sites in three zones, three goals each, 30 days up to now), folded and published, then one
 * weekly and one monthly digest per site (two addresses and no destination each) made due, and
 * passes of worker/alerts/digests.ts queueDueDigests timed over the embedded libSQL server (Hrana
 * over HTTP, as the alerts worker reads it). The first pass composes every digest (its period and
 * the one before: timeseries, pages, sources and conversions, each through the k-filter) and
 * queues its mail; the passes after it find nothing due, the steady cost every scheduler alarm pays.
 *
 *   npm run bench digests                         (1 M events)
 *   BENCH_DIGEST_SCALES=200000 npm run bench digests
 */
import { createClient } from "@libsql/client";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { applyMigrations, openDatabase } from "../cli/database";
import { loadSettings } from "../cli/settings";
import { startHranaServer } from "../server/hrana/index";
import { queueDueDigests, type DigestPassOptions } from "../worker/alerts/digests";
import { DEFAULT_K } from "../worker/reports/privacy";
import { publishStatement } from "../worker/reports/publication";
import { PUBLISH_GRACE_MS } from "../worker/reports/publisher";
import { catchUp } from "../worker/reports/rollup";
import { fmt, generate, median, timed } from "./alerts";
import { printJson } from "./load";
import { benchScales, inScratchFolder } from "./scratch";

const PASSES = 11;

async function scale(events: number): Promise<void> {
  return inScratchFolder("digests", async (dir) => {
    const file = join(dir, "wren.db");
    const settings = loadSettings({ ...process.env, WREN_DATA: dir });
    const migrated = await openDatabase(settings);
    await applyMigrations(migrated);
    migrated.$client.close();
    const now = Date.now();
    const g = generate(file, events, now);
    const local = createClient({ url: `file:${file}` });
    await catchUp(local as never);
    await local.batch([publishStatement(now - PUBLISH_GRACE_MS, now)], "write");
    // Every site gets a weekly and a monthly digest, due now (their last period long ago).
    await local.execute(
      "INSERT INTO digest_schedules (id, site_id, frequency, email_to, destination_id, created_by, created_at, last_period_end) " +
        "SELECT 'dgs_w' || id, id, 'weekly', '[\"a@example.com\",\"b@example.com\"]', NULL, 'key_bench', 0, '2000-01-02' FROM sites " +
        "UNION ALL SELECT 'dgs_m' || id, id, 'monthly', '[\"a@example.com\",\"b@example.com\"]', NULL, 'key_bench', 0, '2000-01-31' FROM sites",
    );
    const digests = Number((await local.execute("SELECT count(*) AS n FROM digest_schedules")).rows[0]!.n);
    local.close();
    console.log(
      `\n${(events / 1e6).toFixed(1)} M events (${g.sessions.toLocaleString("en")} sessions) on 100 sites; ${digests} digests due`,
    );

    const authToken = randomBytes(32).toString("base64url");
    const server = await startHranaServer({ file, host: "127.0.0.1", port: 0, authToken });
    const client = createClient({ url: server.url, authToken });
    try {
      const options: DigestPassOptions = {
        now,
        holder: "box_bench",
        k: DEFAULT_K,
        publicUrl: "https://wren.example.com",
        leaseMs: 180_000,
        mail: true,
      };
      // Passes until every digest is queued (DIGESTS_PER_PASS each): the cost of composing them all.
      const first = await timed(async () => {
        let queued = 0;
        for (let n = -1; n !== 0; queued += n) n = (await queueDueDigests(client as never, options)).queued;
        return { queued };
      });
      if (first.value.queued !== digests) throw new Error(`the first passes queued ${first.value.queued} of ${digests}`);
      const mails = Number((await client.execute("SELECT count(*) AS n FROM mail_outbox")).rows[0]!.n);
      const steady: number[] = [];
      for (let i = 0; i < PASSES; i++) {
        const pass = await timed(() => queueDueDigests(client as never, options));
        if (pass.value.queued !== 0) throw new Error("a steady pass queued a digest again");
        steady.push(pass.ms);
      }
      const steadyMs = median(steady);
      console.log(
        `first passes (compose and queue every digest, DIGESTS_PER_PASS at a time): ${fmt(first.ms)}, ${fmt(first.ms / digests)} a digest; ${mails} mail rows`,
      );
      console.log(`steady pass (nothing due), median of ${PASSES}: ${fmt(steadyMs)}`);
      printJson({
        bench: "digests",
        events,
        digests,
        firstPassMs: Math.round(first.ms),
        perDigestMs: Math.round(first.ms / digests),
        mails,
        steadyPassMs: Math.round(steadyMs),
      });
    } finally {
      client.close();
      await server.close();
    }
  });
}

export async function run(): Promise<void> {
  for (const events of benchScales("BENCH_DIGEST_SCALES", "1000000")) await scale(events);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
