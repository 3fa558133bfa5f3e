/**
 * Keeps the engine in a child process so that no request can take the service down: the
 * `libsql` binding aborts the whole process on some results (TEXT that is not valid UTF-8,
 * e.g. `SELECT CAST(x'ff' AS TEXT)`), which no try/catch can stop. This process owns the
 * listening socket and passes each accepted connection to the child (paused, so no byte is
 * read here); if the child dies it is restarted on the same socket and connections that
 * arrive meanwhile wait. A restart loses open streams (their batons become invalid, as after
 * an sqld restart); committed data is safe (WAL, synchronous=FULL).
 */

import { type ChildProcess, fork } from "node:child_process";
import { createRequire } from "node:module";
import { type Server, type Socket, createServer } from "node:net";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ChildMessage, ParentMessage } from "./child-entry.js";
import type { ServiceOptions } from "./service.js";

const CHILD_ENTRY = fileURLToPath(new URL("./child-entry.ts", import.meta.url));
// The child runs TypeScript like the rest of Wren: through tsx's loader.
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
const MAX_WAITING_CONNECTIONS = 1_000;
const CLOSE_TIMEOUT_MS = 20_000;
const MAX_RESTART_DELAY_MS = 5_000;

export interface Supervised {
  port: number;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

export async function startSupervised(host: string, port: number, options: ServiceOptions): Promise<Supervised> {
  const listener = createServer({ pauseOnConnect: true });
  const waiting: Socket[] = [];
  let child: ChildProcess | undefined;
  let ready = false;
  let stopping = false;
  let restartDelay = 100;

  // Sockets sent to the child but not yet confirmed: this process keeps its copy of each until
  // the child says it has it. If the child dies first, they go to the next child (a socket
  // caught in a dying child's IPC channel would otherwise hang its client forever).
  const unconfirmed = new Map<number, Socket>();
  let nextSocketId = 0;
  const takeUnconfirmed = (): Socket[] => {
    const sockets = [...unconfirmed.values()];
    unconfirmed.clear();
    return sockets;
  };

  const deliver = (socket: Socket): void => {
    if (child !== undefined && ready && child.connected) {
      const id = nextSocketId++;
      unconfirmed.set(id, socket);
      const message: ParentMessage = { type: "connection", id };
      child.send(message, socket, { keepOpen: true }, (err) => {
        if (err && unconfirmed.delete(id)) socket.destroy();
      });
    } else if (waiting.length < MAX_WAITING_CONNECTIONS && !stopping) {
      waiting.push(socket);
    } else {
      socket.destroy();
    }
  };
  listener.on("connection", deliver);

  const spawnChild = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const proc = fork(CHILD_ENTRY, [], { execArgv: ["--import", TSX_LOADER], stdio: ["ignore", "inherit", "inherit", "ipc"] });
      child = proc;
      ready = false;
      let started = false;
      proc.on("message", (message: ChildMessage) => {
        if (message.type === "accepted") {
          // Closing this process's copy of the descriptor leaves the child's open.
          unconfirmed.get(message.id)?.destroy();
          unconfirmed.delete(message.id);
        } else if (message.type === "ready" && !started) {
          started = true;
          ready = true;
          restartDelay = 100;
          resolve();
          for (const socket of waiting.splice(0)) deliver(socket);
        } else if (message.type === "failed" && !started) {
          started = true;
          reject(new Error(message.message));
        }
      });
      proc.on("error", (err) => {
        if (!started) {
          started = true;
          reject(err);
        }
      });
      proc.on("exit", (code, signal) => {
        if (child === proc) {
          child = undefined;
          ready = false;
          for (const socket of takeUnconfirmed()) {
            if (stopping) socket.destroy();
            else waiting.push(socket);
          }
        }
        if (!started) {
          started = true;
          reject(new Error(`the libSQL engine process exited while starting (code ${code}, signal ${signal})`));
        } else if (!stopping) {
          console.error(`hrana: the libSQL engine process died (code ${code}, signal ${signal}); restarting it`);
          restart();
        }
      });
      const start: ParentMessage = { type: "start", options };
      proc.send(start);
    });

  const restart = (): void => {
    if (stopping) return;
    spawnChild().catch((err: unknown) => {
      console.error(`hrana: could not restart the libSQL engine process: ${err instanceof Error ? err.message : String(err)}`);
      for (const socket of waiting.splice(0)) socket.destroy();
      setTimeout(restart, restartDelay).unref();
      restartDelay = Math.min(restartDelay * 2, MAX_RESTART_DELAY_MS);
    });
  };

  await listen(listener, port, host);
  try {
    await spawnChild();
  } catch (err) {
    stopping = true;
    listener.close();
    throw err;
  }

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      stopping = true;
      const stopped = new Promise<void>((resolve) => listener.close(() => resolve()));
      for (const socket of waiting.splice(0)) socket.destroy();
      const proc = child;
      if (proc !== undefined && proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
        const message: ParentMessage = { type: "close" };
        if (proc.connected) proc.send(message);
        const timer = setTimeout(() => proc.kill("SIGKILL"), CLOSE_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }
      for (const socket of takeUnconfirmed()) socket.destroy();
      await stopped;
    })();
    return closing;
  };

  const address = listener.address();
  return { port: typeof address === "object" && address !== null ? address.port : port, close };
}
