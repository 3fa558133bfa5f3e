/** The bindings config.capnp (and wrangler.toml) give the workers. */
export interface DatabaseBindings {
  /** Service binding to the libSQL server (`external` in config.capnp). Absent under wrangler dev. */
  DB?: Fetcher;
  /** The Hrana URL the client addresses; with DB bound, only its host and path matter. */
  LIBSQL_URL?: string;
  LIBSQL_AUTH_TOKEN?: string | null;
}

export interface CollectorEnv extends DatabaseBindings {
  /** Hex server secret, made at onboarding, for s2s token MACs and session hashing. */
  WREN_SECRET: string;
}

/** The collector as the api worker sees it: HTTP paths plus the s2s entry for API-key callers. */
export interface CollectorService extends Fetcher {
  ingestForSite(siteId: string, request: Request): Promise<Response>;
}

export interface ApiEnv extends DatabaseBindings {
  WREN_SECRET: string;
  COLLECTOR: CollectorService;
  RATE_LIMITER: DurableObjectNamespace<import("../api/ratelimit").RateLimiter>;
  /** Default per-key limit, "REQUESTS/SECONDS" (600/60 when unset). */
  WREN_RATE_LIMIT?: string | null;
  /** The URL browsers reach Wren at, for snippets; the request's origin when unset. */
  WREN_PUBLIC_URL?: string | null;
  /** The built dashboard (a `disk` service); absent when the dashboard is served elsewhere. */
  DASHBOARD?: Fetcher;
}
