/**
 * `wren import` end to end: the real CLI process on a migrated data folder imports the fixture
 * files into a site, prints its progress on stderr and its summary on stdout (as text and as
 * --json), changes nothing when given the same file again, refuses a malformed file with exit 2
 * naming the file and line and writes no row, and lists and removes imports.
 */
import { createClient, type Client } from "@libsql/client";
import { strToU8, zipSync } from "fflate";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES_DIR, GOATCOUNTER_CSV, PLAUSIBLE_ZIP, UMAMI_CSV } from "../fixtures/imports/generate";
import { cleanEnv, LEAKS, tempDir, wren } from "./helpers";

const SECRET = "cd".repeat(32);
let dataDir: string;
let db: Client;
let site: string;

const run = (args: string[]) => wren(args, dataDir, { WREN_SECRET: SECRET });

beforeAll(async () => {
  dataDir = tempDir("import");
  expect((await run(["migrate"])).code).toBe(0);
  const created = await run([
    "sites",
    "create",
    "--name",
    "Example",
    "--domain",
    "example.com",
    "--timezone",
    "Europe/Berlin",
    "--json",
  ]);
  site = (JSON.parse(created.stdout) as { id: string }).id;
  db = createClient({ url: `file:${join(dataDir, "wren.db")}` });
}, 120_000);
afterAll(() => db?.close());

async function counts() {
  const rs = await db.execute({
    sql: "SELECT (SELECT count(*) FROM imports WHERE site_id = ?1) AS imports, (SELECT count(*) FROM imported_days WHERE site_id = ?1) AS days, (SELECT count(*) FROM imported_cells WHERE site_id = ?1) AS cells",
    args: [site],
  });
  const row = rs.rows[0]!;
  return { imports: Number(row.imports), days: Number(row.days), cells: Number(row.cells) };
}

