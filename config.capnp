# Wren's production workerd config: `workerd serve config.capnp` (npm start does this for you).
#
# Addresses and paths below are defaults for a run from the repo root; `wren start` overrides
# them on the command line with absolute values:
#   --socket-addr http=HOST:PORT          where Wren listens (default loopback only)
#   --external-addr libsql=HOST:PORT      the Hrana (libSQL) server
#   --directory-path do-storage=PATH      Durable Object storage (alarms, rate limits)
#   --directory-path dashboard=PATH       the built dashboard
# Secrets come from the environment of the workerd process, never from this file.

using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "api", worker = .apiWorker),
    (name = "collector", worker = .collectorWorker),

    # The database: any Hrana-over-HTTP endpoint (the embedded server, sqld). The workers reach
    # it only through this binding.
    (name = "libsql", external = (address = "127.0.0.1:8080", http = ())),

    (name = "do-storage", disk = (path = "data/do", writable = true)),
    (name = "dashboard", disk = (path = "dashboard/dist")),

    # Neither worker needs the network beyond its bindings: global fetch() reaches nothing.
    (name = "no-network", network = (allow = [])),
  ],

  sockets = [
    # The collector is the front door: beacons, the hot path, take no extra hop; it hands every
    # other path to the api worker. Its plain `http` entrypoint costs less per request than the
    # class entrypoint.
    (name = "http", address = "127.0.0.1:8787", http = (), service = (name = "collector", entrypoint = "http")),
  ],
);

const compatibilityDate :Text = "2026-11-01";

const apiWorker :Workerd.Worker = (
  modules = [(name = "api.js", esModule = embed "dist/api.js")],
  compatibilityDate = .compatibilityDate,
  bindings = [
    # The collector's class entrypoint, for the ingestForSite RPC of POST /api/v1/events.
    (name = "COLLECTOR", service = "collector"),
    (name = "DB", service = "libsql"),
    (name = "DASHBOARD", service = "dashboard"),
    (name = "LIBSQL_URL", fromEnvironment = "LIBSQL_URL"),
    (name = "LIBSQL_AUTH_TOKEN", fromEnvironment = "LIBSQL_AUTH_TOKEN"),
    (name = "WREN_SECRET", fromEnvironment = "WREN_SECRET"),
    (name = "WREN_RATE_LIMIT", fromEnvironment = "WREN_RATE_LIMIT"),
    (name = "WREN_PUBLIC_URL", fromEnvironment = "WREN_PUBLIC_URL"),
    (name = "WREN_K_ANONYMITY", fromEnvironment = "WREN_K_ANONYMITY"),
    (name = "RATE_LIMITER", durableObjectNamespace = "RateLimiter"),
    (name = "WREN_PUBLISH_INTERVAL", fromEnvironment = "WREN_PUBLISH_INTERVAL"),
    (name = "PUBLISHER", durableObjectNamespace = "Publisher"),
  ],
  durableObjectNamespaces = [
    (className = "RateLimiter", uniqueKey = "wren-rate-limiter-v1"),
    # The one writer of the report rollups: folds new raw rows and publishes the hours and
    # days that have ended, on an alarm every WREN_PUBLISH_INTERVAL seconds (default 10).
    (className = "Publisher", uniqueKey = "wren-publisher-v1"),
  ],
  durableObjectStorage = (localDisk = "do-storage"),
  globalOutbound = "no-network",
);

const collectorWorker :Workerd.Worker = (
  modules = [(name = "collector.js", esModule = embed "dist/collector.js")],
  compatibilityDate = .compatibilityDate,
  bindings = [
    (name = "DB", service = "libsql"),
    (name = "LIBSQL_URL", fromEnvironment = "LIBSQL_URL"),
    (name = "LIBSQL_AUTH_TOKEN", fromEnvironment = "LIBSQL_AUTH_TOKEN"),
    (name = "WREN_SECRET", fromEnvironment = "WREN_SECRET"),
    (name = "COLLECTOR_STATE", durableObjectNamespace = "CollectorState"),
    (name = "API", service = "api"),
  ],
  durableObjectNamespaces = [
    # Session salts (rotated and deleted by alarm) and known s2s token versions.
    (className = "CollectorState", uniqueKey = "wren-collector-state-v1"),
  ],
  durableObjectStorage = (localDisk = "do-storage"),
  globalOutbound = "no-network",
);
