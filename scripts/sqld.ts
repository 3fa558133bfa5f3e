/**
 * `npm run sqld [-- --dir D --port P --replica-port R --grpc-port G]`: a local trial of Wren on
 * sqld (libsql-server). Starts a primary and a replica of it on 127.0.0.1 — data and the JWT
 * key pair in `--dir` (default ./sqld-trial, kept between runs) — prints the environment to
 * give `npm start`, and stops both on Ctrl-C. Install sqld first: `npm run sqld:install`.
 *
 * The token goes to stdout once; everything else to stderr. The private key stays in the
 * folder (jwt.key, 0600): a later run signs a new token with it, and earlier tokens keep working.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { portHolder, portIsFree } from "../cli/port-check";
import { reuseJwtAuth, spawnSqld, type Sqld, type SqldOptions } from "./sqld-lib";

const USAGE = "usage: npm run sqld -- [--dir ./sqld-trial] [--port 8081] [--replica-port 8082] [--grpc-port 5001]";

function port(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 65_535)
    throw new Error(`--${flag} must be a port number (1–65535), not "${value}"\n${USAGE}`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      dir: { type: "string", default: "./sqld-trial" },
      port: { type: "string", default: "8081" },
      "replica-port": { type: "string", default: "8082" },
      "grpc-port": { type: "string", default: "5001" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const dir = resolve(values.dir);
  const ports = {
    port: port(values.port, "port"),
    "replica-port": port(values["replica-port"], "replica-port"),
    "grpc-port": port(values["grpc-port"], "grpc-port"),
  };
  if (new Set(Object.values(ports)).size !== 3) throw new Error(`the three ports must differ\n${USAGE}`);
  for (const [flag, n] of Object.entries(ports)) {
    if (await portIsFree("127.0.0.1", n)) continue;
    const holder = portHolder(n);
    const who = holder ? `process ${holder.pid} (${holder.command.slice(0, 120)})` : "another process";
    throw new Error(`--${flag} ${n}: 127.0.0.1:${n} is in use by ${who}; choose another port or stop it\n${USAGE}`);
  }

  const auth = reuseJwtAuth(dir);
  let stopping = false;
  const servers: Sqld[] = [];
  async function stopAll(code: number): Promise<never> {
    stopping = true;
    // The replica first: stopped after its primary, it would only log reconnection attempts.
    for (const server of [...servers].reverse()) await server.stop();
    if (code === 0) console.error("sqld stopped.");
    process.exit(code);
  }
  async function startOne(name: string, options: Omit<SqldOptions, "dir" | "auth" | "onExit">): Promise<Sqld> {
    const server: Sqld = await spawnSqld({
      ...options,
      dir: resolve(dir, name),
      auth,
      onExit(code, signal) {
        if (stopping) return;
        console.error(`sqld (${name}) exited on its own (${code ?? signal}); its last output:\n${server.output().slice(-4_000)}`);
        void stopAll(1);
      },
    });
    servers.push(server);
    return server;
  }

  const primary = await startOne("primary", { httpPort: ports.port, grpcPort: ports["grpc-port"] });
  const replica = await startOne("replica", { httpPort: ports["replica-port"], primaryGrpcUrl: primary.grpcUrl }).catch(
    async (error) => {
      await primary.stop();
      throw error;
    },
  );
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => void stopAll(0));

  console.error(`sqld primary at ${primary.url} (gRPC ${primary.grpcUrl}), replica at ${replica.url}; data in ${dir}`);
  console.error("Give Wren this environment (LIBSQL_READ_URL only to an instance that should read from the replica):\n");
  console.log(`LIBSQL_URL=${primary.url}\nLIBSQL_READ_URL=${replica.url}\nLIBSQL_AUTH_TOKEN=${auth.token}`);
  console.error("\nCtrl-C stops both.");
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
