/**
 * `wren start` (and `npm start`): the whole service in one command. It checks that the data
 * folder is writable and the ports are free (naming what holds one), starts the embedded
 * libSQL server (unless LIBSQL_URL names another), applies migrations, onboards on first start,
 * rebuilds what is stale, runs workerd (two processes: the collector, the front door, and the
 * api) and waits for /healthz to answer with this start's id. Ctrl-C or SIGTERM stops
 * everything in order; a child that dies on its own is reported and stops the rest; a `kill -9`
 * of this process leaves no child behind (cli/reaper.ts).
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { startHranaServer, type HranaServer } from "../../server/hrana/index";
import { buildIfStale } from "../../scripts/build";
import { removeApiSocket } from "../api-socket";
import { requireWritableDataFolder, secureDataFolder } from "../data-folder";
import { applyMigrations, openDatabase } from "../database";
import { ensureDatabaseToken } from "../database-token";
import { announceOnboarding, onboard } from "../onboarding";
import { CliError } from "../output";
import { describeTakenPort, portIsFree } from "../port-check";
import { mailSettings, startMailSender, type MailSender } from "../mail-sender";
import { startReaper } from "../reaper";
import { requireSecret } from "../secret";
import { recordServiceUrl } from "../service-url";
import { databaseFile, type Settings } from "../settings";
import { untilSignal } from "../signals";
import { clockOffsetSetting, connectHost, spawnWorkerd, type WorkerdProcesses } from "../workerd";

const HEALTH_TIMEOUT_MS = 30_000;
/** One probe's wait: a stopped process accepts connections and never answers. */
const PROBE_TIMEOUT_MS = 2_000;

/** Waits until /healthz answers 200 with this start's id: a server of an earlier start does not count. */
async function waitForHealth(url: string, instance: string, exited: Promise<unknown>): Promise<void> {
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  let done = false;
  void exited.then(() => (done = true));
  while (Date.now() < deadline && !done) {
    const answer = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) }).then(
      async (r) => (r.ok ? ((await r.json()) as { instance?: unknown }) : null),
      () => null,
    );
    if (answer?.instance === instance) return;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new CliError(
    done
      ? "workerd exited during start-up (see its output above)"
      : `no healthy answer from ${url}/healthz within ${HEALTH_TIMEOUT_MS / 1000} s`,
  );
}

/** Refuses at once, naming the holder, when a port this start needs is taken. */
async function requireFreePorts(settings: Settings): Promise<void> {
  if (!(await portIsFree(settings.host, settings.port))) {
    throw new CliError(describeTakenPort("The port Wren listens on", settings.host, settings.port));
  }
  if (!settings.libsqlUrl && settings.dbPort !== 0 && !(await portIsFree("127.0.0.1", settings.dbPort))) {
    throw new CliError(describeTakenPort("The embedded database's port, WREN_DB_PORT", "127.0.0.1", settings.dbPort));
  }
}

/** A signal arrived before the service was up: stop what started, quietly, as after it. */
class StartInterrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`${signal} received during start-up`);
  }
}

export async function startCommand(settings: Settings): Promise<void> {
  // Listening from the first line: Ctrl-C during start-up (a build, migrations) stops in order
  // too, instead of killing this process mid-step with Node's default action.
  let received: NodeJS.Signals | undefined;
  const signalled = untilSignal().then((signal) => (received = signal));
  const checkSignal = () => {
    if (received) throw new StartInterrupted(received);
  };

  requireWritableDataFolder(settings.dataDir, databaseFile(settings));
  secureDataFolder(settings.dataDir);
  await requireFreePorts(settings);
  // Checked before anything starts: a broken WREN_SMTP_URL or a missing WREN_MAIL_FROM stops here.
  const mail = mailSettings(process.env);
  const log = (line: string) => console.log(`wren: ${line}`);
  const instance = randomUUID();
  const reaper = startReaper();

  let hrana: HranaServer | undefined;
  let workerdProcesses: WorkerdProcesses | undefined;
  let mailSender: MailSender | undefined;
  try {
    // The embedded server always requires a token: LIBSQL_AUTH_TOKEN, else the data folder's.
    const databaseToken = settings.libsqlUrl ? settings.libsqlAuthToken : ensureDatabaseToken(settings);
    hrana = settings.libsqlUrl
      ? undefined
      : await startHranaServer({
          file: databaseFile(settings),
          host: "127.0.0.1",
          port: settings.dbPort,
          authToken: databaseToken,
        });
    const databaseUrl = settings.libsqlUrl ?? hrana!.url;
    log(
      hrana
        ? `libSQL server on ${hrana.url} (file ${databaseFile(settings)})`
        : `using the libSQL server at ${new URL(databaseUrl).host}` +
            (settings.libsqlReadUrl ? `; reports read the replica at ${new URL(settings.libsqlReadUrl).host}` : ""),
    );
    checkSignal();

    const db = await openDatabase(settings, { url: databaseUrl, authToken: databaseToken });
    await applyMigrations(db);
    const onboarding = await onboard(settings, db);
    db.$client.close();
    if (onboarding.secretCreated) log("made the server secret (mode 0600) in the data folder");
    const message = announceOnboarding(onboarding, settings);
    if (message) console.log(message);
    checkSignal();

    const built = await buildIfStale();
    if (built.length > 0) log(`built ${built.join(" and ")}`);
    checkSignal();

    workerdProcesses = await spawnWorkerd({ settings, databaseUrl, databaseToken, secret: requireSecret(settings), instance });
    for (const child of Object.values(workerdProcesses)) reaper.watch(child);
    const exited = Promise.race(
      Object.entries(workerdProcesses).map(([name, child]) =>
        (once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>).then(([code, signal]) => ({
          name,
          code,
          signal,
        })),
      ),
    );
    const localUrl = `http://${connectHost(settings.host)}:${settings.port}`;
    await Promise.race([waitForHealth(localUrl, instance, exited), signalled]);
    checkSignal();
    recordServiceUrl(settings);
    if (mail) {
      const offset = Number(clockOffsetSetting(process.env.WREN_TEST_CLOCK_OFFSET_MS) ?? 0);
      mailSender = startMailSender({ settings: mail, databaseUrl, databaseToken, now: () => Date.now() + offset, log });
      log(`sending mail through ${new URL(mail.url).host} as ${mail.from}`);
    }
    log(`Wren is running at ${localUrl} (dashboard at /dashboard/). Ctrl-C stops it.`);

    const outcome = await Promise.race([
      signalled.then((signal) => ({ signal })),
      exited.then((exit) => ({ ...exit, crashed: true as const })),
    ]);
    if ("crashed" in outcome) {
      throw new CliError(
        `workerd exited unexpectedly (code ${outcome.code ?? "none"}, signal ${outcome.signal ?? "none"}): the ${outcome.name} process; stopping`,
      );
    }
    log(`${outcome.signal} received, stopping`);
  } catch (error) {
    if (!(error instanceof StartInterrupted)) throw error;
    log(`${error.message}, stopping`);
  } finally {
    await mailSender?.stop();
    if (workerdProcesses) {
      await Promise.all(Object.values(workerdProcesses).map(stopChild));
      removeApiSocket(settings.dataDir);
    }
    await hrana?.close();
    reaper.release();
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
