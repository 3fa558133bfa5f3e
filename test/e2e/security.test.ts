/**
 * The running service as an attacker on the same machine meets it: another local user or
 * process (the database port, the data folder's files), and a client that lies in its Host
 * header. Each attack is refused and changes nothing.
 */
import { createClient } from "@libsql/client";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, rawRequest } from "../helpers/http";
import { startStack, type Stack } from "../helpers/stack";

let stack: Stack;
let databaseUrl: string;

beforeAll(async () => {
  // A data folder left world-readable by an earlier version (or a restore): every start closes it.
  const dataDir = mkdtempSync(join(tmpdir(), "wren-sec-"));
  chmodSync(dataDir, 0o755);
  mkdirSync(join(dataDir, "do", "old-object"), { recursive: true, mode: 0o755 });
  chmodSync(join(dataDir, "do"), 0o755);
  chmodSync(join(dataDir, "do", "old-object"), 0o755);
  writeFileSync(join(dataDir, "do", "old-object", "state.sqlite"), "", { mode: 0o644 });
  stack = await startStack({ dataDir });
  databaseUrl = /libSQL server on (http:\/\/127\.0\.0\.1:\d+)/.exec(stack.output())![1]!;
});
afterAll(async () => {
  await stack.stop();
});

/** Every folder and file under the data folder with its permission bits. */
function modes(dir: string, prefix = ""): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    out[prefix + entry.name] = statSync(path).mode & 0o777;
    if (entry.isDirectory()) Object.assign(out, modes(path, `${prefix}${entry.name}/`));
  }
  return out;
}

describe("the data folder", () => {
  it("is 0700 with every folder 0700 and every file 0600, including what was there before", () => {
    expect(statSync(stack.dataDir).mode & 0o777).toBe(0o700);
    const all = modes(stack.dataDir);
    expect(Object.keys(all)).toEqual(expect.arrayContaining(["wren.db", "secret.key", "libsql.token", "first-admin-key.txt", "do", "do/old-object", "do/old-object/state.sqlite"]));
    // Folders workerd made while running (one per Durable Object class) are private from the start.
    expect(Object.keys(all).filter((p) => p.startsWith("do/wren-")).length).toBeGreaterThan(0);
    for (const [path, mode] of Object.entries(all)) {
      const stat = statSync(join(stack.dataDir, path));
      // A socket needs write permission to connect: the api process's is its owner's alone.
      const expected = stat.isDirectory() || stat.isSocket() ? "700" : "600";
      expect({ path, mode: mode.toString(8) }).toEqual({ path, mode: expected });
    }
  });
});

