/**
 * The api worker: the public API under /api/v1, the dashboard and /healthz. It is reached
 * through the collector (the front door, see config.capnp), which hands it every path that
 * is not a collector path. Its first request starts the publisher, which folds and publishes
 * the report rollups in the background from then on, and the alert scheduler. Every path
 * answers the methods it is routed for; another method is a 405 with `Allow` (lib/router.ts).
 */
import type { ApiEnv } from "./env";
import { healthz } from "./health";
import { createRouter } from "../lib/router";
import { serveDashboard } from "./dashboard";
import { serveSharePage } from "./share-page";
import { openApiDocument } from "./openapi";
import { publicUrl } from "../lib/public-url";
import { runRoute } from "./pipeline";
import { startBackgroundWork } from "./background";
import { apiRoutes } from "./routes/index";
import { useClock } from "../lib/clock";

export { RateLimiter } from "./ratelimit";
export { Publisher } from "../reports/publisher-object";

let openApi: string | undefined;

/**
 * The document is built once per isolate: it changes only with the code and the environment
 * (its `servers` entry is WREN_PUBLIC_URL, never the request's Host, as for snippets).
 */
function serveOpenApi(env: ApiEnv): Response {
  openApi ??= JSON.stringify(openApiDocument(apiRoutes, { serverUrl: publicUrl(env) }));
  return new Response(openApi, { headers: { "content-type": "application/json", "cache-control": "no-store" } });
}

const router = createRouter<ApiEnv>();

router
  .get("/healthz", (_request, env) => healthz(env))
  .get("/api/v1/openapi.json", (_request, env) => serveOpenApi(env))
  .get("/", () => new Response(null, { status: 302, headers: { location: "/dashboard/", "cache-control": "no-store" } }));
for (const path of ["/dashboard", "/dashboard/*"]) {
  router.get(path, (request, env) => serveDashboard(request, env.DASHBOARD));
  router.head(path, (request, env) => serveDashboard(request, env.DASHBOARD));
}
// The link, and the dashboard's own paths below it (/share/TOKEN/s/SITE/pages); /share/TOKEN/unlock is the API's.
for (const path of ["/share/:token", "/share/:token/s/*"]) {
  router.get(path, (request, env) => serveSharePage(request, env));
  router.head(path, (request, env) => serveSharePage(request, env));
}

for (const spec of apiRoutes) {
  const handler = runRoute(spec);
  if (spec.method === "GET") router.get(spec.path, handler);
  else if (spec.method === "POST") router.post(spec.path, handler);
  else if (spec.method === "PATCH") router.patch(spec.path, handler);
  else if (spec.method === "PUT") router.put(spec.path, handler);
  else router.delete(spec.path, handler);
}

export default {
  fetch(request, env, execution) {
    useClock(env);
    startBackgroundWork(env, execution);
    return router.fetch(request, env, execution);
  },
} satisfies ExportedHandler<ApiEnv>;
