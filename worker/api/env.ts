/** The bindings config.capnp (and wrangler.toml) give the api worker. */
import type { ClockBindings } from "../lib/clock";
import type { DatabaseBindings } from "../lib/env";
import type { RateLimiter } from "./ratelimit";
import type { PublisherEnv } from "../reports/publisher";
import type { Publisher } from "../reports/publisher-object";
import type { AlertScheduler } from "../alerts/scheduler";
import type { OidcEnv } from "../domain/people/oidc-config";

export interface ApiEnv extends DatabaseBindings, PublisherEnv, ClockBindings, OidcEnv {
  WREN_SECRET: string;
  /** The collector's HTTP paths (a service binding, or the front door over loopback). */
  COLLECTOR: Fetcher;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  /** Default per-key limit, "REQUESTS/SECONDS" (600/60 when unset). */
  WREN_RATE_LIMIT?: string | null;
  /** The URL browsers reach Wren at, for snippets (lib/public-url.ts); never the request's Host. */
  WREN_PUBLIC_URL?: string | null;
  /** k of the reports' k-anonymity filter (default 5; values below 2 are raised to 2). */
  WREN_K_ANONYMITY?: string | null;
  /** Folds and publishes the report rollups on an alarm (worker/reports/publisher-object.ts); optional. */
  PUBLISHER?: DurableObjectNamespace<Publisher>;
  /** The alert scheduler (worker/alerts/scheduler.ts), in the alerts worker; optional. */
  ALERTS?: DurableObjectNamespace<AlertScheduler>;
  /** Destinations beyond public addresses (lib/webhook-allow.ts), checked when a rule is made. */
  WREN_WEBHOOK_ALLOW?: string | null;
  /** `smtp` when `wren start` has WREN_SMTP_URL (domain/mail.ts); the SMTP settings never reach a worker. */
  WREN_MAIL?: string | null;
  /** This start's id (`wren start` makes one each time), shown by /healthz so the supervisor probes its own child. */
  WREN_INSTANCE?: string | null;
  /** Dashboard sessions: hours without use (default 12) and days at most (default 7). */
  WREN_SESSION_IDLE_HOURS?: string | null;
  WREN_SESSION_MAX_DAYS?: string | null;
  /**
   * The way out to the OpenID provider (config.capnp's `oidc-network`), for sign-in alone;
   * absent under wrangler, where global fetch reaches the network.
   */
  OIDC_NETWORK?: Fetcher;
  /** Megabytes an import upload may have (lib/import-limit.ts, default 25). */
  WREN_IMPORT_MAX_MB?: string | null;
  /** The built dashboard (a `disk` service); absent when the dashboard is served elsewhere. */
  DASHBOARD?: Fetcher;
}
