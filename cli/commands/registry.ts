/**
 * Every `wren` command in one table: its words, its arguments, its options (exactly what its
 * parser accepts), its usage line and what it does. The parser (cli/main.ts), `wren --help`
 * and `wren COMMAND --help` are all drawn from these declarations, so an option cannot be
 * accepted without being documented, or documented without being accepted. A command's code
 * is loaded only when it runs (help never opens the database or the data folder).
 */
import { SCOPES } from "../../worker/lib/keys";
import type { Settings } from "../settings";

/** One option, as node:util parseArgs takes it, with what the help says of it. */
export type OptionSpec =
  { type: "string"; value: string; help: string; required?: true; multiple?: true } | { type: "boolean"; help: string };

export type OptionSpecs = Record<string, OptionSpec>;

/** The parsed options: absent ones are undefined, repeatable ones arrays. */
export type OptionValues<O extends OptionSpecs> = {
  [K in keyof O]?: O[K] extends { type: "boolean" } ? boolean : O[K] extends { multiple: true } ? string[] : string;
};

/** What a command's code receives: its options and its positional arguments (as many as it declares). */
export interface Invocation<O extends OptionSpecs> {
  values: OptionValues<O>;
  positionals: string[];
}

export interface CommandSpec<O extends OptionSpecs = OptionSpecs> {
  /** The words that name it: ["keys", "create"]. */
  words: string[];
  /** Its positional arguments, by placeholder; each is required. */
  args: string[];
  options: O;
  /** The usage line after the words, when the options' own (drawn from `options`) cannot say it. */
  synopsis?: string;
  /** What it does, in one line. */
  summary: string;
  run(settings: Settings, invocation: Invocation<O>): Promise<void>;
}

function command<const O extends OptionSpecs>(spec: CommandSpec<O>): CommandSpec<O> {
  return spec;
}

const json = { type: "boolean", help: "print the result as JSON (and an error as a JSON object on stderr)" } as const;
const site = { type: "string", value: "SITE_ID", required: true, help: "the site (site_…)" } as const;

export const START_OPTIONS = {} as const satisfies OptionSpecs;
export const DB_OPTIONS = {
  listen: { type: "string", value: "HOST:PORT", help: "address to listen on (default 127.0.0.1:WREN_DB_PORT, else 8080)" },
  file: { type: "string", value: "PATH", help: "database file (default WREN_DATA/wren.db); a missing folder is made, mode 0700" },
  "allow-host": { type: "string", value: "NAME", multiple: true, help: "a host name clients may reach it by (repeatable)" },
} as const satisfies OptionSpecs;
export const MIGRATE_OPTIONS = { json } as const satisfies OptionSpecs;

export const KEYS_CREATE_OPTIONS = {
  scopes: { type: "string", value: "A,B", required: true, help: `scopes, comma-separated: ${SCOPES.join(", ")}` },
  sites: {
    type: "string",
    value: "S1,S2",
    help: "existing sites it may act on besides those it creates, comma-separated, or '*' for every site",
  },
  name: { type: "string", value: "NAME", help: 'a label for the key (default "api key")' },
  "rate-requests": { type: "string", value: "N", help: "its own rate limit: N requests (default WREN_RATE_LIMIT) …" },
  "rate-per-seconds": { type: "string", value: "S", help: "… per S seconds (default 60)" },
  json,
} as const satisfies OptionSpecs;
export const KEYS_LIST_OPTIONS = { json } as const satisfies OptionSpecs;
export const PEOPLE_INVITE_OPTIONS = {
  role: { type: "string", value: "ROLE", required: true, help: "viewer, editor or admin" },
  site: { type: "string", value: "SITE_ID", required: true, help: "the site, or '*' for every site" },
  email: { type: "string", value: "EMAIL", help: "the person's e-mail address (optional)" },
  json,
} as const satisfies OptionSpecs;
export const KEYS_REVOKE_OPTIONS = { json } as const satisfies OptionSpecs;

