/**
 * `wren` command dispatch: finds the command in cli/commands/registry.ts, answers --help and
 * --version without loading any command (nor the settings, the data folder or the database),
 * parses the arguments strictly against the command's declared options (an unknown option is a
 * usage error, exit 2), then runs it. Every failure is told through cli/output.ts's one
 * formatter, as JSON when --json was given.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { COMMANDS, synopsisOf, type CommandSpec, type Invocation, type OptionSpecs } from "./commands/registry";
import { CliError, describeFailure, printFailure } from "./output";
import { ROOT } from "./paths";
import { ENVIRONMENT, loadSettings } from "./settings";

const WIDTH = 110;

const isHelp = (arg: string) => arg === "--help" || arg === "-h";

/** The arguments before a `--` (after it, everything is a positional argument). */
const flagsOf = (args: string[]) => (args.includes("--") ? args.slice(0, args.indexOf("--")) : args);

export function version(): string {
  return (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
}

const nameOf = (spec: CommandSpec) => `wren ${spec.words.join(" ")}`;

/** A usage form wrapped at WIDTH, breaking only between top-level groups (`[--x X]`, `(a | b)`). */
function wrap(first: string, text: string, indent: string): string[] {
  const groups: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of text) {
    if (char === " " && depth === 0) {
      if (current) groups.push(current);
      current = "";
      continue;
    }
    if (char === "[" || char === "(") depth++;
    if (char === "]" || char === ")") depth--;
    current += char;
  }
  if (current) groups.push(current);
  const lines = [first];
  for (const group of groups) {
    const last = lines[lines.length - 1]!;
    if (last.length + 1 + group.length > WIDTH && last.trim() !== "") lines.push(`${indent}${group}`);
    else lines[lines.length - 1] = `${last} ${group}`;
  }
  return lines;
}

function usageLines(spec: CommandSpec, lead: string): string[] {
  const name = nameOf(spec);
  return synopsisOf(spec).flatMap((form, i) => {
    const first = `${i === 0 ? lead : " ".repeat(lead.length)}${name}`;
    return form ? wrap(first, form, " ".repeat(first.length + 1)) : [first];
  });
}

export function globalHelp(): string {
  const commands = COMMANDS.flatMap((spec) => [...usageLines(spec, "  "), `      ${spec.summary}`]);
  const nameWidth = Math.max(...ENVIRONMENT.map(([name]) => name.length)) + 2;
  const fallbackWidth = Math.max(...ENVIRONMENT.map(([, fallback]) => fallback.length)) + 2;
  const environment = ENVIRONMENT.map(
    ([name, fallback, meaning]) => `  ${name.padEnd(nameWidth)}${fallback.padEnd(fallbackWidth)}${meaning}`,
  );
  return [
    `wren ${version()} — self-hosted web analytics`,
    "",
    "Usage: wren COMMAND [ARGUMENTS] [OPTIONS]",
    "       wren COMMAND --help      a command's options in full (also -h)",
    "       wren --version           the version (also -v)",
    "",
    "Commands:",
    ...commands,
    "",
    "--json prints a command's result as JSON; an error is then one JSON object on stderr:",
    '{"error": "…", "code": "…", "exit_code": N}. Exit codes: 0 done, 1 failed, 2 a usage error.',
    "Commands other than start, db and migrate need a database: `npx wren migrate` or `npm start` makes it.",
    "",
    "Environment (the CLI reads what the service reads: give it the same values):",
    `  ${"name".padEnd(nameWidth)}${"default".padEnd(fallbackWidth)}meaning`,
    ...environment,
    "",
  ].join("\n");
}

export function commandHelp(spec: CommandSpec): string {
  const options = Object.entries(spec.options).map(([name, option]) => [
    option.type === "string" ? `--${name} ${option.value}` : `--${name}`,
    option.help,
  ]);
  options.push(["-h, --help", "print this help"]);
  const width = Math.max(...options.map(([flag]) => flag!.length)) + 2;
  // A group's own command (`wren import FILE`) also tells its subcommands (`wren import list`).
  const subcommands = spec.words.length === 1 ? COMMANDS.filter((c) => c.words.length === 2 && c.words[0] === spec.words[0]) : [];
  return [
    ...usageLines(spec, "usage: "),
    "",
    `${spec.summary[0]!.toUpperCase()}${spec.summary.slice(1)}.`,
    "",
    "Options:",
    ...options.map(([flag, help]) => `  ${flag!.padEnd(width)}${help}`),
    "",
    ...(subcommands.length > 0
      ? ["Subcommands:", ...subcommands.flatMap((c) => [...usageLines(c, "  "), `      ${c.summary}`]), ""]
      : []),
    "The environment (WREN_DATA, LIBSQL_URL, …) is in `wren --help`.",
    "",
  ].join("\n");
}

