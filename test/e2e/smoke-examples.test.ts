/**
 * The smoke-test pattern's two examples, run as they are against the real stack:
 * examples/smoke-test-conversion.sh (bash, curl, jq) and examples/smoke-test-browser.mjs
 * (playwright-core, Debian's Chromium). The "deployed page" comes from a small node:http server
 * on 127.0.0.1 and is reached as http://shop.example.test:PORT/ (curl --resolve, Chromium
 * --host-resolver-rules), since the collector takes beacons only from the site's own domain.
 * Every name maps to 127.0.0.1, and any other name fails to resolve: nothing leaves loopback.
 * Each failure must come from its own step, with its own exit code and message.
 */
import { execFile } from "node:child_process";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { BROWSER_UA, ensureTrackerBuilt } from "../collector/helpers";
import { launchChromium } from "../helpers/browser";
import { serveOnLoopback, type LoopbackServer } from "../helpers/http";
import { ROOT } from "../helpers/stack";

// The callbacks passed to page.evaluate run in the page; this is the page global they use.
declare const window: { wren: { session(): string } };

const SHELL = join(ROOT, "examples", "smoke-test-conversion.sh");
const BROWSER = join(ROOT, "examples", "smoke-test-browser.mjs");
/** The registered domain; a domain that serves no snippet; an unregistered domain with a copy of the snippet. */
const SHOP = "shop.example.test";
const ELSEWHERE = "elsewhere.example.test";
const COPY = "copy.example.test";
const NOT_ATTACHED =
  "conversion step: the conversion did not attach to the browser session: the tracker's beacons did not reach the collector";

let f: ApiFixture;
let pages: LoopbackServer;
let site: { id: string; snippet: string };
let goal: { id: string };
/** write:events and read:reports on the site. */
let key: string;
let rules: string;
let curlOpts: string;

const html = (body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>${body}</head><body><h1>Shop</h1></body></html>`;

/** The deployed site: the snippet on the registered domain, none elsewhere, a copy on an unregistered domain. */
function servePage(req: IncomingMessage, res: ServerResponse): void {
  const host = (req.headers.host ?? "").replace(/:\d+$/, "");
  const path = new URL(req.url ?? "/", "http://x").pathname;
  let page = html("");
  if (host === SHOP && path === "/") page = html(site.snippet);
  if (host === SHOP && path === "/broken") page = html(site.snippet.replace("/t.js", "/missing.js"));
  if (host === COPY) page = html(site.snippet);
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs an example with only these variables (and PATH, HOME): no proxy or stray input reaches it. */
function run(command: string, args: string[], vars: Record<string, string>): Promise<Run> {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...vars };
  return new Promise((resolve) => {
    execFile(command, args, { env, cwd: ROOT, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

const pageUrl = (host: string, path = "/") => `http://${host}:${pages.port}${path}`;

function inputs(deployId: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    WREN_URL: f.stack.url,
    WREN_KEY: key,
    SITE_ID: site.id,
    GOAL_ID: goal.id,
    PAGE_URL: pageUrl(SHOP),
    DEPLOY_ID: deployId,
    TIMEOUT: "10",
    ...extra,
  };
}

const shell = (vars: Record<string, string>) => run("bash", [SHELL], { CURL_OPTS: curlOpts, ...vars });
const browserExample = (vars: Record<string, string>) =>
  run(process.execPath, [BROWSER], { HOST_RESOLVER_RULES: rules, ...vars });

async function mark(body: Record<string, unknown>): Promise<{ id: string }> {
  const res = await f.admin("POST", "/api/v1/deployments", { site: site.id, ...body });
  if (res.status !== 201) throw new Error(`deployment: ${res.status} ${res.text}`);
  return res.body;
}

/** Every smoke conversion listed beside the site's markers, as [marker id, conversion id, attached]. */
async function smokeList(): Promise<[string, string, boolean][]> {
  const res = await f.admin("GET", `/api/v1/deployments?site=${site.id}`);
  return res.body.deployments.flatMap((m: { id: string; smoke: { id: string; attached: boolean }[] }) =>
    m.smoke.map((s) => [m.id, s.id, s.attached]),
  );
}

const lines = (text: string) => text.split("\n");
const trackerUrl = () => `${f.stack.url}/t.js`;
const snippetLine = (host = SHOP) => `snippet: ${pageUrl(host)} embeds the Wren snippet for ${site.id} (tracker ${trackerUrl()})`;
const noSnippet = (url: string) => `snippet step: ${url} does not embed the Wren snippet for ${site.id}\n`;

