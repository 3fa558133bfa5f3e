/**
 * examples/proxy/nginx.conf for real: Debian's nginx, on loopback, with a certificate openssl
 * makes here, in front of a real Wren (WREN_CLIENT_IP_HEADER=X-Real-IP). The example is used as
 * written except for what a test box must change: its listen addresses (loopback, free ports),
 * the certificate's paths and the upstream's port. The visitor's public address is played by a
 * header that only this test's wrapper trusts, from loopback (nginx's realip module: what
 * $remote_addr would be for a visitor on the internet).
 *
 * Checked: `nginx -t` passes; a beacon through TLS is counted with its visitor's country, and a
 * client's own X-Real-IP is overwritten; HTTP redirects to HTTPS; Wren's body limits, not
 * nginx's, answer; only the static files are compressed; /healthz answers through the proxy.
 * examples/proxy/Caddyfile passes `caddy validate`, and runs (Debian's Caddy 2.6, its own local CA,
 * loopback ports) in front of the same Wren with the same checks, but for the visitor's country:
 * Caddy 2.6 has no trusted client-address header to play a public visitor with.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { get as httpGet, type IncomingMessage } from "node:http";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA, createSite, type TestSite } from "../collector/helpers";
import { freePort } from "../helpers/ports";
import { ROOT, startStack, type Stack } from "../helpers/stack";
import { until } from "../helpers/wait";

const run = promisify(execFile);
const NGINX = "/usr/sbin/nginx";
const HOST = "stats.example.com";
const temp = mkdtempSync(join(tmpdir(), "wren-proxy-"));
let stack: Stack | undefined;
let nginx: ChildProcess | undefined;
let httpsPort: number;
let httpPort: number;
let site: TestSite;
let cert: string;
/** The proxy the requests below go to: its HTTPS port and the certificate (or CA) to trust. */
let target: { port: number; ca: string };

/** The example with what a test box must change substituted; fails if the example no longer has what it replaces. */
function substituted(upstreamPort: number): string {
  const replacements: [string, string][] = [
    ["server 127.0.0.1:8787;", `server 127.0.0.1:${upstreamPort};`],
    ["listen 80;", `listen 127.0.0.1:${httpPort};`],
    ["listen [::]:80;", ""],
    ["listen 443 ssl http2;", `listen 127.0.0.1:${httpsPort} ssl http2;`],
    ["listen [::]:443 ssl http2;", ""],
    [`/etc/letsencrypt/live/${HOST}/fullchain.pem`, join(temp, "cert.pem")],
    [`/etc/letsencrypt/live/${HOST}/privkey.pem`, join(temp, "key.pem")],
    ["root /var/www/html;", `root ${temp};`],
  ];
  let text = readFileSync(join(ROOT, "examples/proxy/nginx.conf"), "utf8");
  for (const [from, to] of replacements) {
    expect(text, from).toContain(from);
    text = text.replace(from, to);
  }
  return text;
}

/** nginx's main configuration around the site file: everything in the temp folder, one process, in the foreground. */
function wrapper(site: string): string {
  const t = (name: string) => join(temp, name);
  return `daemon off;
master_process off;
pid ${t("nginx.pid")};
error_log ${t("error.log")} warn;
events { worker_connections 64; }
http {
    access_log ${t("access.log")};
    client_body_temp_path ${t("body")};
    proxy_temp_path ${t("proxy")};
    fastcgi_temp_path ${t("fastcgi")};
    uwsgi_temp_path ${t("uwsgi")};
    scgi_temp_path ${t("scgi")};
    include /etc/nginx/mime.types;
    # The test's stand-in for the internet: a visitor's address, believed from loopback only.
    set_real_ip_from 127.0.0.1;
    real_ip_header X-Test-Visitor;
    include ${site};
}
`;
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTPS request to the proxy, trusting only the test's certificate, for the example's host name. */
function viaProxy(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: target.port,
        servername: HOST,
        ca: target.ca,
        method,
        path,
        headers: { host: HOST, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("latin1") }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function beacon(path: string, headers: Record<string, string>, padding = 0): Promise<Reply> {
  const body = JSON.stringify({
    site: site.id,
    session: `proxy-visitor-${path.length}-abcdefgh`,
    events: [{ type: "pageview", path, ...(padding ? { props: { pad: "x".repeat(padding) } } : {}) }],
  });
  return viaProxy(
    "POST",
    "/e",
    { "content-type": "text/plain", origin: `https://${site.domain}`, "user-agent": BROWSER_UA, ...headers },
    body,
  );
}

beforeAll(async () => {
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "1",
    "-subj",
    `/CN=${HOST}`,
    "-addext",
    `subjectAltName=DNS:${HOST}`,
    "-keyout",
    join(temp, "key.pem"),
    "-out",
    join(temp, "cert.pem"),
  ]);
  cert = readFileSync(join(temp, "cert.pem"), "utf8");
  httpsPort = await freePort();
  target = { port: httpsPort, ca: cert };
  httpPort = await freePort();
  stack = await startStack({ env: { WREN_CLIENT_IP_HEADER: "X-Real-IP", WREN_PUBLIC_URL: `https://${HOST}` } });
  site = await createSite(stack, "proxied.example");
  for (const dir of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(temp, dir));
  writeFileSync(join(temp, "wren.conf"), substituted(stack.port));
  writeFileSync(join(temp, "nginx.conf"), wrapper(join(temp, "wren.conf")));
}, 120_000);

