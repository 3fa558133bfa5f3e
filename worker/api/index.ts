/**
 * The api worker, Wren's front door: the public API under /api/v1, the dashboard, /healthz,
 * and the collector's paths, which it hands to the collector worker over the service binding.
 */
import type { ApiEnv } from "../lib/env";
import { healthz } from "../lib/health";
import { createRouter } from "../lib/router";
import { COLLECTOR_PATHS } from "../lib/routes";
import { serveDashboard } from "./dashboard";

const collectorPaths = new Set<string>(COLLECTOR_PATHS);

const router = createRouter<ApiEnv>();

router
  .all("*", (request, env) => {
    if (collectorPaths.has(new URL(request.url).pathname)) return env.COLLECTOR.fetch(request);
  })
  .get("/healthz", (_request, env) => healthz(env))
  .get("/", () => new Response(null, { status: 302, headers: { location: "/dashboard/" } }))
  .all("/dashboard", (request, env) => serveDashboard(request, env.DASHBOARD))
  .all("/dashboard/*", (request, env) => serveDashboard(request, env.DASHBOARD));

export default { fetch: router.fetch } satisfies ExportedHandler<ApiEnv>;
