/**
 * The OpenAPI document is valid OpenAPI 3.1 (swagger-parser, every $ref resolved) and lints
 * clean with Redocly's recommended rules, as redocly.yaml adjusts them, and with Spectral's
 * `spectral:oas` rules, as .spectral.yaml adjusts them: no error, no warning. Built in Node from
 * the route table, as the dashboard's types are; the served one differs only in `servers`
 * (responses.test.ts checks the running service against it).
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

/** Runs `tool` on the document written to a file of its own; the tool's stdout, whatever it exits with. */
async function lintOutput(tool: string, args: (file: string) => string[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "wren-openapi-"));
  try {
    const file = join(dir, "openapi.json");
    writeFileSync(file, JSON.stringify(document()));
    // Exits 1 on an error; the JSON report on stdout says which either way.
    const { stdout } = await promisify(execFile)(join(ROOT, "node_modules/.bin", tool), args(file), {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: "off" },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((failure: { stdout?: string }) => ({ stdout: failure.stdout ?? "" }));
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Spectral's severities, as its JSON report numbers them. */
const SPECTRAL_SEVERITY = ["error", "warn", "info", "hint"];

interface SpectralProblem {
  code: string;
  message: string;
  path: (string | number)[];
  severity: number;
}

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
    const stdout = await lintOutput("redocly", (file) => [
      "lint",
      file,
      "--config",
      join(ROOT, "redocly.yaml"),
      "--format",
      "json",
    ]);
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: LintProblem[] };
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it("lints clean with Spectral (spectral:oas, as .spectral.yaml sets it), as Prism and other Stoplight tools read it", async () => {
    const stdout = await lintOutput("spectral", (file) => [
      "lint",
      file,
      "--ruleset",
      join(ROOT, ".spectral.yaml"),
      "--format",
      "json",
      "--quiet",
    ]);
    const report = JSON.parse(stdout) as SpectralProblem[];
    const problems = report
      .filter((p) => p.severity <= 1)
      .map((p) => `${SPECTRAL_SEVERITY[p.severity]} ${p.code}: ${p.message} at ${p.path.join(".")}`);
    expect(problems).toEqual([]);
  });
});
