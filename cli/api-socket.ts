/**
 * Where the api process listens: a Unix socket in the data folder. A loopback port had to be
 * picked free first and bound by workerd later, and in between another process (any outgoing
 * connection takes an ephemeral port) could take it, failing the start; and any local user
 * could reach a loopback port, where the data folder (0700) keeps everyone but its owner out.
 * A socket path is limited to 107 bytes: a data folder too deep for one falls back to a free
 * loopback port, as before.
 */
import { existsSync, rmSync, unlinkSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { CliError } from "./output";

/** sun_path holds 108 bytes with the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

export function apiSocketPath(dataDir: string): string | null {
  const path = join(dataDir, "api.sock");
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES ? path : null;
}

/** Resolves true when something accepts connections on the socket at `path`. */
function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** True when a Wren runs on this data folder now: its api socket answers (a left-over file does not). */
export async function wrenRunsOn(dataDir: string): Promise<boolean> {
  const path = apiSocketPath(dataDir);
  return path !== null && existsSync(path) && (await socketAnswers(path));
}

/**
 * The address workerd's api socket takes (`unix:<path>`, or `127.0.0.1:<port>`). A socket file
 * left by a start that was killed is removed; one that answers belongs to a Wren still running
 * on this data folder, and this start is refused rather than taking its socket away.
 */
export async function apiAddress(dataDir: string): Promise<string> {
  const path = apiSocketPath(dataDir);
  if (path === null) return `127.0.0.1:${await freeLoopbackPort()}`;
  if (existsSync(path)) {
    if (await socketAnswers(path)) {
      throw new CliError(`Another Wren is running on the data folder ${dataDir} (its api socket ${path} answers); stop it first`);
    }
    unlinkSync(path);
  }
  return `unix:${path}`;
}

/** After the api process stopped: its socket file goes with it (workerd leaves it behind). */
export function removeApiSocket(dataDir: string): void {
  const path = apiSocketPath(dataDir);
  if (path !== null) rmSync(path, { force: true });
}

/** A port free on 127.0.0.1 now. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