export const SITES_CREATE_OPTIONS = {
  name: { type: "string", value: "NAME", required: true, help: "the site's name" },
  domain: { type: "string", value: "DOMAIN", required: true, help: "its domain (the collector takes beacons only from it)" },
  timezone: { type: "string", value: "ZONE", help: "IANA time zone its reports cut days in, e.g. Europe/Berlin (default UTC)" },
  json,
} as const satisfies OptionSpecs;
export const SITES_LIST_OPTIONS = { json } as const satisfies OptionSpecs;

export const GOALS_CREATE_OPTIONS = {
  site,
  kind: {
    type: "string",
    value: "page|event|time|scroll|outbound|download|not-found",
    required: true,
    help: "what counts: a page view, an event, time on a page, scroll depth, an outbound link, a file download, a 404 page",
  },
  match: {
    type: "string",
    value: "M",
    help: "a path pattern (/thanks, /blog/*), the event's name, or a download's extensions (pdf zip); outbound, download and not-found count all when left out",
  },
  threshold: { type: "string", value: "N", help: "time: seconds on the page (1–86400); scroll: depth percent (1–100)" },
  name: { type: "string", value: "NAME", help: "a label (default KIND: MATCH)" },
  purpose: { type: "string", value: "P", help: "e.g. smoke-test: its conversions are listed beside deployment markers" },
  currency: { type: "string", value: "CODE", help: "a revenue goal: conversions carry amounts in this ISO 4217 currency (EUR)" },
  json,
} as const satisfies OptionSpecs;
export const GOALS_LIST_OPTIONS = { site, json } as const satisfies OptionSpecs;

export const PROPS_LIST_OPTIONS = { site, json } as const satisfies OptionSpecs;
export const PROPS_NAME_OPTIONS = { site, json } as const satisfies OptionSpecs;

export const TOKEN_OPTIONS = { json } as const satisfies OptionSpecs;
export const OIDC_CHECK_OPTIONS = { json } as const satisfies OptionSpecs;

export const DEPLOYMENTS_CREATE_OPTIONS = {
  site,
  version: { type: "string", value: "V", required: true, help: "what was deployed: a commit SHA, a tag" },
  environment: { type: "string", value: "E", help: "where to (default production)" },
  "external-id": {
    type: "string",
    value: "X",
    help: "an idempotency key: the same one again finds the same marker (default V:E)",
  },
  description: { type: "string", value: "D", help: "a line of text" },
  url: { type: "string", value: "U", help: "a link to the build or release (http or https)" },
  "deployed-at": { type: "string", value: "T", help: "when, ISO 8601, within the last 24 hours (default now)" },
  json,
} as const satisfies OptionSpecs;
export const DEPLOYMENTS_LIST_OPTIONS = {
  site,
  limit: { type: "string", value: "N", help: "at most N markers, newest first (1–500, default 100)" },
  json,
} as const satisfies OptionSpecs;

export const HOOKS_DEPLOYMENT_OPTIONS = { json } as const satisfies OptionSpecs;

export const ALERTS_CREATE_OPTIONS = {
  site,
  goal: { type: "string", value: "G", help: "watch this goal's conversions" },
  metric: { type: "string", value: "pageviews|visitors", help: "watch the site's pageviews or visitors instead" },
  below: { type: "string", value: "N", help: "fire when the figure is below N (1 or at least k)" },
  above: { type: "string", value: "N", help: "fire when the figure is above N (1 or at least k)" },
  "window-hours": { type: "string", value: "H", help: "over the last H closed hours (1–168, default 24)" },
  "for-minutes": { type: "string", value: "M", help: "only once the condition has held M minutes (0–10080, default 0)" },
  "deployment-without-smoke": { type: "boolean", help: "fire when a deployment marker gets no smoke-test conversion in time" },
  "within-minutes": { type: "string", value: "M", help: "that time, in minutes (1–1440, default 15)" },
  url: {
    type: "string",
    value: "URL",
    required: true,
    multiple: true,
    help: "where to send notifications (repeatable, at most 5)",
  },
  format: {
    type: "string",
    value: "standard|slack",
    multiple: true,
    help: "signed Standard Webhooks (default) or Slack; one, or one per --url",
  },
  json,
} as const satisfies OptionSpecs;
export const ALERTS_LIST_OPTIONS = { site, json } as const satisfies OptionSpecs;

