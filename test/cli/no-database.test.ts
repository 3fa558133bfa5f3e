/**
 * The real CLI where there is no Wren database, or not a current one: every command that needs
 * the database says so (which file, and `npx wren migrate` or `npm start`), exits 1, honours
 * --json (one JSON object on stderr), prints no SQL, key, prefix or hash, and creates nothing —
 * not the database file, not the data folder. A 0-byte file and a database migrated by an
 * older Wren are sent to `wren migrate`, which then brings them up to date; a query that fails
 * anyway is told by its cause, never its text or parameters. `wren db --file` into a folder
 * that does not exist makes the folder, mode 0700.
 */
import { createClient } from "@libsql/client";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER } from "../../cli/database";
import { ROOT } from "../helpers/stack";
import { cleanEnv, LEAKS, pooled, tempDir, wren } from "./helpers";

const SITE = "site_AAAAAAAAAAAAAAAA";

/** Every command that needs the database, with arguments that would otherwise be accepted. */
const DATABASE_COMMANDS: string[][] = [
  ["keys", "create", "--scopes", "read:reports", "--name", "ci"],
  ["keys", "list"],
  ["keys", "revoke", "key_AAAAAAAAAAAAAAAA"],
  ["sites", "create", "--name", "Shop", "--domain", "shop.example.com"],
  ["sites", "list"],
  ["goals", "create", "--site", SITE, "--kind", "page", "--match", "/thanks"],
  ["goals", "list", "--site", SITE],
  ["token", SITE],
  ["deployments", "create", "--site", SITE, "--version", "3f9c2ab"],
  ["deployments", "list", "--site", SITE],
  ["hooks", "deployment", SITE],
  ["alerts", "create", "--site", SITE, "--metric", "visitors", "--above", "10", "--url", "https://hooks.example.com/wren"],
  ["alerts", "list", "--site", SITE],
  ["alerts", "delete", "alr_AAAAAAAAAAAAAAAA"],
];

const noDatabase = (file: string) =>
  `no Wren database here (${file}) — run \`npx wren migrate\` or \`npm start\`, or set WREN_DATA to the data folder`;

function expectNoLeak(output: string, label: string): void {
  for (const leak of LEAKS) expect(output, `${label}: ${leak}`).not.toMatch(leak);
}

/** A database migrated only as far as the first migration: what an older Wren left behind. */
async function olderDatabase(file: string): Promise<void> {
  const folder = tempDir("old-migrations");
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalFile = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: unknown[] };
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, 1) }));
  const client = createClient({ url: `file:${file}` });
  try {
    await migrate(drizzle(client), { migrationsFolder: folder });
  } finally {
    client.close();
  }
}

describe("no database in the data folder", () => {
  it("every database command says how to make one, exits 1, leaks nothing and creates nothing (an empty folder)", async () => {
    const dataDir = tempDir("empty");
    const file = join(dataDir, "wren.db");
    const runs = DATABASE_COMMANDS.flatMap((args) => [args, [...args, "--json"]]);
    const results = await pooled(runs, 3, (args) => wren(args, dataDir));
    runs.forEach((args, i) => {
      const result = results[i]!;
      const label = args.join(" ");
      expect([result.code, result.stdout], label).toEqual([1, ""]);
      if (args.includes("--json")) {
        expect(JSON.parse(result.stderr), label).toEqual({
          error: noDatabase(file),
          code: "no_database",
          exit_code: 1,
          database: file,
        });
      } else {
        expect(result.stderr, label).toBe(`wren: ${noDatabase(file)}\n`);
      }
      expectNoLeak(result.stdout + result.stderr, label);
    });
    expect(readdirSync(dataDir)).toEqual([]);
  }, 240_000);

  it("says the same where the data folder does not exist, and does not make it", async () => {
    const dataDir = join(tempDir("none"), "data");
    // The same path as in an empty folder: a command of each kind (reads, writes, by site, by id) is enough.
    const commands = [
      DATABASE_COMMANDS[0]!,
      DATABASE_COMMANDS[4]!,
      DATABASE_COMMANDS[7]!,
      DATABASE_COMMANDS[11]!,
      DATABASE_COMMANDS[13]!,
    ];
    const results = await pooled(commands, 3, (args) => wren([...args, "--json"], dataDir));
    commands.forEach((args, i) => {
      expect(results[i]!.code, args.join(" ")).toBe(1);
      expect(JSON.parse(results[i]!.stderr).code, args.join(" ")).toBe("no_database");
    });
    expect(existsSync(dataDir)).toBe(false);
  }, 240_000);

  it("`wren migrate` makes it; then the commands work", async () => {
    const dataDir = join(tempDir("fresh"), "data");
    const migrated = await wren(["migrate", "--json"], dataDir);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(JSON.parse(migrated.stdout)).toEqual({ migrated: true, target: `file:${join(dataDir, "wren.db")}` });
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(await wren(["keys", "list", "--json"], dataDir)).toEqual({
      code: 0,
      stdout: `${JSON.stringify({ keys: [] }, null, 2)}\n`,
      stderr: "",
    });
  }, 120_000);
});

