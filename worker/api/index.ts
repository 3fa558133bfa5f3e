/**
 * The api worker: the public API under /api/v1, the dashboard and /healthz. It is reached
 * through the collector (the front door, see config.capnp), which hands it every path that
 * is not a collector path. Its first request starts the publisher, which folds and publishes
 * the report rollups in the background from then on, and the alert scheduler.
 */
import type { ApiEnv } from "./env";
import { healthz } from "./health";
import { createRouter } from "../lib/router";
import { serveDashboard } from "./dashboard";
import { openApiDocument } from "./openapi";
import { runRoute } from "./pipeline";
import { startBackgroundWork } from "./background";
import { apiRoutes } from "./routes/index";

export { RateLimiter } from "./ratelimit";
export { Publisher } from "../reports/publisher-object";

let openApi: string | undefined;

/** The document is built once per isolate; it changes only with the code. */
function serveOpenApi(): Response {
  openApi ??= JSON.stringify(openApiDocument(apiRoutes));
  return new Response(openApi, { headers: { "content-type": "application/json", "cache-control": "no-store" } });
}

const router = createRouter<ApiEnv>();

router
  .get("/healthz", (_request, env) => healthz(env))
  .get("/api/v1/openapi.json", serveOpenApi)
  .get("/", () => new Response(null, { status: 302, headers: { location: "/dashboard/", "cache-control": "no-store" } }))
  .all("/dashboard", (request, env) => serveDashboard(request, env.DASHBOARD))
  .all("/dashboard/*", (request, env) => serveDashboard(request, env.DASHBOARD));

for (const spec of apiRoutes) {
  const handler = runRoute(spec);
  if (spec.method === "GET") router.get(spec.path, handler);
  else if (spec.method === "POST") router.post(spec.path, handler);
  else if (spec.method === "PATCH") router.patch(spec.path, handler);
  else router.delete(spec.path, handler);
}

export default {
  fetch(request, env, execution) {
    startBackgroundWork(env, execution);
    return router.fetch(request, env, execution);
  },
} satisfies ExportedHandler<ApiEnv>;