describe("wren import", () => {
  it("imports a Plausible export: progress on stderr, the summary on stdout; the same file again changes nothing", async () => {
    const path = join(FIXTURES_DIR, PLAUSIBLE_ZIP);
    const result = await run(["import", "--site", site, "--from", "plausible", path]);
    expect([result.code, result.stderr]).toEqual([0, "imported 3 of 3 days\n"]);
    const id = /as (imp_[\w-]{16})\.$/m.exec(result.stdout)?.[1];
    expect(result.stdout).toBe(
      [
        `Imported plausible-export.zip (plausible) into ${site} as ${id}.`,
        "  rows read      71",
        "  days imported  3 (2025-03-01 … 2025-03-03)",
        "  rows refused   2",
        "         2  custom events are not imported (imported_custom_events_20250301_20250303.csv:2, imported_custom_events_20250301_20250303.csv:3)",
        "",
      ].join("\n"),
    );
    expect(await counts()).toEqual({ imports: 1, days: 3, cells: 68 });
    const audit = await db.execute({ sql: "SELECT action, target FROM audit_log WHERE site_id = ?", args: [site] });
    expect(audit.rows.map((r) => [r.action, r.target])).toEqual([["import.create", id]]);

    const before = await db.execute({
      sql: "SELECT * FROM imported_cells WHERE site_id = ? ORDER BY day, dimension, value",
      args: [site],
    });
    const again = await run(["import", "--site", site, "--from", "plausible", path]);
    expect(again).toEqual({
      code: 0,
      stdout: `Already imported: plausible-export.zip is import ${id} (3 days); nothing was written.\n`,
      stderr: "",
    });
    const after = await db.execute({
      sql: "SELECT * FROM imported_cells WHERE site_id = ? ORDER BY day, dimension, value",
      args: [site],
    });
    expect(after.rows).toEqual(before.rows);
    expect(await counts()).toEqual({ imports: 1, days: 3, cells: 68 });
  }, 120_000);

  it("prints the summary as JSON with --json; a later import takes over the days it covers", async () => {
    const result = await run(["import", "--site", site, "--from", "goatcounter", join(FIXTURES_DIR, GOATCOUNTER_CSV), "--json"]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({
      site,
      source: "goatcounter",
      file_name: GOATCOUNTER_CSV,
      status: "done",
      unchanged: false,
      resumed: false,
      rows_read: 10,
      rows_refused: 2,
      days_imported: 2,
      first_day: "2025-03-01",
      last_day: "2025-03-02",
      refusals: {
        counts: { bot: 1, "events are not imported": 1 },
        examples: [
          { file: GOATCOUNTER_CSV, line: 7, reason: "bot" },
          { file: GOATCOUNTER_CSV, line: 9, reason: "events are not imported" },
        ],
      },
    });
    const owners = await db.execute({
      sql: "SELECT day, import_id FROM imported_days WHERE site_id = ? ORDER BY day",
      args: [site],
    });
    expect(owners.rows.map((r) => [r.day, r.import_id === summary.id])).toEqual([
      ["2025-03-01", true],
      ["2025-03-02", true],
      ["2025-03-03", false],
    ]);
  }, 120_000);

  it("refuses a malformed file with exit 2, naming the file and line, and writes nothing", async () => {
    const before = await counts();
    const dir = tempDir("import-bad");
    const csv = join(dir, "umami.csv");
    writeFileSync(
      csv,
      "session_id,visit_id,url_path,event_type,created_at\ns,v,/,1,2025-01-01 00:00:00\ns,v,/,1,2025-01-01 25:00:00\n",
    );
    expect(await run(["import", "--site", site, "--from", "umami", csv])).toEqual({
      code: 2,
      stdout: "",
      stderr: `wren: ${csv}, line 3: created_at: "2025-01-01 25:00:00" is not a time (2025-01-31 13:45:07)\n`,
    });
    // A zip's member is named inside the file given.
    const zip = join(dir, "export.zip");
    writeFileSync(
      zip,
      zipSync({
        "imported_visitors_20240101_20240131.csv": strToU8(
          "date,visitors,pageviews,bounces,visits,visit_duration\n2024-01-01,9,x,4,10,300\n",
        ),
      }),
    );
    const json = await run(["import", "--site", site, "--from", "plausible", zip, "--json"]);
    expect([json.code, json.stdout]).toEqual([2, ""]);
    expect(JSON.parse(json.stderr)).toEqual({
      error: `${zip}: imported_visitors_20240101_20240131.csv, line 2: pageviews: "x" is not a non-negative integer`,
      code: "malformed",
      exit_code: 2,
    });
    // The Umami fixture given as GoatCounter's: not its format, even for bytes of a known import.
    const wrong = await run(["import", "--site", site, "--from", "goatcounter", join(FIXTURES_DIR, UMAMI_CSV)]);
    expect([wrong.code, wrong.stderr]).toEqual([
      2,
      `wren: ${join(FIXTURES_DIR, UMAMI_CSV)}, line 1: not a GoatCounter export (its header starts with "2,Path")\n`,
    ]);
    expect(await run(["import", "--site", site, "--from", "matomo", csv])).toMatchObject({
      code: 2,
      stderr: "wren: --from: must be one of plausible, umami, goatcounter\n",
    });
    expect(await run(["import", "--site", site, "--from", "umami", join(dir, "missing.csv")])).toMatchObject({
      code: 2,
      stderr: `wren: ${join(dir, "missing.csv")}: no such file\n`,
    });
    expect(await counts()).toEqual(before);
    for (const leak of LEAKS) expect(json.stderr).not.toMatch(leak);
  }, 120_000);

  it("lists a site's imports and removes one with the days it still holds", async () => {
    const list = await run(["import", "list", "--site", site, "--json"]);
    const imports = (JSON.parse(list.stdout) as { imports: { id: string; source: string; days_imported: number }[] }).imports;
    expect(imports.map((i) => [i.source, i.days_imported])).toEqual([
      ["goatcounter", 2],
      ["plausible", 3],
    ]);
    const text = await run(["import", "list", "--site", site]);
    expect(text.stdout.split("\n")[0]).toBe(
      "id                    source       file                    status  days  first       last        rows  refused",
    );
    const [goat, plausible] = imports;
    expect(await run(["import", "remove", "--site", site, goat!.id])).toEqual({
      code: 0,
      stdout: `Removed import ${goat!.id} and the days it held.\n`,
      stderr: "",
    });
    // Plausible's 2025-03-03 remains: its 18 cells (imports-formats.test.ts).
    expect(await counts()).toEqual({ imports: 1, days: 1, cells: 18 });
    const missing = await run(["import", "remove", "--site", site, goat!.id, "--json"]);
    expect(JSON.parse(missing.stderr)).toEqual({ error: `no import ${goat!.id} on ${site}`, code: "not_found", exit_code: 1 });
    const remaining = await db.execute({ sql: "SELECT DISTINCT import_id FROM imported_days WHERE site_id = ?", args: [site] });
    expect(remaining.rows.map((r) => r.import_id)).toEqual([plausible!.id]);
  }, 120_000);
});

describe("on a terminal", () => {
  it("draws a progress bar on stderr", async () => {
    // A file of its own (a blank line added, which GoatCounter's CSV allows): not yet imported.
    const path = join(dataDir, "goatcounter-tty.csv");
    writeFileSync(path, `${readFileSync(join(FIXTURES_DIR, GOATCOUNTER_CSV), "utf8")}\n`);
    const bin = fileURLToPath(new URL("../../bin/wren.js", import.meta.url));
    const command = [process.execPath, bin, "import", "--site", site, "--from", "goatcounter", path].join(" ");
    // util-linux's script(1) runs the command on a pseudo-terminal, as a person's shell would.
    const out = await new Promise<{ code: number | null; text: string }>((resolve, reject) => {
      const child = spawn("script", ["-qefc", command, "/dev/null"], {
        env: cleanEnv({ WREN_DATA: dataDir, WREN_SECRET: SECRET, TERM: "xterm" }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let text = "";
      child.stdout.on("data", (c) => (text += c));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, text }));
    });
    expect(out.code).toBe(0);
    // The bar drawn empty, then full, in place (cursor to column 1), then the summary.
    expect(out.text).toContain(`\x1b[1Gimporting [${"-".repeat(40)}] 0/2 days`);
    expect(out.text).toContain(`\x1b[1Gimporting [${"=".repeat(40)}] 2/2 days`);
    expect(out.text).toMatch(new RegExp(`Imported goatcounter-tty\\.csv \\(goatcounter\\) into ${site} as imp_[\\w-]{16}\\.`));
  }, 60_000);
});
