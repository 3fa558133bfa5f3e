/**
 * Upgrading the hour rule changes no published figure: the days that had ended when the service
 * was upgraded keep the hours they were published with (the earliest rule: decided when the day
 * ended, the smallest shown hour as the cover), the days that existed then keep the cover rule
 * (the day's first hour of k held back), and later days show every hour of k as it closes. A real
 * upgrade: the migrations before the rules, a publication, then the rules' migrations (0008,
 * 0017), on real libSQL.
 */
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readOnly } from "../../worker/lib/read-only";
import { legacyDays, PUBLICATION_SQL, publicationOf, publishStatement } from "../../worker/reports/publication";
import { catchUp } from "../../worker/reports/rollup";
import { timeseriesReport } from "../../worker/reports/timeseries";
import { addEvents, addSite, at, sessions } from "./helpers";

const SITE = "site_upgrade";
const MIGRATIONS = resolve(import.meta.dirname, "../../migrations");
const RULE_MIGRATIONS = ["0008_hours_decided_as_they_close", "0017_hours_without_cover"];

const dir = mkdtempSync(join(tmpdir(), "wren-upgrade-"));
const client = createClient({ url: `file:${join(dir, "wren.db")}` });

/**
 * The migrations without the rules', and then with them applied last, in order: today's fold
 * needs the later migrations' tables before the upgrade too, and the rules' migrations touch only
 * the publication and the day rows' rule, which none of the others does.
 */
function migrationsFolder(name: string, withRules: boolean): string {
  const folder = join(dir, name);
  cpSync(MIGRATIONS, folder, { recursive: true });
  const journalFile = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { tag: string; when: number }[] };
  const rules = RULE_MIGRATIONS.map((tag) => {
    const at = journal.entries.findIndex((e) => e.tag === tag);
    expect(at, `the rule's migration ${tag} is in the journal`).toBeGreaterThan(0);
    return journal.entries.splice(at, 1)[0]!;
  });
  const last = Math.max(...journal.entries.map((e) => e.when));
  if (withRules) rules.forEach((rule, i) => journal.entries.push({ ...rule, when: last + 1 + i }));
  writeFileSync(journalFile, JSON.stringify(journal));
  return folder;
}

/** Days with the same hours: 9:00 8 sessions, 10:00 6, 11:00 2. */
async function days(...dates: string[]): Promise<void> {
  for (const day of dates) {
    const views = (prefix: string, n: number, hour: number) =>
      sessions(`${day}-${prefix}`, n).map((session) => ({ site: SITE, session, path: "/", ts: at(day, hour, 10) }));
    await addEvents(client, [...views("a", 8, 9), ...views("b", 6, 10), ...views("c", 2, 11)]);
  }
}

beforeAll(async () => {
  await migrate(drizzle(client), { migrationsFolder: migrationsFolder("before", false) });
  await addSite(client, SITE);
  await days("2026-11-02", "2026-11-03");
  await catchUp(client as never);
  // Published before the upgrade: the 2nd had ended, the 3rd had not.
  await client.execute(publishStatement(at("2026-11-03", 12), at("2026-11-03", 12)));
  await migrate(drizzle(client), { migrationsFolder: migrationsFolder("after", true) });
  // A day that begins after the upgrade, and a publication after it: all three have ended.
  await days("2026-11-04");
  await catchUp(client as never);
  await client.execute(publishStatement(at("2026-11-05", 0, 1), at("2026-11-05", 0, 1)));
}, 60_000);
afterAll(() => {
  client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("upgrading to hours decided as they close", () => {
  it("notes the instant published through at the upgrade; the days ended by then are the legacy ones", async () => {
    const publication = publicationOf(await client.execute(PUBLICATION_SQL))!;
    expect(publication.hourRuleFrom).toBe(at("2026-11-03", 12));
    expect(legacyDays(publication, "UTC")).toBe("2026-11-02");
    expect(legacyDays({ ...publication, hourRuleFrom: 0 }, "UTC")).toBe("");
  });

  it("keeps the published day's hours as they were published, and decides the later day's by the new rule", async () => {
    const publication = publicationOf(await client.execute(PUBLICATION_SQL))!;
    const scope = { siteId: SITE, from: "2026-11-02", to: "2026-11-04", timeZone: "UTC", k: 5, legacyDays: legacyDays(publication, "UTC") };
    const series = await timeseriesReport(readOnly(client as never), scope, "hour");
    const shownHours = (day: string) =>
      series.points.filter((p) => p.local.startsWith(day) && p.visitors.value !== null && p.visitors.value > 0).map((p) => p.local.slice(11));
    // The 2nd, as published: the small 11:00 hour made the smallest shown hour (10:00, 6) its cover.
    expect(shownHours("2026-11-02")).toEqual(["09:00"]);
    // The 3rd, running at the upgrade, keeps the cover rule: 9:00, the day's first hour of k, is
    // its cover; 10:00 was shown when it closed.
    expect(shownHours("2026-11-03")).toEqual(["10:00"]);
    // The 4th began after it: every hour of k is shown as it closes, 9:00 too.
    expect(shownHours("2026-11-04")).toEqual(["09:00", "10:00"]);
    // Without the note (a fresh install), both days follow the new rule.
    const fresh = await timeseriesReport(readOnly(client as never), { ...scope, legacyDays: "" }, "hour");
    expect(fresh.points.filter((p) => p.local.startsWith("2026-11-02") && (p.visitors.value ?? 0) > 0).map((p) => p.local.slice(11))).toEqual(["10:00"]);
  });
});
