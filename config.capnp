# Wren's production workerd config. `npm start` runs it as two processes (collectorProcess and
# apiProcess, below); `workerd serve config.capnp` runs everything in one.
#
# Addresses and paths below are defaults for a run from the repo root; `wren start` overrides
# them on the command line with absolute values:
#   --socket-addr http=HOST:PORT          where Wren listens (default loopback only)
#   --socket-addr api=127.0.0.1:PORT      the api process's loopback socket (a free port)
#   --external-addr api=… / collector=…   how the two processes reach each other
#   --external-addr libsql=HOST:PORT      the Hrana (libSQL) server: the primary
#   --external-addr libsql-read=HOST:PORT the copy reports read (a replica; LIBSQL_READ_URL)
#   --directory-path do-storage=PATH      Durable Object storage (alarms, rate limits)
#   --directory-path dashboard=PATH       the built dashboard (api process)
# Secrets come from the environment of the workerd process, never from this file.

using Workerd = import "/workerd/workerd.capnp";

# All in one process: `workerd serve config.capnp` (the default constant). Simplest to run by
# hand; the benches compare against a do-nothing worker this way.
const config :Workerd.Config = (
  services = [
    (name = "api", worker = .apiWorker),
    (name = "collector", worker = .collectorWorker),
    (name = "alerts", worker = .alertsWorker),
    .libsqlService, .libsqlReadService, .doStorageService, .dashboardService, .noNetworkService, .webhookNetworkService,
    .oidcNetworkService,
  ],
  sockets = [.publicSocket],
);

# What `wren start` runs: two processes, because workerd runs a process's isolates on one
# thread, and the API's report reads would otherwise queue the collector's beacons behind them
# (docs/performance.md). The front door hands other paths to the api process over loopback;
# the api process reaches the collector's /s2s through the front door.
#   workerd serve config.capnp collectorProcess   (public socket `http`)
#   workerd serve config.capnp apiProcess         (loopback socket `api`)
const collectorProcess :Workerd.Config = (
  services = [
    (name = "collector", worker = .collectorWorker),
    (name = "api", external = (address = "127.0.0.1:8786", http = ())),
    .libsqlService, .doStorageService, .noNetworkService,
  ],
  sockets = [.publicSocket],
);

const apiProcess :Workerd.Config = (
  services = [
    (name = "api", worker = .apiWorker),
    (name = "alerts", worker = .alertsWorker),
    (name = "collector", external = (address = "127.0.0.1:8787", http = ())),
    .libsqlService, .libsqlReadService, .doStorageService, .dashboardService, .noNetworkService, .webhookNetworkService,
    .oidcNetworkService,
  ],
  sockets = [(name = "api", address = "127.0.0.1:8786", http = (), service = "api")],
);

# The database: any Hrana-over-HTTP endpoint (the embedded server, sqld). The workers reach it
# only through this binding. With sqld it is the primary: writes and the reads that decide them.
const libsqlService :Workerd.Service = (name = "libsql", external = (address = "127.0.0.1:8080", http = ()));
# The copy the api's reports read: a sqld replica near this instance when LIBSQL_READ_URL names
# one (docs/operations.md, "Scale-out"); otherwise `wren start` points it at the primary.
const libsqlReadService :Workerd.Service = (name = "libsql-read", external = (address = "127.0.0.1:8080", http = ()));
# Durable Object storage; both processes share the folder (each owns its own namespaces).
const doStorageService :Workerd.Service = (name = "do-storage", disk = (path = "data/do", writable = true));
const dashboardService :Workerd.Service = (name = "dashboard", disk = (path = "dashboard/dist"));
# Neither the api nor the collector needs the network beyond its bindings: global fetch()
# reaches nothing.
const noNetworkService :Workerd.Service = (name = "no-network", network = (allow = []));
# The alerts worker's way out, for webhook deliveries alone: public addresses only, checked at the
# socket after DNS (so rebinding to a private address is refused too). `wren start` widens it
# with WREN_WEBHOOK_ALLOW (cli/workerd.ts writes the list into a config beside this one).
const webhookNetworkService :Workerd.Service = (
  name = "webhook-network",
  network = (allow = ["public"], tlsOptions = (trustBrowserCas = true)),
);
# The api worker's way out to the operator's OpenID provider, for sign-in alone (discovery, the
# token endpoint, its keys), bound as OIDC_NETWORK and used by nothing else: its global fetch()
# stays on no-network. Public addresses only, checked at the socket after DNS; `wren start`
# widens it with WREN_OIDC_ALLOW (a provider on loopback or a private network).
const oidcNetworkService :Workerd.Service = (
  name = "oidc-network",
  network = (allow = ["public"], tlsOptions = (trustBrowserCas = true)),
);

