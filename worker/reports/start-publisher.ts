/**
 * Starts the publisher (publisher-object.ts) once per isolate, in the background of any api
 * request (`wren start` asks /healthz at boot, so it starts with the service). Kept apart
 * from the Durable Object class so that the route table, and the OpenAPI document built from
 * it, load outside workerd too.
 */
import type { Publisher } from "./publisher-object";

let started = false;

/** Starts the publisher once per isolate, in the background of a request. */
export function startPublisher(namespace: DurableObjectNamespace<Publisher> | undefined, execution: ExecutionContext): void {
  if (!namespace || started) return;
  started = true;
  execution.waitUntil(
    namespace
      .get(namespace.idFromName("publisher"))
      .start()
      .catch(() => {
        started = false;
      }),
  );
}
