/**
 * The upgrade path an operator runs (`git pull && npm ci && systemctl restart wren`): a data
 * folder whose database is at the previous release's schema (the migrations up to
 * PREVIOUS_RELEASE), with two days of raw rows folded and published there; then `wren start` —
 * the very code path of `npm start` and the systemd unit — applies the newer migrations,
 * onboards (the old folder had no key) and runs its publisher; then a restart. Published
 * figures do not move: every published cell is byte-identical to what the previous schema held,
 * and the reports the API serves for those days are byte-identical across the restart, drawn
 * from figures that are shown (not suppressed).
 */
import { createClient, type Client } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER } from "../../cli/database";
import { lastCompleteDay } from "../../worker/reports/period";
import { publishOnce } from "../../worker/reports/publisher";
import { ROLLUP_TABLES } from "../../worker/reports/rollup";
import { addDays } from "../../worker/reports/timezone";
import { client as apiClient } from "../helpers/http";
import { startStack, type Stack } from "../helpers/stack";
import { addConversions, addEvents, addGoal, addSite, at, sessions } from "../reports/helpers";

/** The last migration of the release before this one (issue 41's imports add 0028 onwards). */
const PREVIOUS_RELEASE = "0027_digests_and_mail";
const SITE = "site_upgrade_0000001";
const GOAL = "goal_upgrade_0000001";
const temp = mkdtempSync(join(tmpdir(), "wren-upgrade-"));
let stack: Stack | undefined;
afterAll(async () => {
  await stack?.stop().catch(() => undefined);
  rmSync(temp, { recursive: true, force: true });
}, 60_000);

interface Journal {
  entries: { tag: string }[];
}
const journal = (folder: string) => JSON.parse(readFileSync(join(folder, "meta", "_journal.json"), "utf8")) as Journal;

/** The migrations folder as the previous release shipped it: a copy with the journal cut after PREVIOUS_RELEASE. */
function previousRelease(): string {
  const folder = join(temp, "previous-migrations");
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  const cut = journal(folder);
  const last = cut.entries.findIndex((e) => e.tag === PREVIOUS_RELEASE);
  expect(last).toBeGreaterThan(0);
  // There is something to upgrade to.
  expect(last).toBeLessThan(cut.entries.length - 1);
  cut.entries = cut.entries.slice(0, last + 1);
  writeFileSync(join(folder, "meta", "_journal.json"), JSON.stringify(cut));
  return folder;
}

/** Every published cell, as text: the rollup tables in a stable order. */
async function publishedCells(client: Client): Promise<string> {
  const out: string[] = [];
  for (const table of ROLLUP_TABLES) {
    const rows = await client.execute(`SELECT * FROM ${table}`);
    out.push(`${table}: ${JSON.stringify(rows.rows.map((r) => JSON.stringify(Object.values(r))).sort())}`);
  }
  return out.join("\n");
}

/** The reports a reader sees for the published days, as the API's raw text. */
async function reports(url: string, key: string, days: string[]): Promise<Record<string, string>> {
  const call = apiClient(url, key);
  const paths = days.flatMap((day) =>
    ["pages", "aggregate", "conversions", "timeseries"].map((report) => `/api/v1/${report}?site=${SITE}&date=${day}&period=day`),
  );
  paths.push(`/api/v1/pages?site=${SITE}&from=${days[0]}&to=${days.at(-1)}`);
  paths.push(`/api/v1/breakdown?site=${SITE}&from=${days[0]}&to=${days.at(-1)}&dimension=browser`);
  const out: Record<string, string> = {};
  for (const path of paths) {
    const answer = await call("GET", path);
    expect(answer.status, `${path}: ${answer.text}`).toBe(200);
    out[path] = answer.text;
  }
  return out;
}

describe("upgrading from the previous release", () => {
  it("applies the new migrations at start; the published figures do not change", async () => {
    const dataDir = join(temp, "data");
    mkdirSync(dataDir, { mode: 0o700 });
    const yesterday = lastCompleteDay("UTC", Date.now());
    const days = [addDays(yesterday, -1), yesterday];

    // The previous release's database: its schema, its raw rows, folded and published by its publisher.
    const old = createClient({ url: `file:${join(dataDir, "wren.db")}` });
    let before: string;
    try {
      await old.execute("PRAGMA journal_mode = WAL");
      await migrate(drizzle(old), { migrationsFolder: previousRelease() });
      await addSite(old, SITE);
      await addGoal(old, SITE, GOAL);
      for (const [d, day] of days.entries()) {
        const visitors = sessions(`${day}-visitor-`, 7 + d);
        await addEvents(old, [
          ...visitors.map((session, i) => ({
            site: SITE,
            session,
            path: "/",
            ts: at(day, 9 + (i % 5)),
            dims: { browser: "Firefox 140" },
          })),
          ...visitors.map((session, i) => ({ site: SITE, session, path: "/pricing", ts: at(day, 14, i) })),
        ]);
        await addConversions(
          old,
          visitors.slice(0, 5 + d).map((session, i) => ({ site: SITE, goal: GOAL, session, ts: at(day, 15, i) })),
        );
      }
      const run = await publishOnce(old, { now: () => Date.now() });
      expect(run.behind).toBe(false);
      before = await publishedCells(old);
    } finally {
      old.close();
    }
    expect(before).toContain('rollup_page_day: ["[\\"site_upgrade_0000001\\"');

    // The new version starts on it, as `npm start` and the systemd unit do.
    stack = await startStack({ dataDir });
    const adminKey = stack.adminKey!;
    expect(adminKey).toMatch(/^wren_/);
    const upgraded = stack.openDatabase();
    try {
      const applied = await upgraded.execute("SELECT count(*) AS n FROM __drizzle_migrations");
      expect(Number(applied.rows[0]!.n)).toBe(journal(MIGRATIONS_FOLDER).entries.length);
      expect(await publishedCells(upgraded)).toBe(before);
    } finally {
      upgraded.close();
    }
    const served = await reports(stack.url, adminKey, days);
    const pages = JSON.parse(served[`/api/v1/pages?site=${SITE}&date=${yesterday}&period=day`]!) as {
      rows: { path: string; visitors: { qualifier: string } }[];
    };
    expect(pages.rows.map((r) => [r.path, r.visitors.qualifier === "suppressed"])).toEqual([
      ["/", false],
      ["/pricing", false],
    ]);

    // A restart (the next `systemctl restart wren`) changes nothing either.
    const { dataDir: same, env } = stack;
    await stack.stop();
    stack = await startStack({ dataDir: same, env });
    expect(await reports(stack.url, adminKey, days)).toEqual(served);
    const again = stack.openDatabase();
    try {
      expect(await publishedCells(again)).toBe(before);
    } finally {
      again.close();
    }
  }, 240_000);
});
