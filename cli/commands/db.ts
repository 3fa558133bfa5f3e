/**
 * `wren db [--listen HOST:PORT] [--file PATH] [--allow-host NAME]`: the embedded libSQL (Hrana
 * over HTTP) server alone. It requires a bearer token like under `wren start`:
 * LIBSQL_AUTH_TOKEN, or the data folder's `libsql.token`. `--allow-host` names a host name
 * clients may reach it by besides its address (repeatable); any other Host header is refused.
 * A `--file` in a folder that does not exist yet gets the folder, made private (0700) like the
 * data folder: a database is nothing for other local users.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { startHranaServer } from "../../server/hrana/index";
import { CliError } from "../output";
import { PRIVATE_DIR_MODE, secureDataFolder } from "../data-folder";
import { ensureDatabaseToken } from "../database-token";
import { databaseFile, databaseTokenFile, type Settings } from "../settings";
import { untilSignal } from "../signals";
import type { DB_OPTIONS, Invocation } from "./registry";

export async function dbCommand(settings: Settings, { values }: Invocation<typeof DB_OPTIONS>): Promise<void> {
  const listen = values.listen ?? `127.0.0.1:${settings.dbPort || 8080}`;
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(listen);
  if (!match) throw new CliError("--listen: expected HOST:PORT, e.g. 127.0.0.1:8080", 2);
  const host = match[1]!.replace(/^\[|\]$/g, "");
  secureDataFolder(settings.dataDir);
  const file = resolve(values.file ?? databaseFile(settings));
  const folder = dirname(file);
  if (!existsSync(folder)) {
    mkdirSync(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
    console.log(`Made the folder ${folder} (mode 0700) for the database.`);
  }
  const server = await startHranaServer({
    file,
    host,
    port: Number(match[2]),
    authToken: ensureDatabaseToken(settings),
    allowedHosts: values["allow-host"] ?? [],
  });
  // One write: a reader that waits for "listening" also finds where the token is.
  const tokenLine = settings.libsqlAuthToken
    ? ""
    : `\nClients authenticate with the token in ${databaseTokenFile(settings)} (LIBSQL_AUTH_TOKEN).`;
  console.log(`libSQL server (Hrana over HTTP) listening on ${server.url}${tokenLine}`);
  await untilSignal();
  await server.close();
  console.log("libSQL server stopped; WAL checkpointed.");
}
