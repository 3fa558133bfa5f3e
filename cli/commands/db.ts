import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { startHranaServer } from "../../server/hrana/index";
import { CliError } from "../output";
import { databaseFile, type Settings } from "../settings";
import { untilSignal } from "../signals";

/** `wren db --listen HOST:PORT --file PATH`: the embedded libSQL (Hrana over HTTP) server alone. */
export async function dbCommand(settings: Settings, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { listen: { type: "string" }, file: { type: "string" } },
  });
  const listen = values.listen ?? `127.0.0.1:${settings.dbPort || 8080}`;
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(listen);
  if (!match) throw new CliError("--listen: expected HOST:PORT, e.g. 127.0.0.1:8080", 2);
  const host = match[1]!.replace(/^\[|\]$/g, "");
  const server = await startHranaServer({
    file: resolve(values.file ?? databaseFile(settings)),
    host,
    port: Number(match[2]),
    authToken: settings.libsqlAuthToken,
  });
  console.log(`libSQL server (Hrana over HTTP) listening on ${server.url}`);
  await untilSignal();
  await server.close();
  console.log("libSQL server stopped; WAL checkpointed.");
}
