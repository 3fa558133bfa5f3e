/**
 * `wren backup` and `wren restore` on the real stack, under load: while a beacon loop and an s2s
 * loop send events one after another through the real collector (each recorded when its 202
 * arrives), `wren backup` copies the running service's database. The copy is restored into a
 * fresh data folder and a second service started on it:
 * - every event acknowledged before the backup began is there: beacons by their unique paths,
 *   s2s conversions by their idempotency ids (sent again, each is a duplicate — which also needs
 *   the restored secret, whose HMAC keys the stored ids);
 * - the copy is consistent: of each sequential loop it holds exactly a prefix;
 * - the restored service serves the published day's reports byte for byte as the original did
 *   (same rollups, same secret-keyed noise).
 * And the refusals: a file that is not a backup, a running Wren, an existing FILE, LIBSQL_URL.
 */
import { createClient } from "@libsql/client";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lastCompleteDay } from "../../worker/reports/period";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { postBeacon } from "../collector/helpers";
import { client } from "../helpers/http";
import { startStack, type Stack } from "../helpers/stack";
import { wren } from "./helpers";

const DOMAIN = "backup.example";
const temp = mkdtempSync(join(tmpdir(), "wren-backup-"));
let f: ApiFixture | undefined;
let restored: Stack | undefined;

afterAll(async () => {
  await f?.close().catch(() => undefined);
  await restored?.stop().catch(() => undefined);
  rmSync(temp, { recursive: true, force: true });
}, 60_000);

/** The published day's reports a reader sees, as raw text: compared byte for byte. */
const REPORTS = ["aggregate", "pages", "conversions", "timeseries", "breakdown"] as const;

async function readReports(url: string, key: string, site: string, day: string): Promise<Record<string, string>> {
  const call = client(url, key);
  const out: Record<string, string> = {};
  for (const report of REPORTS) {
    const extra = report === "breakdown" ? "&dimension=browser" : "";
    const answer = await call("GET", `/api/v1/${report}?site=${site}&date=${day}&period=day${extra}`);
    expect(answer.status, `${report}: ${answer.text}`).toBe(200);
    out[report] = answer.text;
  }
  return out;
}

/** A loop sending one request after another until stopped; `acked` holds, in order, each sequence number and when its 202 arrived. */
function loop(send: (n: number) => Promise<Response>) {
  const acked: { n: number; at: number }[] = [];
  let running = true;
  let sent = 0;
  let failure: string | undefined;
  const done = (async () => {
    while (running) {
      const n = sent++;
      const response = await send(n);
      const at = performance.now();
      if (response.status !== 202) {
        failure = `request ${n}: ${response.status} ${await response.text()}`;
        return;
      }
      await response.body?.cancel();
      acked.push({ n, at });
    }
  })();
  return {
    acked,
    sent: () => sent,
    /** Waits (on the loop's own progress, not a timer) until `count` requests have been acknowledged. */
    async until(count: number) {
      while (acked.length < count && failure === undefined) await new Promise((r) => setImmediate(r));
      expect(failure).toBeUndefined();
    },
    async stop() {
      running = false;
      await done;
      expect(failure).toBeUndefined();
    },
  };
}

/** 0, 1, …, n−1: what a consistent copy of a sequential loop must hold for some n. */
const prefix = (n: number) => Array.from({ length: n }, (_, i) => i);