# The collector is the front door: beacons, the hot path, take no extra hop; it hands every
# other path to the api worker. Its plain `http` entrypoint costs less per request than the
# class entrypoint.
const publicSocket :Workerd.Socket = (name = "http", address = "127.0.0.1:8787", http = (), service = (name = "collector", entrypoint = "http"));

const compatibilityDate :Text = "2026-11-01";

const apiWorker :Workerd.Worker = (
  modules = [(name = "api.js", esModule = embed "dist/api.js")],
  compatibilityDate = .compatibilityDate,
  bindings = [
    # The collector's HTTP paths, for POST /api/v1/events (sent on to /s2s with the site's token).
    (name = "COLLECTOR", service = "collector"),
    (name = "DB", service = "libsql"),
    (name = "DB_READ", service = "libsql-read"),
    (name = "DASHBOARD", service = "dashboard"),
    (name = "LIBSQL_URL", fromEnvironment = "LIBSQL_URL"),
    (name = "LIBSQL_READ_URL", fromEnvironment = "LIBSQL_READ_URL"),
    (name = "LIBSQL_AUTH_TOKEN", fromEnvironment = "LIBSQL_AUTH_TOKEN"),
    (name = "WREN_SECRET", fromEnvironment = "WREN_SECRET"),
    (name = "WREN_RATE_LIMIT", fromEnvironment = "WREN_RATE_LIMIT"),
    (name = "WREN_PUBLIC_URL", fromEnvironment = "WREN_PUBLIC_URL"),
    (name = "WREN_K_ANONYMITY", fromEnvironment = "WREN_K_ANONYMITY"),
    (name = "RATE_LIMITER", durableObjectNamespace = "RateLimiter"),
    (name = "WREN_PUBLISH_INTERVAL", fromEnvironment = "WREN_PUBLISH_INTERVAL"),
    (name = "WREN_RAW_RETENTION_DAYS", fromEnvironment = "WREN_RAW_RETENTION_DAYS"),
    # The bound on an import upload's body, in megabytes (worker/lib/import-limit.ts).
    (name = "WREN_IMPORT_MAX_MB", fromEnvironment = "WREN_IMPORT_MAX_MB"),
    # People (issue 40): audit log retention and dashboard session expiry.
    (name = "WREN_AUDIT_RETENTION_DAYS", fromEnvironment = "WREN_AUDIT_RETENTION_DAYS"),
    (name = "WREN_SESSION_IDLE_HOURS", fromEnvironment = "WREN_SESSION_IDLE_HOURS"),
    (name = "WREN_SESSION_MAX_DAYS", fromEnvironment = "WREN_SESSION_MAX_DAYS"),
    (name = "PUBLISHER", durableObjectNamespace = "Publisher"),
    # Starts the alert scheduler and queues test notifications' sending (worker/alerts/).
    (name = "ALERTS", durableObjectNamespace = (className = "AlertScheduler", serviceName = "alerts")),
    (name = "WREN_WEBHOOK_ALLOW", fromEnvironment = "WREN_WEBHOOK_ALLOW"),
    # Sign-in with the operator's OpenID provider (worker/domain/people/oidc.ts), and its way out.
    (name = "OIDC_NETWORK", service = "oidc-network"),
    (name = "WREN_OIDC_ISSUER", fromEnvironment = "WREN_OIDC_ISSUER"),
    (name = "WREN_OIDC_CLIENT_ID", fromEnvironment = "WREN_OIDC_CLIENT_ID"),
    (name = "WREN_OIDC_CLIENT_SECRET", fromEnvironment = "WREN_OIDC_CLIENT_SECRET"),
    (name = "WREN_OIDC_NAME", fromEnvironment = "WREN_OIDC_NAME"),
    (name = "WREN_OIDC_LINK_BY_EMAIL", fromEnvironment = "WREN_OIDC_LINK_BY_EMAIL"),
    (name = "WREN_OIDC_SCOPES", fromEnvironment = "WREN_OIDC_SCOPES"),
    (name = "WREN_OIDC_ALLOW", fromEnvironment = "WREN_OIDC_ALLOW"),
    # "smtp" when wren start sends mail (cli/mail-sender.ts); never the SMTP URL itself.
    (name = "WREN_MAIL", fromEnvironment = "WREN_MAIL"),
    # This start's id, made by `wren start` and shown by /healthz (cli/commands/start.ts).
    (name = "WREN_INSTANCE", fromEnvironment = "WREN_INSTANCE"),
    # Tests only: milliseconds added to the service's clock (worker/lib/clock.ts).
    (name = "WREN_TEST_CLOCK_OFFSET_MS", fromEnvironment = "WREN_TEST_CLOCK_OFFSET_MS"),
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
  modules = [
    (name = "collector.js", esModule = embed "dist/collector.js"),
    # The country database (CC0, ip-location-db), copied here by the build: visitors' countries
    # are looked up in it, in the collector, and the address is dropped (docs/collector.md).
    (name = "country.mmdb", data = embed "dist/country.mmdb"),
  ],
  # nodejs_compat, the default from 2026-08-04 on, gives mmdb-lib (the country lookup) Node's Buffer.
  compatibilityDate = .compatibilityDate,
  bindings = [
    (name = "DB", service = "libsql"),
    (name = "LIBSQL_URL", fromEnvironment = "LIBSQL_URL"),
    (name = "LIBSQL_AUTH_TOKEN", fromEnvironment = "LIBSQL_AUTH_TOKEN"),
    (name = "WREN_SECRET", fromEnvironment = "WREN_SECRET"),
    (name = "WREN_CLIENT_IP_HEADER", fromEnvironment = "WREN_CLIENT_IP_HEADER"),
    (name = "COLLECTOR_STATE", durableObjectNamespace = "CollectorState"),
    (name = "API", service = "api"),
    # The front door refuses an import upload declared larger than this (worker/lib/import-limit.ts).
    (name = "WREN_IMPORT_MAX_MB", fromEnvironment = "WREN_IMPORT_MAX_MB"),
    (name = "WREN_TEST_CLOCK_OFFSET_MS", fromEnvironment = "WREN_TEST_CLOCK_OFFSET_MS"),
  ],
  durableObjectNamespaces = [
    # The s2s token versions this instance has verified (session salts are in the database).
    (className = "CollectorState", uniqueKey = "wren-collector-state-v1"),
  ],
  durableObjectStorage = (localDisk = "do-storage"),
  globalOutbound = "no-network",
);

# Alert rules: evaluation and webhook delivery (worker/alerts/), in the api process. The only
# worker whose global fetch() reaches anything: the webhook network service.
const alertsWorker :Workerd.Worker = (
  modules = [(name = "alerts.js", esModule = embed "dist/alerts.js")],
  compatibilityDate = .compatibilityDate,
  bindings = [
    (name = "DB", service = "libsql"),
    (name = "LIBSQL_URL", fromEnvironment = "LIBSQL_URL"),
    (name = "LIBSQL_AUTH_TOKEN", fromEnvironment = "LIBSQL_AUTH_TOKEN"),
    (name = "WREN_SECRET", fromEnvironment = "WREN_SECRET"),
    (name = "WREN_K_ANONYMITY", fromEnvironment = "WREN_K_ANONYMITY"),
    (name = "WREN_PUBLIC_URL", fromEnvironment = "WREN_PUBLIC_URL"),
    (name = "WREN_ALERT_INTERVAL", fromEnvironment = "WREN_ALERT_INTERVAL"),
    (name = "WREN_WEBHOOK_ALLOW", fromEnvironment = "WREN_WEBHOOK_ALLOW"),
    (name = "WREN_WEBHOOK_RETRY_SECONDS", fromEnvironment = "WREN_WEBHOOK_RETRY_SECONDS"),
    (name = "WREN_MAIL", fromEnvironment = "WREN_MAIL"),
    (name = "WREN_TEST_CLOCK_OFFSET_MS", fromEnvironment = "WREN_TEST_CLOCK_OFFSET_MS"),
  ],
  durableObjectNamespaces = [
    # Evaluates the rules and drains the outbox on an alarm (at least once a minute).
    (className = "AlertScheduler", uniqueKey = "wren-alert-scheduler-v1"),
  ],
  durableObjectStorage = (localDisk = "do-storage"),
  globalOutbound = "webhook-network",
);
