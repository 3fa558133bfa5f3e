/**
 * The README's automation patterns, run as the copy-paste scripts they are (bash, curl, jq),
 * against the real stack. Pattern 2, the smoke test, needs a deployed page and a browser: its
 * two examples are run by test/e2e/smoke-examples.test.ts.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/stack";
import { apiFixture, type ApiFixture } from "./fixtures";

const run = promisify(execFile);
const script = (name: string) => join(ROOT, "examples", name);

describe("automation patterns", () => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await apiFixture();
  }, 60_000);
  afterAll(() => f?.stack.stop());

  it("1. a preview site per pull request: created once, the same on re-run; the CI key reads nothing", async () => {
    const ci = await f.makeKey(["write:sites", "write:events"]);
    const env = { ...process.env, WREN_URL: f.stack.url, WREN_KEY: ci.key, PR: "42", PREVIEW_DOMAIN: "pr-42.preview.example.com" };
    const first = await run("bash", [script("ci-preview-site.sh")], { env });
    const lines = Object.fromEntries(first.stdout.trim().split("\n").map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
    expect(lines.SITE_ID).toMatch(/^site_/);
    expect(lines.SNIPPET).toBe(`<script defer src="${f.stack.url}/t.js" data-site="${lines.SITE_ID}"></script>`);
    expect(lines.S2S_TOKEN).toMatch(new RegExp(`^${lines.SITE_ID}\\.`));

    const again = await run("bash", [script("ci-preview-site.sh")], { env });
    expect(again.stdout).toBe(first.stdout);

    const sites = (await f.admin("GET", "/api/v1/sites")).body.sites.filter((s: { domain: string }) => s.domain === "pr-42.preview.example.com");
    expect(sites).toHaveLength(1);
    expect((await ci.call("GET", "/api/v1/sites")).status).toBe(403);
    expect((await ci.call("GET", `/api/v1/sites/${lines.SITE_ID}`)).status).toBe(403);
  });

  it("1'. a refused request fails the CI step with the problem printed", async () => {
    const reader = await f.makeKey(["read:reports"]);
    const env = { ...process.env, WREN_URL: f.stack.url, WREN_KEY: reader.key, PR: "43", PREVIEW_DOMAIN: "pr-43.preview.example.com" };
    const failure = await run("bash", [script("ci-preview-site.sh")], { env }).then(
      () => null,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stdout).toBe("");
    expect(failure?.stderr).toContain('Wren refused the site: {"type":"about:blank","title":"Forbidden","status":403');
  });
});