describe("wren backup and wren restore", () => {
  it("copies a running service under load; the restored one has every acknowledged event and the same published figures", async () => {
    f = await apiFixture();
    const adminKey = f.stack.adminKey!;
    const site = await f.makeSite(DOMAIN);
    const goal = await f.makeGoal(site.id, { kind: "event", match: "signup" });

    // Yesterday: eight visitors through the real collector, then moved a day back and published.
    for (let v = 0; v < 8; v++) {
      const events = [
        { type: "pageview", path: "/" },
        { type: "pageview", path: "/pricing" },
        ...(v < 6 ? [{ type: "event", path: "/pricing", name: "signup" }] : []),
      ];
      const res = await postBeacon(f.stack.url, DOMAIN, { site: site.id, session: `yesterday-visitor-${v}-abcdef`, events });
      expect(res.status).toBe(202);
    }
    await f.rewindDays(1);
    const day = lastCompleteDay("UTC", f.stack.now());
    const before = await readReports(f.stack.url, adminKey, site.id, day);
    const pages = JSON.parse(before.pages!) as { rows: { path: string; visitors: { qualifier: string } }[] };
    // The figures compared below are figures, not a page of suppressed cells.
    expect(pages.rows.map((r) => [r.path, r.visitors.qualifier !== "suppressed"])).toEqual([
      ["/", true],
      ["/pricing", true],
    ]);

    // Today: the load, one beacon and one conversion at a time, each with a unique path or id.
    const url = f.stack.url;
    const beacons = loop((n) =>
      postBeacon(url, DOMAIN, {
        site: site.id,
        session: `load-visitor-${n % 9}-abcdefgh`,
        events: [{ type: "pageview", path: `/load/${n}` }],
      }),
    );
    const conversions = loop((n) =>
      fetch(`${url}/s2s`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-token": site.s2s_token },
        body: JSON.stringify({ goal_id: goal.id, id: `order-${n}` }),
      }),
    );
    await beacons.until(30);
    await conversions.until(30);

    const file = join(temp, "wren.backup");
    const started = performance.now();
    const backup = await f.stack.cli(["backup", file, "--json"]);
    const ended = performance.now();
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    const ackedDuring = beacons.acked.filter((a) => a.at > started && a.at < ended).length;
    await beacons.stop();
    await conversions.stop();
    // The service took events while the copy was made.
    expect(ackedDuring).toBeGreaterThan(0);
    expect(JSON.parse(backup.stdout)).toMatchObject({ file, bytes: statSync(file).size, migration: expect.any(Number) });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(temp)).toEqual(["wren.backup"]);

    const beaconsBefore = beacons.acked.filter((a) => a.at < started).map((a) => a.n);
    const conversionsBefore = conversions.acked.filter((a) => a.at < started).map((a) => a.n);
    expect(await readReports(f.stack.url, adminKey, site.id, day)).toEqual(before);

    // A running Wren's data folder is not restored over.
    const busy = await f.stack.cli(["restore", file]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toBe(
      `wren: Wren is running on the data folder ${f.stack.dataDir}: stop it first (sudo systemctl stop wren, or Ctrl-C)\n`,
    );
    await f.close();
    f = undefined;

    // Restored into a fresh data folder: its database and secret, nothing else.
    const dataDir = join(temp, "restored", "data");
    const restore = await wren(["restore", file, "--json"], dataDir);
    expect(restore.stderr).toBe("");
    expect(restore.code).toBe(0);
    expect(JSON.parse(restore.stdout)).toMatchObject({ data: dataDir, previous_data: null });
    expect(readdirSync(dataDir).sort()).toEqual(["secret.key", "wren.db"]);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, "secret.key")).mode & 0o777).toBe(0o600);

    const db = createClient({ url: `file:${join(dataDir, "wren.db")}` });
    let stored: number[];
    let storedConversions: number;
    try {
      const rows = await db.execute({
        sql: "SELECT path FROM events WHERE site_id = ? AND path LIKE '/load/%'",
        args: [site.id],
      });
      stored = rows.rows.map((r) => Number(String(r.path).slice("/load/".length))).sort((a, b) => a - b);
      const counted = await db.execute({
        sql: "SELECT count(*) AS n FROM conversions WHERE goal_id = ? AND source = 's2s'",
        args: [goal.id],
      });
      storedConversions = Number(counted.rows[0]!.n);
      // The manifest and its secret are gone from the database; so are the original boxes' leases.
      const tables = await db.execute(
        "SELECT name FROM sqlite_master WHERE name IN ('wren_backup') UNION ALL SELECT name FROM leases",
      );
      expect(tables.rows).toEqual([]);
    } finally {
      db.close();
    }
    // (a) Every beacon acknowledged before the backup began, and a consistent copy: a prefix of the loop.
    expect(stored).toEqual(prefix(stored.length));
    expect(stored.length).toBeGreaterThanOrEqual(beaconsBefore.length);
    expect(stored.length).toBeLessThanOrEqual(beacons.sent());
    expect(storedConversions).toBeGreaterThanOrEqual(conversionsBefore.length);
    expect(storedConversions).toBeLessThanOrEqual(conversions.sent());

    restored = await startStack({ dataDir });
    expect(restored.adminKey).toBeUndefined();
    // (a) Each conversion acknowledged before the backup is there by its id: sent again, a duplicate.
    const replay = await fetch(`${restored.url}/s2s`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-token": site.s2s_token },
      body: JSON.stringify({ events: conversionsBefore.map((n) => ({ goal_id: goal.id, id: `order-${n}` })) }),
    });
    expect(replay.status).toBe(202);
    expect(await replay.json()).toMatchObject({ accepted: 0, duplicates: conversionsBefore.length });
    // (b) The published day reads the same, byte for byte, with the same key.
    expect(await readReports(restored.url, adminKey, site.id, day)).toEqual(before);
  }, 300_000);

  it("refuses what it cannot do, naming the file or the setting, exit 2, and writes nothing", async () => {
    const dataDir = join(temp, "refusals", "data");
    const notABackup = join(temp, "refusals", "notes.txt");
    const existing = join(temp, "refusals", "existing.backup");
    await wren(["migrate"], dataDir);
    writeFileSync(notABackup, "not a database\n");
    writeFileSync(existing, "keep me\n");
    writeFileSync(join(dataDir, "secret.key"), `${"ab".repeat(32)}\n`);

    expect(await wren(["restore", notABackup], dataDir)).toMatchObject({
      code: 2,
      stderr: `wren: cannot restore ${notABackup}: it is not a Wren backup (made by \`wren backup\`)\n`,
    });
    // A database that is Wren's but no backup (no manifest) is refused too.
    const database = join(dataDir, "wren.db");
    expect(await wren(["restore", database], dataDir)).toMatchObject({
      code: 2,
      stderr: `wren: cannot restore ${database}: it is not a Wren backup (made by \`wren backup\`)\n`,
    });
    expect(await wren(["restore", join(temp, "missing.backup")], dataDir)).toMatchObject({
      code: 2,
      stderr: `wren: no file ${join(temp, "missing.backup")} to restore\n`,
    });
    expect(await wren(["backup", existing], dataDir)).toMatchObject({
      code: 2,
      stderr: `wren: ${existing} exists: choose another FILE, or --force to replace it\n`,
    });
    expect(readFileSync(existing, "utf8")).toBe("keep me\n");
    const remote = await wren(["backup", join(temp, "remote.backup")], dataDir, { LIBSQL_URL: "http://127.0.0.1:9" });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain("LIBSQL_URL is set");
    // Nothing was written: no restore's staging folder, no data folder moved aside, no partial backup.
    expect(readdirSync(join(temp, "refusals")).sort()).toEqual(["data", "existing.backup", "notes.txt"]);
    expect(readdirSync(dataDir).sort()).toEqual(["secret.key", "wren.db"]);

    // --force replaces FILE; a restore over a folder keeps the old one aside.
    const again = await wren(["backup", existing, "--force"], dataDir);
    expect(again.code).toBe(0);
    const over = await wren(["restore", existing, "--json"], dataDir);
    expect(over.code).toBe(0);
    const kept = (JSON.parse(over.stdout) as { previous_data: string }).previous_data;
    expect(kept).toMatch(new RegExp(`^${dataDir}\\.before-restore-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d\\.\\d{3}Z$`));
    expect(readdirSync(kept).sort()).toEqual(["secret.key", "wren.db"]);
    expect(readFileSync(join(dataDir, "secret.key"), "utf8")).toBe(`${"ab".repeat(32)}\n`);

    // A backup a newer Wren took (a migration this version does not know), or with a damaged manifest: refused, nothing moved.
    const newer = join(temp, "refusals", "newer.backup");
    const damaged = join(temp, "refusals", "damaged.backup");
    for (const [file, sql] of [
      [newer, "UPDATE wren_backup SET value = '99999999999999' WHERE name = 'migration'"],
      [damaged, "UPDATE wren_backup SET value = 'not hex' WHERE name = 'secret'"],
    ] as const) {
      expect((await wren(["backup", file], dataDir)).code).toBe(0);
      const copy = createClient({ url: `file:${file}` });
      await copy.execute(sql);
      copy.close();
    }
    expect(await wren(["restore", newer], dataDir)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        new RegExp(
          `^wren: cannot restore ${newer}: it was taken by a newer Wren \\(\\d+\\.\\d+\\.\\d+\\); restore it with that version or newer\n$`,
        ),
      ),
    });
    expect(await wren(["restore", damaged], dataDir)).toMatchObject({
      code: 2,
      stderr: `wren: cannot restore ${damaged}: its manifest is damaged\n`,
    });
    expect(readdirSync(join(temp, "refusals")).filter((name) => name.includes("restor")).length).toBe(1);
  }, 120_000);
});
