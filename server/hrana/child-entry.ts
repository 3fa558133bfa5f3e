/**
 * The engine process. The supervisor (supervisor.ts) forks this file, sends the options, and
 * hands it every accepted TCP connection; if the `libsql` binding aborts the process (it panics
 * on TEXT that is not valid UTF-8), the supervisor starts a new one on the same port.
 */

import type { Socket } from "node:net";
import { type HranaService, type ServiceOptions, createHranaService } from "./service.js";

export type ParentMessage = { type: "start"; options: ServiceOptions } | { type: "connection"; id: number } | { type: "close" };
export type ChildMessage =
  { type: "ready" } | { type: "failed"; message: string } | { type: "accepted"; id: number } | { type: "closed" };

let service: HranaService | undefined;
let closing = false;

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected || process.send === undefined) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

async function shutdown(): Promise<void> {
  if (closing) return;
  closing = true;
  let code = 0;
  try {
    await service?.close();
  } catch (err) {
    console.error("hrana engine: error while closing:", err);
    code = 1;
  }
  await send({ type: "closed" });
  process.exit(code);
}

process.on("message", (message: ParentMessage, handle?: Socket) => {
  switch (message.type) {
    case "start":
      try {
        service = createHranaService(message.options);
        void send({ type: "ready" });
      } catch (err) {
        void send({ type: "failed", message: err instanceof Error ? err.message : String(err) }).then(() => process.exit(1));
      }
      return;
    case "connection":
      if (handle === undefined) return;
      void send({ type: "accepted", id: message.id });
      if (service === undefined || closing) {
        handle.destroy();
        return;
      }
      service.http.emit("connection", handle);
      handle.resume();
      return;
    case "close":
      void shutdown();
      return;
  }
});

// The supervisor went away without asking us to stop: close cleanly (checkpoint) and exit.
process.on("disconnect", () => void shutdown());

// Ctrl-C on a terminal (and systemd's stop) signals the whole process group, this process too.
// Stopping is the supervisor's call: it sends "close" once it has stopped taking connections,
// and this process then checkpoints and exits. Dying on the signal instead would skip the
// checkpoint and make the supervisor restart the engine in the middle of its own shutdown.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => {});