function groupHelp(word: string): string {
  const specs = COMMANDS.filter((c) => c.words[0] === word);
  return [
    ...specs.flatMap((spec, i) => [...usageLines(spec, i === 0 ? "usage: " : "       "), `         ${spec.summary}`]),
    "",
    `\`wren ${word} SUBCOMMAND --help\` tells one in full.`,
    "",
  ].join("\n");
}

/** What parseArgs refused, said plainly. */
function parseProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const option = /'([^' ]+)/.exec(message)?.[1];
  if (/^Unknown option/.test(message)) return `unknown option ${option}`;
  if (/argument missing/.test(message)) return `${option} needs a value`;
  if (/does not take an argument/.test(message)) return `${option} takes no value`;
  return message;
}

/** The arguments as the command declares them; anything else is a usage error (exit 2). */
function parseInvocation(spec: CommandSpec, args: string[]): Invocation<OptionSpecs> {
  const name = nameOf(spec);
  const options = Object.fromEntries(
    Object.entries(spec.options).map(([key, option]) => [
      key,
      option.type === "string" ? { type: "string" as const, multiple: option.multiple ?? false } : { type: "boolean" as const },
    ]),
  );
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new CliError(`${parseProblem(error)} (see \`${name} --help\`)`, 2);
  }
  const { values, positionals } = parsed;
  if (positionals.length < spec.args.length) {
    throw new CliError(`${spec.args[positionals.length]} is required (see \`${name} --help\`)`, 2);
  }
  if (positionals.length > spec.args.length) {
    throw new CliError(`unexpected argument "${positionals[spec.args.length]}" (see \`${name} --help\`)`, 2);
  }
  // A required option left out is named with its help (what it takes), not with the schema's words about an empty value.
  for (const [key, option] of Object.entries(spec.options)) {
    if (option.type === "string" && option.required && values[key] === undefined) {
      throw new CliError(`--${key} is required: ${option.help} (see \`${name} --help\`)`, 2);
    }
  }
  return { values: values as Invocation<OptionSpecs>["values"], positionals };
}

/** `wren help [WORDS]`: the help of a command, a group of commands, or every command. */
function helpFor(words: string[]): string {
  if (words.length === 0) return globalHelp();
  const spec = COMMANDS.find((c) => c.words.join(" ") === words.join(" "));
  if (spec) return commandHelp(spec);
  if (words.length === 1 && COMMANDS.some((c) => c.words[0] === words[0])) return groupHelp(words[0]!);
  throw new CliError(`no command "wren ${words.join(" ")}" (see \`wren --help\`)`, 2);
}

async function dispatch(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined) {
    process.stderr.write(globalHelp());
    return 2;
  }
  if (first === "--version" || first === "-v" || first === "version") {
    process.stdout.write(`wren ${version()}\n`);
    return 0;
  }
  if (isHelp(first) || first === "help") {
    process.stdout.write(helpFor(rest.filter((a) => !a.startsWith("-"))));
    return 0;
  }
  const group = COMMANDS.filter((c) => c.words[0] === first);
  if (group.length === 0) throw new CliError(`unknown command "${first}" (see \`wren --help\`)`, 2);
  // A subcommand's word first (`wren import list`), then the group's own command (`wren import FILE`).
  const subcommand = group.find((c) => c.words.length === 2 && c.words[1] === rest[0]);
  let spec = subcommand ?? group.find((c) => c.words.length === 1);
  let args = subcommand ? rest.slice(1) : rest;
  if (!spec) {
    const [sub, ...subArgs] = rest;
    if (sub !== undefined && isHelp(sub)) {
      process.stdout.write(groupHelp(first));
      return 0;
    }
    spec = group.find((c) => c.words[1] === sub);
    if (!spec) {
      const asked = sub === undefined ? `wren ${first} needs a subcommand` : `unknown command "wren ${first} ${sub}"`;
      throw new CliError(`${asked}\n\n${groupHelp(first).trimEnd()}`, 2);
    }
    args = subArgs;
  }
  if (flagsOf(args).some(isHelp)) {
    process.stdout.write(commandHelp(spec));
    return 0;
  }
  const invocation = parseInvocation(spec, args);
  await spec.run(loadSettings(), invocation);
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  try {
    return await dispatch(argv);
  } catch (error) {
    const failure = describeFailure(error);
    printFailure(failure, flagsOf(argv).includes("--json"));
    return failure.exitCode;
  }
}
