/**
 * The stack as an operator runs it: `wren start` on a fresh data folder, the CLI beside it,
 * a clean stop, a restart that keeps the data, and failures that are reported, not hidden.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startHranaServer } from "../../server/hrana/index";
import { OPERATION_IDS, operationIdsOf } from "../contract/operation-ids";
import { client } from "../helpers/http";
import { startStack, type Stack } from "../helpers/stack";

function workerdProcessesFor(dataDir: string): string[] {
  const out = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" });
  return out.split("\n").filter((line) => line.includes("workerd") && line.includes(dataDir));
}

async function portAnswers(url: string): Promise<boolean> {
  return fetch(`${url}/healthz`).then(
    () => true,
    () => false,
  );
}

describe("wren start", () => {
  let stack: Stack;
  const stacks: Stack[] = [];
  afterAll(async () => {
    for (const s of stacks) await s.stop("SIGKILL").catch(() => undefined);
  });

  it("onboards on first start: secret 0600, admin key in a 0600 file (no terminal), healthy, dashboard served", async () => {
    stack = await startStack();
    stacks.push(stack);
    expect(stack.adminKey).toMatch(/^wren_[A-Za-z0-9_-]{43}$/);
    // Not on a terminal (as under a service manager): the key goes to a private file, never to the log.
    const keyFile = join(stack.dataDir, "first-admin-key.txt");
    expect(stack.output()).toContain(`Your first admin key is in ${keyFile} (mode 0600`);
    expect(stack.output()).not.toContain(stack.adminKey);
    expect(readFileSync(keyFile, "utf8")).toBe(`${stack.adminKey}\n`);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(stack.dataDir, "secret.key")).mode & 0o777).toBe(0o600);

    const health = await fetch(`${stack.url}/healthz`);
    expect(health.status).toBe(200);
    // wren start is ready once the publisher has published: reports can be read at once.
    expect(await health.json()).toEqual({
      status: "ok",
      database: "ok",
      // The write probe passed; the id is this start's, which `wren start` waited for.
      storage: "ok",
      instance: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      publisher: { status: "current", published_through: expect.any(String), lag_seconds: expect.any(Number) },
    });

    const dashboard = await fetch(`${stack.url}/dashboard/`);
    expect(dashboard.status).toBe(200);
    expect(dashboard.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await dashboard.text()).toContain("<title>Wren</title>");
    const script = await fetch(`${stack.url}/dashboard/app.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");

    // The service serves the route table's document, with its stable ids (test/contract/openapi.test.ts).
    const served = await fetch(`${stack.url}/api/v1/openapi.json`);
    expect(served.headers.get("content-type")).toBe("application/json");
    expect(operationIdsOf((await served.json()) as Parameters<typeof operationIdsOf>[0])).toEqual(OPERATION_IDS);

    const admin = client(stack.url, stack.adminKey);
    const keys = await admin("GET", "/api/v1/keys");
    expect(keys.status).toBe(200);
    expect(keys.body.keys).toHaveLength(1);
    expect(keys.body.keys[0].scopes).toEqual(["admin"]);
  });

  it("`wren keys create --scopes admin --json` prints a working key while the service runs", async () => {
    const result = await stack.cli(["keys", "create", "--scopes", "admin", "--json"]);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout) as { id: string; key: string; scopes: string[] };
    expect(created.id).toMatch(/^key_/);
    expect(created.scopes).toEqual(["admin"]);
    const response = await client(stack.url, created.key)("GET", "/api/v1/keys");
    expect(response.status).toBe(200);
    expect(response.body.keys.map((k: { id: string }) => k.id)).toContain(created.id);
  });

  it("the CLI registers sites and goals the API then serves", async () => {
    const site = JSON.parse(
      (await stack.cli(["sites", "create", "--name", "Shop", "--domain", "shop.example", "--json"])).stdout,
    );
    expect(site.domain).toBe("shop.example");
    expect(site.snippet).toBe(`<script defer src="${stack.url}/t.js" data-site="${site.id}"></script>`);
    const goal = JSON.parse(
      (
        await stack.cli([
          "goals",
          "create",
          "--site",
          site.id,
          "--kind",
          "scroll",
          "--match",
          "/blog/*",
          "--threshold",
          "75",
          "--json",
        ])
      ).stdout,
    );
    expect(goal).toMatchObject({ kind: "scroll", match: "/blog/*", threshold: 75, created: true });
    const token = (await stack.cli(["token", site.id])).stdout.trim();
    expect(token).toBe(site.s2s_token);

    const listed = await client(stack.url, stack.adminKey)("GET", `/api/v1/sites/${site.id}/goals`);
    expect(listed.body.goals.map((g: { id: string }) => g.id)).toEqual([goal.id]);

    // The CLI runs the API's domain rules: a missing field, an unknown site, an unknown key.
    expect(await stack.cli(["sites", "create", "--domain", "blog.example"])).toMatchObject({
      code: 2,
      stderr: "wren: --name is required: the site's name (see `wren sites create --help`)\n",
    });
    const unknownSite = await stack.cli(["keys", "create", "--scopes", "read:reports", "--sites", `${site.id},site_nope`]);
    expect(unknownSite).toMatchObject({ code: 1, stderr: "wren: sites.1: no site site_nope\n" });
    expect(await stack.cli(["keys", "revoke", "key_nope"])).toMatchObject({ code: 1, stderr: "wren: No active key key_nope.\n" });
  });

  it("stops cleanly on SIGTERM: exit 0, no workerd left, port closed, api socket gone, WAL checkpointed", async () => {
    expect(statSync(join(stack.dataDir, "api.sock")).isSocket()).toBe(true);
    const { code, signal } = await stack.stop("SIGTERM");
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stack.output()).toContain("wren: stopped");
    expect(workerdProcessesFor(stack.dataDir)).toEqual([]);
    expect(await portAnswers(stack.url)).toBe(false);
    expect(existsSync(join(stack.dataDir, "api.sock"))).toBe(false);
    const wal = join(stack.dataDir, "wren.db-wal");
    expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
  });

  it("starts again on the same data: no new admin key, old keys and sites kept", async () => {
    const again = await startStack({ dataDir: stack.dataDir });
    stacks.push(again);
    expect(again.adminKey).toBeUndefined();
    expect(again.output()).not.toContain("first admin key");
    const sites = await client(again.url, stack.adminKey)("GET", "/api/v1/sites");
    expect(sites.status).toBe(200);
    expect(sites.body.sites.map((s: { domain: string }) => s.domain)).toEqual(["shop.example"]);
    expect((await again.stop("SIGINT")).code).toBe(0);
  });

  it("stops cleanly on Ctrl-C, which a terminal sends to the whole process group", async () => {
    const group = await startStack({ processGroup: true });
    stacks.push(group);
    process.kill(-group.process.pid!, "SIGINT");
    const { code } = await group.stop("SIGCONT");
    expect(code).toBe(0);
    expect(group.output()).toContain("wren: stopped");
    // The engine process waited for its supervisor: no restart mid-shutdown, WAL checkpointed.
    expect(group.output()).not.toContain("engine process died");
    const wal = join(group.dataDir, "wren.db-wal");
    expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
    expect(workerdProcessesFor(group.dataDir)).toEqual([]);
  });

  for (const role of ["apiProcess", "collectorProcess"]) {
    it(`reports a crashed workerd (${role}) and stops the rest with a non-zero exit`, async () => {
      const crashing = await startStack();
      stacks.push(crashing);
      // Two workerd processes: the front door (collector) and the api, each on its own thread.
      const lines = workerdProcessesFor(crashing.dataDir);
      expect(lines.map((l) => /serve \S+ (\w+)/.exec(l)?.[1]).sort()).toEqual(["apiProcess", "collectorProcess"]);
      const line = lines.find((l) => l.includes(` ${role} `));
      process.kill(Number(line!.trim().split(/\s+/)[0]), "SIGKILL");
      const { code } = await crashing.stop("SIGCONT");
      expect(code).toBe(1);
      expect(crashing.output()).toMatch(/workerd exited unexpectedly \(code none, signal SIGKILL\)/);
      expect(crashing.output()).toContain(`the ${role === "apiProcess" ? "api" : "collector"} process; stopping`);
      expect(workerdProcessesFor(crashing.dataDir)).toEqual([]);
    });
  }
});

describe("with LIBSQL_URL pointing at another libSQL server", () => {
  it("uses it, and /healthz answers 503 while it is down", async () => {
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "wren-ext-"));
    const db = await startHranaServer({ file: join(dir, "external.db"), port: 0, authToken: "external-token" });
    const stack = await startStack({ env: { LIBSQL_URL: db.url, LIBSQL_AUTH_TOKEN: "external-token" } });
    try {
      expect(stack.output()).toContain(`using the libSQL server at ${new URL(db.url).host}`);
      expect(existsSync(join(stack.dataDir, "wren.db"))).toBe(false);
      expect((await fetch(`${stack.url}/healthz`)).status).toBe(200);

      await db.close();
      const down = await fetch(`${stack.url}/healthz`);
      expect(down.status).toBe(503);
      expect(down.headers.get("content-type")).toBe("application/problem+json");
      expect(down.headers.get("retry-after")).toBe("5");
      const api = await client(stack.url, stack.adminKey)("GET", "/api/v1/sites");
      expect(api.status).toBe(503);
      expect(api.body.status).toBe(503);
    } finally {
      await stack.stop();
      await db.close().catch(() => undefined);
    }
  });
});