beforeAll(async () => {
  await ensureTrackerBuilt();
  f = await apiFixture();
  site = (await f.makeSite(SHOP)) as unknown as { id: string; snippet: string };
  goal = await f.makeGoal(site.id, { name: "Smoke test", kind: "event", match: "smoke-test", purpose: "smoke-test" });
  key = (await f.makeKey(["write:events", "read:reports"], [site.id])).key;
  pages = await serveOnLoopback(servePage);
  const hosts = [SHOP, ELSEWHERE, COPY];
  curlOpts = hosts.map((host) => `--resolve ${host}:${pages.port}:127.0.0.1`).join(" ");
  rules = [...hosts.map((host) => `MAP ${host} 127.0.0.1`), "MAP * ~NOTFOUND", "EXCLUDE 127.0.0.1"].join(", ");
}, 60_000);

afterAll(async () => {
  await pages?.close();
  await f?.close();
});

describe("examples/smoke-test-conversion.sh", () => {
  it("passes the chain without SESSION: the conversion beside its marker, unattached; a re-run counts it once", async () => {
    const marker = await mark({ version: "3f9c2ab" });
    const first = await shell(inputs("3f9c2ab"));
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const out = lines(first.stdout);
    expect(out.slice(0, 4)).toEqual([
      snippetLine(),
      expect.stringMatching(new RegExp(`^tracker: ${trackerUrl()} answers 200 text/javascript; charset=utf-8 \\(\\d+ bytes\\)$`)),
      "conversion: recorded for 3f9c2ab (no SESSION given: not attached to a visit)",
      `marker: ${marker.id} (version 3f9c2ab, production) lists the conversion`,
    ]);
    expect(JSON.parse(out.slice(4).join("\n"))).toMatchObject({
      id: marker.id,
      smoke: [{ id: "3f9c2ab", goal: goal.id, attached: false }],
    });

    const again = await shell(inputs("3f9c2ab"));
    expect(again.code).toBe(0);
    expect(lines(again.stdout)[2]).toBe("conversion: already recorded for 3f9c2ab (a re-run counts once)");
    expect((await smokeList()).filter(([, id]) => id === "3f9c2ab")).toEqual([[marker.id, "3f9c2ab", false]]);
  });

  it("with SESSION from a real browser visit: requires the conversion to attach, and passes", async () => {
    const named = await mark({ version: "b7e1d40", external_id: "build-1002" });
    const browser = await launchChromium([`--host-resolver-rules=${rules}`, `--user-agent=${BROWSER_UA}`]);
    let session: string;
    try {
      const page = await (await browser.newContext()).newPage();
      const accepted = page.waitForResponse((r) => r.url() === `${f.stack.url}/e` && r.request().method() === "POST");
      await page.goto(pageUrl(SHOP));
      expect((await accepted).status()).toBe(202);
      session = await page.evaluate(() => window.wren.session());
    } finally {
      await browser.close();
    }
    const passed = await shell(inputs("build-1002", { SESSION: session }));
    expect(passed.stderr).toBe("");
    expect(passed.code).toBe(0);
    const out = lines(passed.stdout);
    expect(out[2]).toBe("conversion: recorded for build-1002, attached to the browser session");
    expect(out[3]).toBe(`marker: ${named.id} (version b7e1d40, production) lists the conversion`);
    expect(JSON.parse(out.slice(4).join("\n")).smoke).toEqual([
      { id: "build-1002", goal: goal.id, at: expect.any(String), attached: true },
    ]);

    // A session no beacon ever made: the conversion is stored, but the chain is broken.
    const other = await mark({ version: "c0ffee1" });
    const unseen = await shell(inputs(other.id, { SESSION: "NeverSeenSession012345" }));
    expect(unseen.code).toBe(7);
    expect(unseen.stderr).toBe(`${NOT_ATTACHED}\n`);
    expect(lines(unseen.stdout)).toEqual([snippetLine(), expect.stringMatching(/^tracker: /), ""]);

    // Re-runs read the attachment of the conversion recorded first.
    expect((await shell(inputs("build-1002", { SESSION: session }))).code).toBe(0);
    const rerun = await shell(inputs(other.id, { SESSION: session }));
    expect(rerun.code).toBe(7);
    expect(rerun.stderr).toBe(`${NOT_ATTACHED} (this deployment's conversion, recorded earlier, is not attached)\n`);
    expect(lines(rerun.stdout)[2]).toBe(`conversion: already recorded for ${other.id} (a re-run counts once)`);
  });

  it("fails at the snippet step on a domain without the snippet, or a page without it, and posts nothing", async () => {
    for (const url of [pageUrl(ELSEWHERE), pageUrl(SHOP, "/plain")]) {
      const failed = await shell(inputs("wrong-domain-1", { PAGE_URL: url }));
      expect(failed.code).toBe(3);
      expect(failed.stderr).toBe(noSnippet(url));
      expect(failed.stdout).toBe("");
    }
    expect((await smokeList()).some(([, id]) => id === "wrong-domain-1")).toBe(false);
  });

  it("fails at the tracker step when the snippet's script is not the tracker", async () => {
    const failed = await shell(inputs("broken-tracker-1", { PAGE_URL: pageUrl(SHOP, "/broken") }));
    expect(failed.code).toBe(4);
    expect(failed.stderr).toMatch(
      new RegExp(`^tracker step: ${f.stack.url}/missing\\.js answered HTTP 404 \\([^)]*\\), not the tracker script\\n$`),
    );
    expect(lines(failed.stdout)).toEqual([expect.stringMatching(/^snippet: /), ""]);
  });

  it("fails at the conversion step with an unknown, malformed or other site's key, after the snippet and tracker steps", async () => {
    const outsider = (await f.makeKey(["write:events", "read:reports"], [(await f.makeSite("other-shop.example.test")).id])).key;
    for (const [bad, status] of [
      [`wren_${"x".repeat(43)}`, 401],
      ["not-a-key", 401],
      [outsider, 403],
    ] as const) {
      const failed = await shell(inputs("bad-key-1", { WREN_KEY: bad }));
      expect(failed.code).toBe(6);
      expect(failed.stderr).toMatch(
        new RegExp(`^conversion step: Wren refused the smoke-test conversion: HTTP ${status} \\{.*"status":${status}`),
      );
      expect(lines(failed.stdout)).toEqual([snippetLine(), expect.stringMatching(/^tracker: /), ""]);
    }
    expect((await smokeList()).some(([, id]) => id === "bad-key-1")).toBe(false);
  });

  it("fails at the marker step with a key that cannot read the markers", async () => {
    const writer = (await f.makeKey(["write:events"], [site.id])).key;
    const failed = await shell(inputs("no-read-1", { WREN_KEY: writer }));
    expect(failed.code).toBe(8);
    expect(failed.stderr).toMatch(/^marker step: Wren refused the deployments list: HTTP 403 /);
    expect(lines(failed.stdout)[2]).toBe("conversion: recorded for no-read-1 (no SESSION given: not attached to a visit)");
  });

  it("refuses missing inputs before any request", async () => {
    const { DEPLOY_ID: _omitted, ...rest } = inputs("x");
    const failed = await shell(rest);
    expect(failed).toEqual({ code: 2, stdout: "", stderr: "inputs: set DEPLOY_ID\n" });
  });
});

