/**
 * Starts the api's background work once per isolate, in the background of any request (`wren
 * start` asks /healthz at boot, so it starts with the service): the publisher (report rollups,
 * reports/publisher-object.ts) and the alert scheduler (alerts/scheduler.ts). Kept apart from
 * the Durable Object classes so that the route table, and the OpenAPI document built from it,
 * load outside workerd too.
 */
import type { ApiEnv } from "./env";

interface Startable {
  start(): Promise<void>;
}

const started = new Set<string>();

function startOnce(name: string, namespace: DurableObjectNamespace | undefined, execution: ExecutionContext): void {
  if (!namespace || started.has(name)) return;
  started.add(name);
  const stub = namespace.get(namespace.idFromName(name)) as unknown as Startable;
  execution.waitUntil(stub.start().catch(() => started.delete(name)));
}

export function startBackgroundWork(env: ApiEnv, execution: ExecutionContext): void {
  startOnce("publisher", env.PUBLISHER as DurableObjectNamespace | undefined, execution);
  startOnce("alerts", env.ALERTS as DurableObjectNamespace | undefined, execution);
}
