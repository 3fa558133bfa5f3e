/** `wren` command dispatch. Each command lives in cli/commands/ and loads only when used. */
import { CliError } from "./output";
import { loadSettings } from "./settings";

const USAGE = `wren — self-hosted web analytics

Usage:
  wren start                                   run the whole service (database, migrations, workerd)
  wren db --listen HOST:PORT --file PATH [--allow-host NAME]
                                               run only the embedded libSQL server (token: data/libsql.token)
  wren migrate                                 apply database migrations
  wren keys create --scopes A,B [--sites S1,S2] [--name N] [--rate-requests N --rate-per-seconds S] [--json]
  wren keys list [--json]
  wren keys revoke KEY_ID
  wren sites create --name N --domain D [--json]
  wren sites list [--json]
  wren goals create --site S --kind page|event|time|scroll --match M [--threshold N] [--json]
  wren goals list --site S [--json]
  wren token SITE_ID                           print the site's s2s token
  wren deployments create --site S --version V [--environment E] [--external-id X] [--description D] [--url U] [--json]
  wren deployments list --site S [--json]
  wren hooks deployment SITE_ID [--json]       make (or rotate) the site's deployment webhook: URL and secret
  wren alerts create --site S (--goal G | --metric pageviews|visitors) (--below N | --above N) [--window-hours H] [--for-minutes M]
                     --url URL [--url URL2] [--format standard|slack] [--json]
  wren alerts create --site S --deployment-without-smoke [--within-minutes M] --url URL [--format standard|slack] [--json]
                                               an alert rule; each destination's signing secret is shown once
  wren alerts list --site S [--json]
  wren alerts delete RULE_ID

Environment: HOST, PORT, WREN_DATA, WREN_PUBLIC_URL, WREN_DB_PORT, LIBSQL_URL, LIBSQL_AUTH_TOKEN
(alert rules also read WREN_K_ANONYMITY and WREN_WEBHOOK_ALLOW: give the CLI the service's).`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  try {
    const settings = loadSettings();
    switch (command) {
      case "start":
        await (await import("./commands/start")).startCommand(settings);
        break;
      case "db":
        await (await import("./commands/db")).dbCommand(settings, args);
        break;
      case "migrate":
        await (await import("./commands/migrate")).migrateCommand(settings, args);
        break;
      case "keys":
        await (await import("./commands/keys")).keysCommand(settings, args);
        break;
      case "sites":
        await (await import("./commands/sites")).sitesCommand(settings, args);
        break;
      case "goals":
        await (await import("./commands/goals")).goalsCommand(settings, args);
        break;
      case "token":
        await (await import("./commands/token")).tokenCommand(settings, args);
        break;
      case "deployments":
        await (await import("./commands/deployments")).deploymentsCommand(settings, args);
        break;
      case "hooks":
        await (await import("./commands/hooks")).hooksCommand(settings, args);
        break;
      case "alerts":
        await (await import("./commands/alerts")).alertsCommand(settings, args);
        break;
      case undefined:
      case "help":
      case "--help":
      case "-h":
        console.log(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new CliError(`unknown command "${command}"\n\n${USAGE}`, 2);
    }
    return 0;
  } catch (error) {
    if (error instanceof CliError) {
      console.error(`wren: ${error.message}`);
      return error.exitCode;
    }
    if (error instanceof TypeError && /parseArgs|Unknown option|ERR_PARSE_ARGS/.test(`${(error as { code?: string }).code} ${error.message}`)) {
      console.error(`wren: ${error.message}`);
      return 2;
    }
    console.error(`wren: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
