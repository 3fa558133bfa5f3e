/**
 * `wren start` (and `npm start`): the whole service in one command. It starts the embedded
 * libSQL server (unless LIBSQL_URL names another), applies migrations, onboards on first
 * start, rebuilds what is stale, runs workerd (two processes: the collector, the front door,
 * and the api) and waits for /healthz. Ctrl-C or SIGTERM stops everything in order; a child
 * that dies on its own is reported and stops the rest.
 */
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { startHranaServer } from "../../server/hrana/index";
import { buildIfStale } from "../../scripts/build";
import { secureDataFolder } from "../data-folder";
import { applyMigrations, openDatabase } from "../database";
import { ensureDatabaseToken } from "../database-token";
import { announceOnboarding, onboard } from "../onboarding";
import { CliError } from "../output";
import { requireSecret } from "../secret";
import { databaseFile, type Settings } from "../settings";
import { untilSignal } from "../signals";
import { connectHost, spawnWorkerd, type WorkerdProcesses } from "../workerd";

const HEALTH_TIMEOUT_MS = 30_000;

async function waitForHealth(url: string, exited: Promise<unknown>): Promise<void> {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  let done = false;
  void exited.then(() => (done = true));
  while (Date.now() < deadline && !done) {
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new CliError(done ? "workerd exited during start-up (see its output above)" : `no healthy answer from ${url}/healthz within ${HEALTH_TIMEOUT_MS / 1000} s`);
}

export async function startCommand(settings: Settings): Promise<void> {
  secureDataFolder(settings.dataDir);
  const log = (line: string) => console.log(`wren: ${line}`);

  // The embedded server always requires a token: LIBSQL_AUTH_TOKEN, else the data folder's.
  const databaseToken = settings.libsqlUrl ? settings.libsqlAuthToken : ensureDatabaseToken(settings);
  const hrana = settings.libsqlUrl
    ? undefined
    : await startHranaServer({
        file: databaseFile(settings),
        host: "127.0.0.1",
        port: settings.dbPort,
        authToken: databaseToken,
      });
  const databaseUrl = settings.libsqlUrl ?? hrana!.url;
  log(hrana ? `libSQL server on ${hrana.url} (file ${databaseFile(settings)})` : `using the libSQL server at ${new URL(databaseUrl).host}`);

  const stopDatabase = async () => {
    await hrana?.close();
  };
  let workerdProcesses: WorkerdProcesses | undefined;
  try {
    const db = await openDatabase(settings, { url: databaseUrl, authToken: databaseToken });
    await applyMigrations(db);
    const onboarding = await onboard(settings, db);
    db.$client.close();
    if (onboarding.secretCreated) log("made the server secret (mode 0600) in the data folder");
    const message = announceOnboarding(onboarding, settings);
    if (message) console.log(message);

    const built = await buildIfStale();
    if (built.length > 0) log(`built ${built.join(" and ")}`);

    workerdProcesses = await spawnWorkerd({ settings, databaseUrl, databaseToken, secret: requireSecret(settings) });
    const exited = Promise.race(
      Object.entries(workerdProcesses).map(([name, child]) =>
        (once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>).then(([code, signal]) => ({ name, code, signal })),
      ),
    );
    const localUrl = `http://${connectHost(settings.host)}:${settings.port}`;
    await waitForHealth(localUrl, exited);
    log(`Wren is running at ${localUrl} (dashboard at /dashboard/). Ctrl-C stops it.`);

    const outcome = await Promise.race([untilSignal().then((signal) => ({ signal })), exited.then((exit) => ({ ...exit, crashed: true as const }))]);
    if ("crashed" in outcome) {
      throw new CliError(
        `workerd exited unexpectedly (code ${outcome.code ?? "none"}, signal ${outcome.signal ?? "none"}): the ${outcome.name} process; stopping`,
      );
    }
    log(`${outcome.signal} received, stopping`);
  } finally {
    if (workerdProcesses) await Promise.all(Object.values(workerdProcesses).map(stopChild));
    await stopDatabase();
    log("stopped");
  }
}

/** SIGTERM, then SIGKILL after 5 s; resolves once the child is gone. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await gone;
  clearTimeout(timer);
}