describe("a database that is not this version's", () => {
  it("a 0-byte wren.db: sent to `wren migrate`, left as it was", async () => {
    const dataDir = tempDir("zero");
    const file = join(dataDir, "wren.db");
    writeFileSync(file, "");
    const human = await wren(["keys", "list"], dataDir);
    expect(human).toEqual({
      code: 1,
      stdout: "",
      stderr: `wren: no Wren database here (${file} has no tables yet) — run \`npx wren migrate\` or \`npm start\`\n`,
    });
    const json = await wren(["sites", "list", "--json"], dataDir);
    expect(JSON.parse(json.stderr)).toMatchObject({ code: "not_migrated", exit_code: 1, database: file });
    expect(statSync(file).size).toBe(0);
  }, 120_000);

  it("a database an older Wren migrated: sent to `wren migrate`, which brings it up to date", async () => {
    const dataDir = tempDir("older");
    const file = join(dataDir, "wren.db");
    await olderDatabase(file);
    const older = `the Wren database (${file}) is older than this version of Wren — run \`npx wren migrate\` (or \`npm start\`)`;
    expect(await wren(["keys", "list"], dataDir)).toEqual({ code: 1, stdout: "", stderr: `wren: ${older}\n` });
    const json = await wren(["keys", "create", "--scopes", "admin", "--json"], dataDir);
    expect([json.code, json.stdout]).toEqual([1, ""]);
    expect(JSON.parse(json.stderr)).toEqual({ error: older, code: "not_migrated", exit_code: 1, database: file });
    expect((await wren(["migrate"], dataDir)).code).toBe(0);
    expect((await wren(["keys", "list", "--json"], dataDir)).code).toBe(0);
  }, 120_000);

  it("a query that fails anyway is told by its cause: no SQL, no parameters, no key prefix or hash", async () => {
    const dataDir = tempDir("broken");
    expect((await wren(["migrate"], dataDir)).code).toBe(0);
    const client = createClient({ url: `file:${join(dataDir, "wren.db")}` });
    await client.execute("DROP TABLE api_keys");
    client.close();
    // Issuing a key inserts its prefix and hash: the failed insert must show neither.
    const human = await wren(["keys", "create", "--scopes", "admin"], dataDir);
    expect(human).toEqual({
      code: 1,
      stdout: "",
      stderr: "wren: the database is not migrated: run `npx wren migrate` (or `npm start`)\n",
    });
    const json = await wren(["keys", "create", "--scopes", "admin", "--json"], dataDir);
    expect(JSON.parse(json.stderr)).toEqual({
      error: "the database is not migrated: run `npx wren migrate` (or `npm start`)",
      code: "not_migrated",
      exit_code: 1,
    });
    for (const result of [human, json]) expectNoLeak(result.stdout + result.stderr, "keys create");
  }, 120_000);
});

/** Runs `wren db --file FILE` until it listens, then stops it (SIGTERM); its output, and what `during` saw. */
async function serveDatabase(file: string, dataDir: string, during: () => void): Promise<string> {
  const child = spawn(process.execPath, [join(ROOT, "bin/wren.js"), "db", "--listen", "127.0.0.1:0", "--file", file], {
    cwd: ROOT,
    env: cleanEnv({ WREN_DATA: dataDir }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c) => (output += c));
  child.stderr.on("data", (c) => (output += c));
  const exited = once(child, "exit");
  try {
    const deadline = Date.now() + 20_000;
    while (!/listening on http:\/\/127\.0\.0\.1:\d+/.test(output)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`wren db did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    during();
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
  return output;
}

describe("wren db --file", () => {
  it("into a folder that does not exist: makes the folder (mode 0700) and serves the database there", async () => {
    const root = tempDir("db-file");
    const file = join(root, "elsewhere", "nested", "wren.db");
    const output = await serveDatabase(file, join(root, "data"), () => {
      for (const folder of [join(root, "elsewhere"), join(root, "elsewhere", "nested")]) {
        expect(statSync(folder).mode & 0o777, folder).toBe(0o700);
      }
      expect(existsSync(file)).toBe(true);
    });
    expect(output).toContain(`Made the folder ${join(root, "elsewhere", "nested")} (mode 0700) for the database.`);
    expect(output).toContain("libSQL server stopped");
  }, 120_000);

  it("into a folder that exists: leaves it as it is", async () => {
    const root = tempDir("db-file-existing");
    const folder = join(root, "shared");
    mkdirSync(folder, { mode: 0o755 });
    const output = await serveDatabase(join(folder, "wren.db"), join(root, "data"), () => undefined);
    expect(output).not.toContain("Made the folder");
    expect(statSync(folder).mode & 0o777).toBe(0o755);
  }, 120_000);
});