afterAll(async () => {
  if (nginx && nginx.exitCode === null) {
    nginx.kill("SIGQUIT");
    await once(nginx, "exit");
  }
  await stack?.stop();
  rmSync(temp, { recursive: true, force: true });
}, 60_000);

describe("examples/proxy/nginx.conf in front of Wren", () => {
  it("passes nginx -t", async () => {
    const result = await run(NGINX, ["-t", "-c", join(temp, "nginx.conf"), "-p", temp, "-e", join(temp, "error.log")]);
    expect(result.stderr).toContain("syntax is ok");
    expect(result.stderr).toContain("test is successful");
  });

  it("counts a beacon through TLS with the visitor's country; a client's own X-Real-IP is overwritten", async () => {
    nginx = spawn(NGINX, ["-c", join(temp, "nginx.conf"), "-p", temp, "-e", join(temp, "error.log")], { stdio: "ignore" });
    await until(
      "nginx to answer",
      () =>
        viaProxy("GET", "/healthz").then(
          (r) => r.status === 200,
          () => false,
        ),
      15_000,
    );

    expect((await beacon("/from-us", { "x-test-visitor": "8.8.8.8", "x-real-ip": "88.198.0.1" })).status).toBe(202);
    expect((await beacon("/from-de", { "x-test-visitor": "88.198.0.1" })).status).toBe(202);
    // A forged header alone: the proxy writes the address it saw (loopback here: no country).
    expect((await beacon("/forged", { "x-real-ip": "8.8.8.8" })).status).toBe(202);
    const db = stack!.openDatabase();
    try {
      const rows = await db.execute({ sql: "SELECT path, country FROM events WHERE site_id = ? ORDER BY id", args: [site.id] });
      expect(rows.rows.map((r) => [r.path, r.country])).toEqual([
        ["/from-us", "US"],
        ["/from-de", "DE"],
        ["/forged", null],
      ]);
    } finally {
      db.close();
    }
  });

  it("redirects HTTP to HTTPS, answers /healthz, and leaves the body limits to Wren", async () => {
    const plain = await new Promise<IncomingMessage>((resolve, reject) =>
      httpGet({ host: "127.0.0.1", port: httpPort, path: "/dashboard/", headers: { host: HOST } }, resolve).on("error", reject),
    );
    plain.resume();
    expect(plain.statusCode).toBe(301);
    expect(plain.headers.location).toBe(`https://${HOST}/dashboard/`);

    const health = await viaProxy("GET", "/healthz");
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: "ok", database: "ok" });
    expect(health.headers["strict-transport-security"]).toBe("max-age=63072000");

    // Over the beacon's 16 KB: Wren's own 413, a problem naming the field, not nginx's page.
    const large = await beacon("/large", { "x-test-visitor": "8.8.8.8" }, 20_000);
    expect(large.status).toBe(413);
    expect(large.headers["content-type"]).toBe("application/problem+json");
    expect(JSON.parse(large.body)).toMatchObject({ status: 413, field: "body" });
  });

  it("compresses the static files only, never an API answer", async () => {
    const gzip = { "accept-encoding": "gzip" };
    expect((await viaProxy("GET", "/t.js", gzip)).headers["content-encoding"]).toBe("gzip");
    const dashboard = await viaProxy("GET", "/dashboard/app.js", gzip);
    expect(dashboard.status).toBe(200);
    expect(dashboard.headers["content-encoding"]).toBe("gzip");
    const api = await viaProxy("GET", "/api/v1/openapi.json", gzip);
    expect(api.status).toBe(200);
    expect(api.headers["content-encoding"]).toBeUndefined();
  });
});

