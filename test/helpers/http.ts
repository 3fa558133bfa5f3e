/** A small JSON client for tests: every answer with its status, headers and parsed body; a raw
 * node:http request for headers fetch() rewrites; and loopback servers to stand in for others. */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export type Call = <T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer<T>>;

export function client(baseUrl: string, key?: string): Call {
  return async (method, path, body, headers = {}) => {
    const init: RequestInit = { method, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] ??= "application/json";
    }
    const response = await fetch(`${baseUrl}${path}`, init);
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed as never, text };
  };
}

/** An HTTP server on 127.0.0.1 and a free port: test pages, proxies, another origin. */
export interface LoopbackServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function serveOnLoopback(handler: RequestListener): Promise<LoopbackServer> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A request over plain node:http, for headers fetch() will not send as given: a `host` in
 * `headers` replaces the one that names the server.
 */
export function rawRequest(
  baseUrl: string,
  { method = "GET", path, headers = {}, body }: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, method, headers, setHost: !("host" in headers) }, (res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
