import { defineConfig } from "vitest/config";

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
          include: ["test/{unit,domain,contract,hrana,e2e,api,collector,browser,reports,alerts,cli}/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      "test/workers/vitest.config.ts",
    ],
  },
});
