/**
 * The collector worker, Wren's front door: the tracker script, browser beacons and
 * server-to-server conversions, answered here without a hop; every other path (/healthz too)
 * goes to the api worker over the API binding. The api worker sends `POST /api/v1/events` on to
 * `/s2s` with the site's token, so both s2s ways in share one code path. Session salts are in the
 * database (salt-store.ts); its Durable Object, CollectorState, keeps the token versions this
 * instance has verified; writes are group-committed in the isolate (writer.ts).
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { DRAIN_LIMIT } from "../lib/body";
import { IMPORT_UPLOAD_PATH, importMaxBytes } from "../lib/import-limit";
import { problem } from "../lib/problem";
import { createRouter, refuseOtherMethods } from "../lib/router";
import { beaconPreflight, handleBeacon } from "./beacon";
import { setCountryDatabase } from "./dimensions/country";
import { bundledCountryDatabase } from "./dimensions/country-database";
import type { CollectorWorkerEnv } from "./env";
import { handleS2s } from "./s2s";
import { serveTracker } from "./tracker";
import { useClock } from "../lib/clock";

export { CollectorState } from "./state";

// Opened on the first lookup, once per isolate.
setCountryDatabase(bundledCountryDatabase);

const router = createRouter<CollectorWorkerEnv>();
/** Another method on a collector path is refused here, not forwarded to the api (`Allow` lists the path's). */
const notAllowed = refuseOtherMethods(router);

router
  .get("/t.js", (request) => serveTracker(request))
  .head("/t.js", (request) => serveTracker(request))
  .all("/t.js", notAllowed)
  .post("/e", (request, env, ctx) => handleBeacon(request, env, ctx))
  .options("/e", (request) => beaconPreflight(request))
  .all("/e", notAllowed)
  .post("/s2s", (request, env, ctx) => handleS2s(request, env, ctx))
  .all("/s2s", notAllowed)
  .all("*", (request, env) => forwardToApi(request, env));

/**
 * Every other path goes to the api worker. A body declared larger than any api route takes is
 * refused here, so the api never has to read (and drop) more than DRAIN_LIMIT to answer its 413;
 * an import upload has its own, larger bound (WREN_IMPORT_MAX_MB).
 */
function forwardToApi(request: Request, env: CollectorWorkerEnv): Promise<Response> | Response | undefined {
  const isUpload = request.method === "POST" && IMPORT_UPLOAD_PATH.test(new URL(request.url).pathname);
  const limit = isUpload ? importMaxBytes(env.WREN_IMPORT_MAX_MB) : DRAIN_LIMIT;
  if (Number(request.headers.get("content-length") ?? 0) > limit)
    return problem(413, `The body is larger than ${limit} bytes.`, { field: "body" });
  return env.API?.fetch(request);
}

/**
 * The same HTTP paths as a plain handler, for a service binding with `entrypoint = "http"`:
 * workerd forwards to it for about 100 µs less CPU per request than to the class below (it
 * makes no entrypoint instance per request), which matters for beacons (docs/collector.md).
 */
export const http = {
  fetch(request: Request, env: CollectorWorkerEnv, ctx: ExecutionContext) {
    useClock(env);
    return router.fetch(request, env, ctx);
  },
} satisfies ExportedHandler<CollectorWorkerEnv>;

/** The default entrypoint: HTTP (service bindings to the collector, as in wrangler.toml). */
export default class Collector extends WorkerEntrypoint<CollectorWorkerEnv> {
  override fetch(request: Request): Promise<Response> {
    useClock(this.env);
    return router.fetch(request, this.env, this.ctx);
  }
}
