/**
 * The OpenAPI document is valid OpenAPI 3.1 (swagger-parser, every $ref resolved) and lints
 * clean with Redocly's recommended rules, as redocly.yaml adjusts them: no error, no warning.
 * Built in Node from the route table, as the dashboard's types are; the served one differs
 * only in `servers` (responses.test.ts checks the running service against it).
 */
import SwaggerParser from "@apidevtools/swagger-parser";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../worker/api/openapi";
import { apiRoutes } from "../../worker/api/routes/index";
import { ROOT } from "../helpers/stack";

const document = () => JSON.parse(JSON.stringify(openApiDocument(apiRoutes, { serverUrl: "http://127.0.0.1:8787" })));

interface LintProblem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: { pointer?: string }[];
}

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1, every reference resolving", async () => {
    const api = await SwaggerParser.validate(document());
    expect((api as { openapi: string }).openapi).toBe("3.1.0");
  });

  it("lints clean with redocly (recommended rules, as redocly.yaml sets them)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wren-openapi-"));
    try {
      const file = join(dir, "openapi.json");
      writeFileSync(file, JSON.stringify(document()));
      const redocly = join(ROOT, "node_modules/.bin/redocly");
      const args = ["lint", file, "--config", join(ROOT, "redocly.yaml"), "--format", "json"];
      // Exits 1 on an error; the JSON report on stdout says which either way.
      const { stdout } = await promisify(execFile)(redocly, args, {
        cwd: ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: "off" },
      }).catch((failure: { stdout?: string }) => ({ stdout: failure.stdout ?? "" }));
      const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: LintProblem[] };
      const problems = report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`);
      expect(problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
