/**
 * `wren --version`, `wren --help` and `wren COMMAND --help` (and -h) on the real CLI, for every
 * command and subcommand the registry declares: each prints its usage with every option its
 * parser accepts, exits 0, and touches neither the data folder nor the settings (a bad PORT
 * does not stop help). The global help names every option of every command and every
 * environment variable the code reads (found in the sources, so a new one cannot go
 * undocumented). An option a command does not declare is a usage error: exit 2, with --json as
 * a JSON object on stderr.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "../../cli/commands/registry";
import { SET_BY_WREN_START } from "../../cli/settings";
import { ROOT } from "../helpers/stack";
import { pooled, tempDir, wren } from "./helpers";

const VERSION = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
const nameOf = (words: string[]) => `wren ${words.join(" ")}`;
const flags = (options: object) => Object.keys(options).map((name) => `--${name}`);
const GROUPS = [...new Set(COMMANDS.filter((c) => c.words.length === 2).map((c) => c.words[0]!))];

/** A data folder that must still not exist afterwards, and settings that would fail to load. */
function untouchable(): { dataDir: string; env: Record<string, string> } {
  const dataDir = join(tempDir("help"), "absent");
  return { dataDir, env: { PORT: "not-a-port", LIBSQL_URL: "http://127.0.0.1:9/" } };
}

/**
 * Every environment variable the CLI, the service's supervisor, the database server, the scripts
 * and the workers read: `names`; and those read from the operator's environment (process.env
 * and loadSettings' env, outside worker/, whose `env` holds bindings too): `fromOperator`.
 */
