/**
 * The alerts worker: the only one with a way out to the network (config.capnp gives it the
 * `webhook-network` service, public addresses plus WREN_WEBHOOK_ALLOW). Under workerd the api
 * worker starts its scheduler (scheduler.ts) and pokes it when a test notification is queued;
 * under `wrangler dev`, where the api does not bind it, any request to this worker starts it.
 */
import type { AlertsEnv } from "./env";
import type { AlertScheduler } from "./scheduler";
import { useClock } from "../lib/clock";

export { AlertScheduler } from "./scheduler";

export default {
  async fetch(_request, env) {
    useClock(env);
    if (!env.ALERTS) return new Response(null, { status: 404 });
    await env.ALERTS.get(env.ALERTS.idFromName("alerts")).start();
    return new Response("alert scheduler started\n");
  },
} satisfies ExportedHandler<AlertsEnv & { ALERTS?: DurableObjectNamespace<AlertScheduler> }>;
