/**
 * Starts the rollup scheduler (scheduler.ts) once per isolate, in the background of a report
 * request. Kept apart from the Durable Object class so that the route table, and the OpenAPI
 * document built from it, load outside workerd too.
 */
import type { RollupScheduler } from "./scheduler";

let started = false;

/** Starts the scheduler once per isolate, in the background of a request. */
export function startRollupScheduler(
  namespace: DurableObjectNamespace<RollupScheduler> | undefined,
  execution: ExecutionContext,
): void {
  if (!namespace || started) return;
  started = true;
  execution.waitUntil(
    namespace
      .get(namespace.idFromName("rollup"))
      .start()
      .catch(() => {
        started = false;
      }),
  );
}