describe("examples/smoke-test-browser.mjs", () => {
  it("visits the page, sees the pageview accepted, and attaches the conversion to that visit's session", async () => {
    const marker = await mark({ version: "d34db33", external_id: "build-1003" });
    const passed = await browserExample(inputs("build-1003"));
    expect(passed.stderr).toBe("");
    expect(passed.code).toBe(0);
    const out = lines(passed.stdout);
    expect(out.slice(0, 5)).toEqual([
      snippetLine(),
      `tracker: ${trackerUrl()} answers 200 text/javascript; charset=utf-8 and runs`,
      expect.stringMatching(
        new RegExp(`^beacon: ${f.stack.url}/e accepted the pageview \\(202\\) on session [A-Za-z0-9_-]{22}$`),
      ),
      "conversion: recorded for build-1003, attached to the browser session",
      `marker: ${marker.id} (version d34db33, production) lists the conversion`,
    ]);
    expect(JSON.parse(out.slice(5).join("\n")).smoke).toEqual([
      { id: "build-1003", goal: goal.id, at: expect.any(String), attached: true },
    ]);
    expect((await smokeList()).filter(([, id]) => id === "build-1003")).toEqual([[marker.id, "build-1003", true]]);
  }, 60_000);

  it("fails at the snippet step on a domain without the snippet", async () => {
    const failed = await browserExample(inputs("wrong-domain-2", { PAGE_URL: pageUrl(ELSEWHERE) }));
    expect(failed.code).toBe(3);
    expect(failed.stderr).toBe(noSnippet(pageUrl(ELSEWHERE)));
    expect(failed.stdout).toBe("");
  }, 60_000);

  it("fails at the beacon step when the snippet is copied to a domain the site does not have", async () => {
    const failed = await browserExample(inputs("copied-1", { PAGE_URL: pageUrl(COPY) }));
    expect(failed.code).toBe(5);
    expect(failed.stderr).toBe(
      "beacon step: the collector refused the pageview beacon: HTTP 403 (is PAGE_URL on the site's own domain?)\n",
    );
    expect(lines(failed.stdout)).toEqual([snippetLine(COPY), expect.stringMatching(/^tracker: /), ""]);
    expect((await smokeList()).some(([, id]) => id === "copied-1")).toBe(false);
  }, 60_000);

  it("fails at the conversion step with an unknown key, after the visit", async () => {
    const failed = await browserExample(inputs("bad-key-2", { WREN_KEY: `wren_${"y".repeat(43)}` }));
    expect(failed.code).toBe(6);
    expect(failed.stderr).toMatch(/^conversion step: Wren refused the smoke-test conversion: HTTP 401 /);
    expect(lines(failed.stdout).map((l) => l.split(":")[0])).toEqual(["snippet", "tracker", "beacon", ""]);
  }, 60_000);
});
