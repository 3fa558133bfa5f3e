/**
 * examples/nightly-pull.sh on the real stack (`wren start`), for sites whose day is not UTC's:
 * America/Los_Angeles and Pacific/Pago_Pago (west of UTC: in UTC's morning their date is still
 * UTC's yesterday, so "yesterday in UTC" is their today, a 422) and Pacific/Kiritimati (east:
 * in UTC's afternoon UTC's yesterday is their day before yesterday). Whatever the hour the test
 * runs at, at least one of them differs from UTC. The script must pull each site's own last
 * whole day: files named by it, rows for it, two calls a night; and DAY=… a given day, refusing
 * one that has not ended.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastCompleteDay } from "../../worker/reports/period";
import { addDays, startOfLocalDay } from "../../worker/reports/timezone";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { ROOT } from "../helpers/stack";
import { addEvents, sessions } from "../reports/helpers";

const SCRIPT = join(ROOT, "examples", "nightly-pull.sh");
const ZONES = ["America/Los_Angeles", "Pacific/Pago_Pago", "Pacific/Kiritimati"];
const HOUR = 3_600_000;

interface Zoned {
  zone: string;
  site: string;
  key: Awaited<ReturnType<ApiFixture["makeKey"]>>;
  /** The zone's last whole day when the rows were written: six sessions viewed "/" at its noon. */
  seeded: string;
}

let f: ApiFixture;
let zoned: Zoned[];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the script with only these variables (and PATH, HOME). */
function pull(vars: Record<string, string>): Promise<Run> {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...vars };
  return new Promise((resolve) => {
    execFile("bash", [SCRIPT], { env, cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The service's publication instant (every day that ended by then in a zone is published there). */
async function publishedThrough(): Promise<number> {
  const health = (await (await fetch(`${f.stack.url}/healthz`)).json()) as { publisher: { published_through: string } };
  return Date.parse(health.publisher.published_through);
}

const ndjson = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(async () => {
  f = await apiFixture();
  const now = Date.now();
  zoned = [];
  for (const zone of ZONES) {
    const domain = `${zone.toLowerCase().replace(/[^a-z]+/g, "-")}.example`;
    const res = await f.admin("POST", "/api/v1/sites", { name: zone, domain, timezone: zone });
    if (res.status !== 201) throw new Error(`site: ${res.status} ${res.text}`);
    expect(res.body.timezone).toBe(zone);
    zoned.push({
      zone,
      site: res.body.id,
      key: await f.makeKey(["read:reports"], [res.body.id]),
      seeded: lastCompleteDay(zone, now),
    });
  }
  await f.seedHistory((db) =>
    addEvents(
      db,
      zoned.flatMap(({ zone, site, seeded }) =>
        sessions(`s-${site}`, 6).map((session) => ({ site, session, path: "/", ts: startOfLocalDay(zone, seeded) + 12 * HOUR })),
      ),
    ),
  );
}, 120_000);

afterAll(async () => {
  await f?.close();
});

describe("examples/nightly-pull.sh in the site's time zone", () => {
  it("pulls each site's own last whole day: files named by it, its rows, in two calls", async () => {
    for (const { zone, site, key, seeded } of zoned) {
      const out = mkdtempSync(join(tmpdir(), "wren-warehouse-"));
      const before = await publishedThrough();
      const run = await pull({ WREN_URL: f.stack.url, WREN_KEY: key.key, SITE_ID: site, OUT_DIR: out });
      const after = await publishedThrough();
      expect([run.code, run.stderr], zone).toEqual([0, ""]);
      // The last day that had ended in the site's zone when the script asked (a day ending meanwhile: either).
      const day = /^pages: \d+ rows → .*\/pages-(\d{4}-\d{2}-\d{2})\.ndjson$/m.exec(run.stdout)?.[1];
      expect([lastCompleteDay(zone, before), lastCompleteDay(zone, after)], zone).toContain(day);
      expect(run.stdout).toMatch(
        new RegExp(`^pages: \\d+ rows → ${out}/pages-${day}\\.ndjson\\nvitals: 0 rows → ${out}/vitals-${day}\\.ndjson\\n$`),
      );
      expect(readdirSync(out).sort(), zone).toEqual([`pages-${day}.ndjson`, `vitals-${day}.ndjson`]);
      const rows = ndjson(join(out, `pages-${day}.ndjson`));
      for (const row of rows) expect(row, zone).toMatchObject({ site, from: day, to: day, timezone: zone });
      if (day === seeded)
        expect(
          rows.map((r) => r.path),
          zone,
        ).toEqual(["/"]);

      const usage = await f.admin("GET", `/api/v1/keys/${key.id}/usage`);
      expect(usage.body.usage.map((u: { route: string; calls: number }) => [u.route, u.calls]).sort(), zone).toEqual([
        ["GET /api/v1/pages", 1],
        ["GET /api/v1/vitals", 1],
      ]);
    }
  }, 120_000);

  it("the old request (UTC's yesterday) is wrong now for at least one site: refused west of UTC, another day east", async () => {
    const now = Date.now();
    const utcYesterday = lastCompleteDay("UTC", now);
    const differing = zoned.filter(({ zone }) => lastCompleteDay(zone, now) !== utcYesterday);
    expect(differing.length).toBeGreaterThan(0);
    for (const { zone, site, key } of differing) {
      const res = await key.call("GET", `/api/v1/pages?site=${site}&from=${utcYesterday}&to=${utcYesterday}`);
      if (utcYesterday > lastCompleteDay(zone, now)) expect([res.status, res.body.field], zone).toEqual([422, "to"]);
      else expect([res.status, res.body.period.to], zone).toEqual([200, utcYesterday]);
    }
  }, 120_000);

  it("DAY=YYYY-MM-DD pulls that day of the site; a day that has not ended there is refused, and nothing is written", async () => {
    const { zone, site, key } = zoned[0]!;
    const earlier = addDays(lastCompleteDay(zone, await publishedThrough()), -1);
    const out = mkdtempSync(join(tmpdir(), "wren-warehouse-"));
    const vars = { WREN_URL: f.stack.url, WREN_KEY: key.key, SITE_ID: site, OUT_DIR: out };
    const given = await pull({ ...vars, DAY: earlier });
    expect([given.code, given.stderr]).toEqual([0, ""]);
    expect(readdirSync(out).sort()).toEqual([`pages-${earlier}.ndjson`, `vitals-${earlier}.ndjson`]);
    for (const row of ndjson(join(out, `pages-${earlier}.ndjson`)))
      expect(row).toMatchObject({ from: earlier, to: earlier, timezone: zone });

    const today = addDays(lastCompleteDay(zone, Date.now()), 1);
    const refused = await pull({ ...vars, DAY: today, OUT_DIR: join(out, "today") });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Wren refused the pages pull: \{.*"status":422.*"field":"date"/m);
    expect(readdirSync(join(out, "today"))).toEqual([]);
  }, 120_000);
});
