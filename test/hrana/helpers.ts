// Shared set-up for the Hrana server tests: a real server on port 0 over a temp database file,
// and a tiny raw-HTTP client for protocol-level assertions.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type HranaServer, type HranaServerOptions, startHranaServer } from "../../server/hrana/index.js";

export interface TestServer extends HranaServer {
  file: string;
  dir: string;
  /** Closes the server and removes its files. */
  dispose(): Promise<void>;
}

export async function startTestServer(options: Partial<HranaServerOptions> = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "wren-hrana-"));
  const file = options.file ?? join(dir, "test.db");
  const server = await startHranaServer({ authToken: "", ...options, file, port: 0 });
  return {
    ...server,
    file,
    dir,
    async dispose() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RawResponse {
  status: number;
  contentType: string | null;
  text: string;
  json: any;
}

/** POSTs a raw body (object => JSON) to /v2/pipeline. */
export async function postPipeline(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  const res = await fetch(`${url}/v2/pipeline`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, contentType: res.headers.get("content-type"), text, json };
}

export const sql = (text: string, args?: unknown[]) => ({
  type: "execute",
  stmt: { sql: text, ...(args ? { args } : {}) },
});

export const int = (value: string | number | bigint) => ({ type: "integer", value: String(value) });
export const text = (value: string) => ({ type: "text", value });
export const float = (value: number) => ({ type: "float", value });

/** Runs one pipeline on a fresh stream and returns the results (asserting HTTP 200). */
export async function pipeline(url: string, requests: unknown[], baton: string | null = null): Promise<any> {
  const res = await postPipeline(url, { baton, requests });
  if (res.status !== 200) throw new Error(`pipeline failed: ${res.status} ${res.text}`);
  return res.json;
}

/** The rows of an execute result, as plain JS (integers as bigint). */
export function rowsOf(result: any): unknown[][] {
  if (result.type !== "ok") throw new Error(`expected ok, got ${JSON.stringify(result)}`);
  return result.response.result.rows.map((row: any[]) =>
    row.map((v) => {
      switch (v.type) {
        case "integer":
          return BigInt(v.value);
        case "null":
          return null;
        case "blob":
          return Buffer.from(v.base64, "base64");
        default:
          return v.value;
      }
    }),
  );
}
