/** The bindings config.capnp (and wrangler.toml) give the workers. */
import type { ClockBindings } from "./clock";

export interface DatabaseBindings {
  /** Service binding to the libSQL server (`external` in config.capnp). Absent under wrangler dev. */
  DB?: Fetcher;
  /** The Hrana URL the client addresses; with DB bound, only its host and path matter. */
  LIBSQL_URL?: string;
  LIBSQL_AUTH_TOKEN?: string | null;
  /** Binding to the copy reports read (a replica near this instance); absent: DB. */
  DB_READ?: Fetcher;
  /** That copy's Hrana URL (LIBSQL_READ_URL); unset: reports read LIBSQL_URL too. */
  LIBSQL_READ_URL?: string | null;
}

export interface CollectorEnv extends DatabaseBindings, ClockBindings {
  /** The api worker, which answers every path the collector does not own (absent in some tests). */
  API?: Fetcher;
  /** Hex server secret, made at onboarding, for s2s token MACs and session hashing. */
  WREN_SECRET: string;
  /**
   * The request header a proxy in front of Wren puts the visitor's address in (e.g.
   * `X-Real-IP`), for the country lookup; unset: the connecting address (collector/dimensions).
   */
  WREN_CLIENT_IP_HEADER?: string | null;
  /** Megabytes an import upload may have (lib/import-limit.ts); the front door refuses more. */
  WREN_IMPORT_MAX_MB?: string | null;
}