function environmentVariablesInCode(): { names: string[]; fromOperator: string[] } {
  const files = execFileSync(
    "git",
    ["ls-files", "--cached", "--others", "--exclude-standard", "cli", "server", "scripts", "worker"],
    {
      cwd: ROOT,
      encoding: "utf8",
    },
  )
    .split("\n")
    .filter((f) => /\.(ts|js|mjs|sh)$/.test(f) && !/\.test\.ts$/.test(f) && !f.startsWith("scripts/install-test-deps"));
  const names = new Set<string>();
  const fromOperator = new Set<string>();
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const m of text.matchAll(/\b((?:WREN|LIBSQL)_[A-Z0-9_]+)\b/g)) names.add(m[1]!);
    if (file.startsWith("worker/")) continue;
    for (const m of text.matchAll(/\b(?:process\.)?env(?:\.|\[["'])([A-Z][A-Z0-9_]+)/g)) {
      names.add(m[1]!);
      fromOperator.add(m[1]!);
    }
  }
  for (const name of ["PATH", ...SET_BY_WREN_START]) names.delete(name);
  return { names: [...names].sort(), fromOperator: [...fromOperator] };
}

describe("wren --version", () => {
  it("prints package.json's version, with --version and -v", async () => {
    const { dataDir, env } = untouchable();
    for (const arg of ["--version", "-v"]) {
      expect(await wren([arg], dataDir, env)).toEqual({ code: 0, stdout: `wren ${VERSION}\n`, stderr: "" });
    }
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);
});

describe("wren --help", () => {
  it("lists every command with every option its parser accepts, and every environment variable the code reads", async () => {
    const { dataDir, env } = untouchable();
    const help = await wren(["--help"], dataDir, env);
    expect([help.code, help.stderr]).toEqual([0, ""]);
    expect(help.stdout).toContain(`wren ${VERSION}`);
    for (const spec of COMMANDS) {
      expect(help.stdout, nameOf(spec.words)).toContain(
        `${nameOf(spec.words)}${spec.args.length ? ` ${spec.args.join(" ")}` : ""}`,
      );
      // Each option within this command's own entry (up to the next command's).
      const start = help.stdout.indexOf(`  ${nameOf(spec.words)}`);
      const next = COMMANDS.slice(COMMANDS.indexOf(spec) + 1).find((c) => c.words.join(" ") !== spec.words.join(" "));
      const end = next ? help.stdout.indexOf(`  ${nameOf(next.words)}`, start + 1) : help.stdout.indexOf("\n\n", start);
      const entry = help.stdout.slice(start, end);
      for (const flag of flags(spec.options)) expect(entry, `${nameOf(spec.words)} ${flag}`).toContain(flag);
    }
    const { names: variables, fromOperator } = environmentVariablesInCode();
    // What only `wren start` sets is never taken from the operator's environment.
    expect(fromOperator.filter((name) => SET_BY_WREN_START.includes(name))).toEqual([]);
    expect(variables).toEqual(
      expect.arrayContaining(["HOST", "PORT", "WREN_DATA", "WREN_PUBLIC_URL", "LIBSQL_URL", "WREN_WEBHOOK_RETRY_SECONDS"]),
    );
    const environment = help.stdout.slice(help.stdout.indexOf("Environment"));
    for (const name of variables) expect(environment, name).toMatch(new RegExp(`^  ${name} +\\S+ +\\S.{10,}$`, "m"));
    expect(await wren(["-h"], dataDir, env)).toEqual(help);
    expect(await wren(["help"], dataDir, env)).toEqual(help);
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);

  it("no command parses its own arguments: the registry's declarations are the only parser input", () => {
    const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "cli"], {
      cwd: ROOT,
      encoding: "utf8",
    })
      .split("\n")
      .filter((f) => f.endsWith(".ts"));
    const parsers = files.filter((f) => readFileSync(join(ROOT, f), "utf8").includes("parseArgs("));
    expect(parsers).toEqual(["cli/main.ts"]);
  }, 120_000);
});

describe("wren COMMAND --help", () => {
  const cases = COMMANDS.flatMap((spec) => ["--help", "-h"].map((arg) => ({ spec, arg })));

  it("prints each command's usage and every option it accepts, exit 0, for --help and -h, without touching the data folder", async () => {
    const { dataDir, env } = untouchable();
    const results = await pooled(cases, 3, ({ spec, arg }) => wren([...spec.words, arg], dataDir, env));
    cases.forEach(({ spec, arg }, i) => {
      const result = results[i]!;
      const label = `${nameOf(spec.words)} ${arg}`;
      expect([result.code, result.stderr], label).toEqual([0, ""]);
      expect(result.stdout.startsWith(`usage: ${nameOf(spec.words)}`), label).toBe(true);
      expect(result.stdout, label).toContain(spec.summary.slice(1));
      for (const flag of flags(spec.options))
        expect(result.stdout, `${label}: ${flag}`).toMatch(new RegExp(`^  ${flag}\\b`, "m"));
      expect(result.stdout, label).toMatch(/^ {2}-h, --help +print this help$/m);
    });
    // Help wins wherever it stands, even after arguments that would not parse.
    const late = await wren(["keys", "create", "--no-such-option", "--help"], dataDir, env);
    expect([late.code, late.stdout]).toEqual([
      0,
      results[cases.findIndex((c) => c.spec.words.join(" ") === "keys create")]!.stdout,
    ]);
    expect(existsSync(dataDir)).toBe(false);
  }, 240_000);

  it("prints a command group's subcommands (wren keys --help, wren help alerts), exit 0", async () => {
    const { dataDir, env } = untouchable();
    for (const group of GROUPS) {
      const help = await wren([group, "--help"], dataDir, env);
      expect([help.code, help.stderr], group).toEqual([0, ""]);
      for (const spec of COMMANDS.filter((c) => c.words[0] === group)) expect(help.stdout, group).toContain(nameOf(spec.words));
      expect(await wren(["help", group], dataDir, env)).toEqual(help);
    }
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);
});

describe("usage errors", () => {
  it("refuses an option a command does not declare with exit 2, naming it, on every command", async () => {
    const { dataDir } = untouchable();
    const results = await pooled(COMMANDS, 3, (spec) => wren([...spec.words, "--no-such-option"], dataDir));
    COMMANDS.forEach((spec, i) => {
      expect(results[i], nameOf(spec.words)).toEqual({
        code: 2,
        stdout: "",
        stderr: `wren: unknown option --no-such-option (see \`${nameOf(spec.words)} --help\`)\n`,
      });
    });
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);

  it("says so as one JSON object on stderr under --json", async () => {
    const { dataDir } = untouchable();
    const refused = await wren(["keys", "list", "--json", "--verbose"], dataDir);
    expect([refused.code, refused.stdout]).toEqual([2, ""]);
    expect(JSON.parse(refused.stderr)).toEqual({
      error: "unknown option --verbose (see `wren keys list --help`)",
      code: "usage",
      exit_code: 2,
    });
  }, 120_000);

  it("refuses an option of another subcommand, a missing or extra argument, an unknown command or subcommand", async () => {
    const { dataDir } = untouchable();
    expect(await wren(["keys", "list", "--scopes", "admin"], dataDir)).toMatchObject({
      code: 2,
      stderr: "wren: unknown option --scopes (see `wren keys list --help`)\n",
    });
    expect(await wren(["token"], dataDir)).toMatchObject({
      code: 2,
      stderr: "wren: SITE_ID is required (see `wren token --help`)\n",
    });
    expect(await wren(["keys", "revoke", "key_a", "key_b"], dataDir)).toMatchObject({
      code: 2,
      stderr: 'wren: unexpected argument "key_b" (see `wren keys revoke --help`)\n',
    });
    expect(await wren(["sites", "create", "--name"], dataDir)).toMatchObject({
      code: 2,
      stderr: "wren: --name needs a value (see `wren sites create --help`)\n",
    });
    expect(await wren(["frobnicate"], dataDir)).toMatchObject({
      code: 2,
      stderr: 'wren: unknown command "frobnicate" (see `wren --help`)\n',
    });
    const sub = await wren(["keys", "rotate"], dataDir);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toMatch(/^wren: unknown command "wren keys rotate"\n\nusage: wren keys create /);
    const none = await wren([], dataDir);
    expect([none.code, none.stdout]).toEqual([2, ""]);
    expect(none.stderr).toContain("Usage: wren COMMAND");
    expect(existsSync(dataDir)).toBe(false);
  }, 120_000);
});
