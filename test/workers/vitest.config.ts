import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

const root = resolve(import.meta.dirname, "../..");

// Tests that run inside workerd (the Workers vitest integration), against the api worker
// from wrangler.toml, with the collector as an auxiliary worker and a real libSQL server.
export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => {
      const bindings = { LIBSQL_URL: inject("libsqlUrl"), LIBSQL_AUTH_TOKEN: inject("libsqlToken"), WREN_SECRET: inject("secret") };
      return {
        wrangler: { configPath: resolve(root, "wrangler.toml") },
        miniflare: {
          bindings,
          workers: [
            {
              name: "wren-collector",
              // The bundle and, beside it, the country database (config.capnp's `country.mmdb`).
              modules: [
                { type: "ESModule", path: resolve(root, "dist/collector.js") },
                { type: "Data", path: resolve(root, "dist/country.mmdb") },
              ],
              modulesRoot: resolve(root, "dist"),
              compatibilityDate: "2026-11-01",
              bindings,
              durableObjects: { COLLECTOR_STATE: "CollectorState" },
            },
          ],
        },
      };
    }),
  ],
  test: {
    name: "workers",
    include: ["test/workers/**/*.test.ts"],
    globalSetup: [resolve(import.meta.dirname, "global-setup.ts")],
    root,
  },
});