describe("the embedded database, from another local process", () => {
  const token = () => readFileSync(join(stack.dataDir, "libsql.token"), "utf8").trim();

  it("needs the random token from the data folder", async () => {
    expect(token()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const anonymous = createClient({ url: databaseUrl });
    await expect(anonymous.execute("INSERT INTO api_keys (id, name, prefix, secret_hash, scopes, created_at) VALUES ('key_x', 'x', 'x', 'x', '[\"admin\"]', 0)")).rejects.toThrow(/401|Unauthorized/);
    anonymous.close();
    const keys = await client(stack.url, stack.adminKey)("GET", "/api/v1/keys");
    expect(keys.body.keys.map((k: { id: string }) => k.id)).not.toContain("key_x");
  });

  it("even with the token, reads no file: the server secret stays secret", async () => {
    const db = createClient({ url: databaseUrl, authToken: token() });
    try {
      await expect(db.execute(`SELECT CAST(readfile('${join(stack.dataDir, "secret.key")}') AS TEXT)`)).rejects.toThrow(/not authorized to use function: readfile/);
      await expect(db.execute(`SELECT writefile('${join(stack.dataDir, "planted")}', 'x')`)).rejects.toThrow(/not authorized/);
      expect(readdirSync(stack.dataDir)).not.toContain("planted");
    } finally {
      db.close();
    }
  });

  it("refuses what a web page in the operator's browser could send, with the token or not", async () => {
    const insert = JSON.stringify({
      requests: [{ type: "execute", stmt: { sql: "INSERT INTO api_keys (id, name, prefix, secret_hash, scopes, created_at) VALUES ('key_web', 'w', 'w', 'w', '[\"admin\"]', 0)" } }],
    });
    const post = (headers: Record<string, string>) =>
      fetch(`${databaseUrl}/v2/pipeline`, { method: "POST", headers: { authorization: `Bearer ${token()}`, ...headers }, body: insert });
    expect((await post({ "content-type": "text/plain", origin: "https://evil.example" })).status).toBe(403);
    expect((await post({ "content-type": "text/plain" })).status).toBe(415);
    const keys = await client(stack.url, stack.adminKey)("GET", "/api/v1/keys");
    expect(keys.body.keys.map((k: { id: string }) => k.id)).not.toContain("key_web");
  });
});

/** A request with a Host header of our choosing (fetch may not set one). */
async function withHost(path: string, host: string, method = "GET", body?: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | undefined; body: string }> {
  const answer = await rawRequest(stack.url, { method, path, headers: { host, ...headers }, body });
  return { status: answer.status, type: answer.headers["content-type"], body: answer.body };
}

describe("the api process's own socket, from another local process", () => {
  /** The address `wren start` gave the api process (its --socket-addr). */
  function apiSocket(): string {
    const processes = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }).split("\n");
    const line = processes.find((l) => l.includes("apiProcess") && l.includes(stack.dataDir));
    return /--socket-addr=api=(\S+)/.exec(line ?? "")![1]!;
  }

  /** A POST straight to the api process's Unix socket, past the front door. */
  function postToSocket(socketPath: string, path: string, headers: Record<string, string>, body: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request({ socketPath, path, method: "POST", headers: { host: "localhost", ...headers } }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  it("is a socket in the data folder, no port: a process of another user cannot reach it", () => {
    expect(apiSocket()).toBe(`unix:${join(stack.dataDir, "api.sock")}`);
    const socket = statSync(join(stack.dataDir, "api.sock"));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o077).toBe(0);
    expect(statSync(stack.dataDir).mode & 0o077).toBe(0);
  });

  it("answers its owner as the public API does: a key is required, nothing is trusted", async () => {
    const socketPath = apiSocket().slice("unix:".length);
    const db = createClient({ url: `file:${join(stack.dataDir, "wren.db")}` });
    const conversions = async () => Number((await db.execute("SELECT count(*) AS n FROM conversions")).rows[0]!.n);
    const before = await conversions();
    const site = await client(stack.url, stack.adminKey)("POST", "/api/v1/sites", { name: "Direct", domain: "direct-api.example" });
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer wren_forged" }, { "x-service-token": site.body.s2s_token }];
    const body = JSON.stringify({ site: site.body.id, goal_id: "goal_x" });
    for (const headers of attempts) {
      expect(await postToSocket(socketPath, "/api/v1/events", { "content-type": "application/json", ...headers }, body)).toBe(401);
    }
    // The collector's paths are the front door's alone.
    expect(await postToSocket(socketPath, "/s2s", { "x-service-token": site.body.s2s_token }, "")).toBe(404);
    expect(await conversions()).toBe(before);
    db.close();
  });
});

describe("the test harness", () => {
  it("gives Wren and its workerd processes a resolver on loopback only: no webhook's lookup leaves the machine", () => {
    const workerds = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.includes(stack.dataDir) && line.includes("workerd"))
      .map((line) => line.trim().split(/\s+/)[0]!);
    expect(workerds).toHaveLength(2);
    for (const pid of [String(stack.process.pid), ...workerds]) {
      expect(readFileSync(`/proc/${pid}/root/etc/resolv.conf`, "utf8")).toBe("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n");
    }
  });
});

describe("the Host header", () => {
  it("does not change the snippet: the public URL comes from configuration", async () => {
    const res = await withHost("/api/v1/sites", "evil.example:1", "POST", JSON.stringify({ name: "Host", domain: "host-test.example" }), {
      authorization: `Bearer ${stack.adminKey}`,
      "content-type": "application/json",
    });
    expect(res.status).toBe(201);
    const site = JSON.parse(res.body);
    expect(site.snippet).toBe(`<script defer src="${stack.url}/t.js" data-site="${site.id}"></script>`);
    const listed = await withHost("/api/v1/sites", "evil.example:1", "GET", undefined, { authorization: `Bearer ${stack.adminKey}` });
    expect(listed.body).not.toContain("evil.example");
  });

  it("that is not a host name is a 400 problem naming it, not a 500, on every path", async () => {
    for (const host of ["a b", "%", "[::1", "x:99999"]) {
      for (const [method, path] of [["GET", "/t.js"], ["POST", "/e"], ["POST", "/api/v1/sites"], ["GET", "/dashboard/"], ["GET", "/healthz"]] as const) {
        const res = await withHost(path, host, method, method === "POST" ? "{}" : undefined);
        expect({ host, path, status: res.status, type: res.type }).toEqual({ host, path, status: 400, type: "application/problem+json" });
        expect(JSON.parse(res.body)).toMatchObject({ status: 400, field: "host" });
      }
    }
  });
});
