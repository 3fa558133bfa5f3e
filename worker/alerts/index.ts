/**
 * The alerts worker: the only one with a way out to the network (config.capnp gives it the
 * `webhook-network` service, public addresses plus WREN_WEBHOOK_ALLOW). It serves no requests of
 * its own; the api worker starts its scheduler (scheduler.ts) and pokes it when a test
 * notification is queued.
 */
export { AlertScheduler } from "./scheduler";

export default {
  fetch() {
    return new Response(null, { status: 404 });
  },
} satisfies ExportedHandler;
