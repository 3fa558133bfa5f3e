/**
 * The collector worker: the tracker script, browser beacons and server-to-server
 * conversions (`/s2s`). The api worker forwards these paths here over its service binding,
 * and `POST /api/v1/events` arrives here on the same s2s path.
 */
import type { CollectorEnv } from "../lib/env";
import { healthz } from "../lib/health";
import { createRouter } from "../lib/router";

const router = createRouter<CollectorEnv>();

router.get("/healthz", (_request, env) => healthz(env));

export default { fetch: router.fetch } satisfies ExportedHandler<CollectorEnv>;