describe("examples/proxy/Caddyfile", () => {
  const home = join(temp, "caddy");
  const caddyEnv = { ...process.env, HOME: home, XDG_DATA_HOME: join(home, "data"), XDG_CONFIG_HOME: join(home, "config") };
  let caddy: ChildProcess | undefined;
  let caddyHttpPort: number;
  afterAll(async () => {
    if (caddy && caddy.exitCode === null) {
      caddy.kill("SIGTERM");
      await once(caddy, "exit");
    }
  });

  it("passes caddy validate", async () => {
    mkdirSync(home);
    const result = await run(
      "caddy",
      ["validate", "--config", join(ROOT, "examples/proxy/Caddyfile"), "--adapter", "caddyfile"],
      {
        env: caddyEnv,
      },
    );
    expect(result.stdout).toBe("Valid configuration\n");
  });

  it("runs in front of Wren: TLS, a client's own X-Real-IP overwritten, redirect, Wren's limits, static files compressed", async () => {
    // As written, except: loopback and free ports, Caddy's own local CA instead of an ACME one
    // (nothing leaves the box), no admin endpoint, and the test stack's port upstream.
    caddyHttpPort = await freePort();
    const caddyHttpsPort = await freePort();
    const example = readFileSync(join(ROOT, "examples/proxy/Caddyfile"), "utf8");
    for (const part of [`${HOST} {\n`, "reverse_proxy 127.0.0.1:8787 {"]) expect(example).toContain(part);
    const global = `{\n\tadmin off\n\tskip_install_trust\n\tlocal_certs\n\thttp_port ${caddyHttpPort}\n\thttps_port ${caddyHttpsPort}\n}\n\n`;
    const config = join(home, "Caddyfile");
    writeFileSync(
      config,
      global +
        example
          .replace(`${HOST} {\n`, `${HOST} {\n\tbind 127.0.0.1\n`)
          .replace("reverse_proxy 127.0.0.1:8787 {", `reverse_proxy 127.0.0.1:${stack!.port} {`),
    );
    caddy = spawn("caddy", ["run", "--config", config, "--adapter", "caddyfile"], { env: caddyEnv, stdio: "ignore" });
    const root = join(home, "data", "caddy", "pki", "authorities", "local", "root.crt");
    await until("Caddy's local CA", () => existsSync(root), 15_000);
    target = { port: caddyHttpsPort, ca: readFileSync(root, "utf8") };
    await until(
      "Caddy to answer",
      () =>
        viaProxy("GET", "/healthz").then(
          (r) => r.status === 200,
          () => false,
        ),
      15_000,
    );

    // Caddy 2.6 has no trusted client-address header to play a public visitor with: the
    // address it passes is the loopback one it saw, and a client's own header is overwritten.
    expect((await beacon("/via-caddy", { "x-real-ip": "8.8.8.8" })).status).toBe(202);
    const db = stack!.openDatabase();
    try {
      const rows = await db.execute({
        sql: "SELECT country FROM events WHERE site_id = ? AND path = '/via-caddy'",
        args: [site.id],
      });
      expect(rows.rows.map((r) => r.country)).toEqual([null]);
    } finally {
      db.close();
    }

    const plain = await new Promise<IncomingMessage>((resolve, reject) =>
      httpGet({ host: "127.0.0.1", port: caddyHttpPort, path: "/dashboard/", headers: { host: HOST } }, resolve).on(
        "error",
        reject,
      ),
    );
    plain.resume();
    expect(plain.statusCode).toBe(308);
    expect(plain.headers.location).toMatch(new RegExp(`^https://${HOST.replaceAll(".", "\\.")}(:\\d+)?/dashboard/$`));

    const health = await viaProxy("GET", "/healthz");
    expect(health.headers["strict-transport-security"]).toBe("max-age=63072000");
    const large = await beacon("/large-via-caddy", {}, 20_000);
    expect(large.status).toBe(413);
    expect(large.headers["content-type"]).toBe("application/problem+json");

    const gzip = { "accept-encoding": "gzip" };
    expect((await viaProxy("GET", "/t.js", gzip)).headers["content-encoding"]).toBe("gzip");
    expect((await viaProxy("GET", "/dashboard/app.js", gzip)).headers["content-encoding"]).toBe("gzip");
    expect((await viaProxy("GET", "/api/v1/openapi.json", gzip)).headers["content-encoding"]).toBeUndefined();
  });
});