export const IMPORT_OPTIONS = {
  site,
  from: { type: "string", value: "plausible|umami|goatcounter", required: true, help: "the tool whose export FILE is" },
  json,
} as const satisfies OptionSpecs;
export const IMPORT_LIST_OPTIONS = { site, json } as const satisfies OptionSpecs;
export const IMPORT_REMOVE_OPTIONS = { site, json } as const satisfies OptionSpecs;
export const ALERTS_DELETE_OPTIONS = { json } as const satisfies OptionSpecs;

export const COMMANDS: CommandSpec<any>[] = [
  command({
    words: ["start"],
    args: [],
    options: START_OPTIONS,
    summary: "run the whole service: database, migrations, workerd (what npm start runs)",
    run: async (settings) => (await import("./start")).startCommand(settings),
  }),
  command({
    words: ["db"],
    args: [],
    options: DB_OPTIONS,
    summary: "run only the embedded libSQL server (token: LIBSQL_AUTH_TOKEN, else WREN_DATA/libsql.token)",
    run: async (settings, input) => (await import("./db")).dbCommand(settings, input),
  }),
  command({
    words: ["migrate"],
    args: [],
    options: MIGRATE_OPTIONS,
    summary: "make the database, or bring it up to date (npm start does it too)",
    run: async (settings, input) => (await import("./migrate")).migrateCommand(settings, input),
  }),
  command({
    words: ["oidc", "check"],
    args: [],
    options: OIDC_CHECK_OPTIONS,
    summary: "check the OIDC settings: fetch the provider's discovery and print the redirect URI to register",
    run: async (settings, input) => (await import("./oidc")).oidcCheckCommand(settings, input),
  }),
  command({
    words: ["keys", "create"],
    args: [],
    options: KEYS_CREATE_OPTIONS,
    summary: "issue an API key with only the scopes it needs; its secret is shown once",
    run: async (settings, input) => (await import("./keys")).createKey(settings, input),
  }),
  command({
    words: ["people", "invite"],
    args: [],
    options: PEOPLE_INVITE_OPTIONS,
    summary: "make a one-time invitation link for a person (a role on a site or on every site); shown once",
    run: async (settings, input) => (await import("./people")).invitePerson(settings, input),
  }),
  command({
    words: ["keys", "list"],
    args: [],
    options: KEYS_LIST_OPTIONS,
    summary: "list the active keys (prefix, scopes, sites, last use)",
    run: async (settings, input) => (await import("./keys")).listKeysCommand(settings, input),
  }),
  command({
    words: ["keys", "revoke"],
    args: ["KEY_ID"],
    options: KEYS_REVOKE_OPTIONS,
    summary: "revoke a key; it stops working at once",
    run: async (settings, input) => (await import("./keys")).revokeKeyCommand(settings, input),
  }),
  command({
    words: ["sites", "create"],
    args: [],
    options: SITES_CREATE_OPTIONS,
    summary: "register a site: its snippet (for WREN_PUBLIC_URL) and s2s token",
    run: async (settings, input) => (await import("./sites")).createSite(settings, input),
  }),
  command({
    words: ["sites", "list"],
    args: [],
    options: SITES_LIST_OPTIONS,
    summary: "list the sites",
    run: async (settings, input) => (await import("./sites")).listSitesCommand(settings, input),
  }),
  command({
    words: ["goals", "create"],
    args: [],
    options: GOALS_CREATE_OPTIONS,
    summary: "add a goal to a site (the same kind, match and threshold again finds the existing goal)",
    run: async (settings, input) => (await import("./goals")).createGoal(settings, input),
  }),
  command({
    words: ["goals", "list"],
    args: [],
    options: GOALS_LIST_OPTIONS,
    summary: "list a site's goals",
    run: async (settings, input) => (await import("./goals")).listGoalsCommand(settings, input),
  }),
  command({
    words: ["props", "list"],
    args: [],
    options: PROPS_LIST_OPTIONS,
    summary: "list the custom property names a site keeps, and the props dropped in the last 7 days",
    run: async (settings, input) => (await import("./props")).listPropsCommand(settings, input),
  }),
  command({
    words: ["props", "add"],
    args: ["NAME"],
    options: PROPS_NAME_OPTIONS,
    summary: "keep custom props under NAME (at most 50 names a site)",
    run: async (settings, input) => (await import("./props")).addPropCommand(settings, input),
  }),
  command({
    words: ["props", "remove"],
    args: ["NAME"],
    options: PROPS_NAME_OPTIONS,
    summary: "stop keeping props under NAME (props stored already stay)",
    run: async (settings, input) => (await import("./props")).removePropCommand(settings, input),
  }),
  command({
    words: ["token"],
    args: ["SITE_ID"],
    options: TOKEN_OPTIONS,
    summary: "print the site's s2s token (X-Service-Token)",
    run: async (settings, input) => (await import("./token")).tokenCommand(settings, input),
  }),
  command({
    words: ["deployments", "create"],
    args: [],
    options: DEPLOYMENTS_CREATE_OPTIONS,
    summary: "record a deployment marker",
    run: async (settings, input) => (await import("./deployments")).createDeployment(settings, input),
  }),
  command({
    words: ["deployments", "list"],
    args: [],
    options: DEPLOYMENTS_LIST_OPTIONS,
    summary: "list a site's deployment markers, newest first",
    run: async (settings, input) => (await import("./deployments")).listDeploymentsCommand(settings, input),
  }),
  command({
    words: ["hooks", "deployment"],
    args: ["SITE_ID"],
    options: HOOKS_DEPLOYMENT_OPTIONS,
    summary: "make (or rotate) the site's deployment webhook: its URL and secret, shown once",
    run: async (settings, input) => (await import("./hooks")).hooksCommand(settings, input),
  }),
  command({
    words: ["alerts", "create"],
    args: [],
    options: ALERTS_CREATE_OPTIONS,
    synopsis:
      "--site SITE_ID (--goal G | --metric pageviews|visitors) (--below N | --above N) [--window-hours H] [--for-minutes M]" +
      " --url URL [--url URL …] [--format standard|slack …] [--json]\n" +
      "--site SITE_ID --deployment-without-smoke [--within-minutes M] --url URL [--url URL …] [--format standard|slack …] [--json]",
    summary: "add an alert rule; each destination's signing secret is shown once",
    run: async (settings, input) => (await import("./alerts")).createAlert(settings, input),
  }),
  command({
    words: ["alerts", "list"],
    args: [],
    options: ALERTS_LIST_OPTIONS,
    summary: "list a site's alert rules and their state",
    run: async (settings, input) => (await import("./alerts")).listAlerts(settings, input),
  }),
  command({
    words: ["alerts", "delete"],
    args: ["RULE_ID"],
    options: ALERTS_DELETE_OPTIONS,
    summary: "delete an alert rule with its history",
    run: async (settings, input) => (await import("./alerts")).deleteAlert(settings, input),
  }),
  command({
    words: ["import"],
    args: ["FILE"],
    options: IMPORT_OPTIONS,
    summary:
      "import a site's history from Plausible's export zip, Umami's or GoatCounter's CSV (the same file again changes nothing; an interrupted one resumes)",
    run: async (settings, input) => (await import("./import")).importCommand(settings, input),
  }),
  command({
    words: ["import", "list"],
    args: [],
    options: IMPORT_LIST_OPTIONS,
    summary: "list a site's imports",
    run: async (settings, input) => (await import("./import")).listImportsCommand(settings, input),
  }),
  command({
    words: ["import", "remove"],
    args: ["IMPORT_ID"],
    options: IMPORT_REMOVE_OPTIONS,
    summary: "remove an import and the days it still holds",
    run: async (settings, input) => (await import("./import")).removeImportCommand(settings, input),
  }),
];

/** The usage forms after `wren WORDS` (one per line): declared, or drawn from the arguments and options. */
export function synopsisOf(spec: CommandSpec): string[] {
  if (spec.synopsis) return spec.synopsis.split("\n");
  const options = Object.entries(spec.options).map(([name, option]) => {
    const flag = option.type === "boolean" ? `--${name}` : `--${name} ${option.value}${option.multiple ? " …" : ""}`;
    return option.type === "string" && option.required ? flag : `[${flag}]`;
  });
  return [[...spec.args, ...options].join(" ")];
}
