/**
 * The HTTP side: routing, authentication, bounded body reading, strict JSON decoding and the
 * mapping of every failure to the status and body sqld would send. Only JSON Hrana over HTTP v2
 * is served: /v3 and /v3-protobuf answer 404 so version-probing clients settle on v2.
 */

import { isUtf8 } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { BearerAuth } from "./auth.js";
import { BatonError, HttpError, ProtocolError, StreamExpiredError } from "./errors.js";
import { type ProtocolLimits, decodePipelineRequest } from "./protocol.js";
import type { RequestExecutor } from "./request-executor.js";
import type { RequestGuard } from "./request-guard.js";
import { ResponseBudget } from "./statement-runner.js";
import type { StreamManager } from "./streams.js";

export interface HttpLayerOptions {
  auth: BearerAuth | undefined;
  guard: RequestGuard;
  maxRequestBytes: number;
  maxResponseBytes: number;
  protocolLimits: ProtocolLimits;
}

export interface HttpLayerDeps {
  streams: StreamManager;
  executor: RequestExecutor;
  options: HttpLayerOptions;
  /** Counts pipelines in progress so shutdown can wait for them. */
  inFlight: { count: number; idle: Array<() => void> };
}

const DISCARD_GRACE_MS = 2_000;

function sendJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  // Encoded once (measuring the string and then writing it would go through it twice).
  const bytes = Buffer.from(body, "utf8");
  res.writeHead(status, { "content-type": "application/json", "content-length": bytes.length, ...headers });
  res.end(bytes);
}

function sendText(res: ServerResponse, status: number, body: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { "content-type": "text/plain", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** Reads the body, refusing (413) anything over the limit without buffering it. */
function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new HttpError(413, { message: `Request body exceeds ${maxBytes} bytes`, code: "REQUEST_TOO_LARGE" });
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off("data", onData);
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.on("end", () => resolve(Buffer.concat(chunks, size)));
    req.on("error", reject);
  });
}

function parseJson(body: Buffer): unknown {
  // serde rejects invalid UTF-8 too; Buffer#toString would silently replace it.
  if (!isUtf8(body)) throw new ProtocolError("Cannot deserialize client message from JSON: body is not valid UTF-8");
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ProtocolError(`Cannot deserialize client message from JSON: ${reason}`);
  }
}

/** After refusing an oversized body: read and drop what the client is still sending, so it can
 * read our answer instead of failing with EPIPE, but close the connection after a short grace
 * so a client cannot keep streaming forever. */
function discardRestOfBody(res: ServerResponse): void {
  const req = res.req;
  req.on("data", () => {});
  req.resume();
  const timer = setTimeout(() => res.socket?.destroy(), DISCARD_GRACE_MS);
  timer.unref();
  req.once("end", () => clearTimeout(timer));
}

function sendError(res: ServerResponse, err: unknown): void {
  if (err instanceof HttpError) {
    sendJson(res, err.status, JSON.stringify(err.body), err.headers);
    if (err.status === 413) discardRestOfBody(res);
  } else if (err instanceof BatonError) {
    sendText(res, 400, err.message);
  } else if (err instanceof StreamExpiredError) {
    sendJson(res, 400, JSON.stringify({ message: err.message, code: err.code }));
  } else if (err instanceof ProtocolError) {
    sendJson(res, 400, JSON.stringify({ message: err.message, code: "PROTOCOL_ERROR" }));
  } else {
    const reason = err instanceof Error ? err.message : String(err);
    console.error("hrana server: internal error:", err);
    sendJson(res, 500, JSON.stringify({ error: `Internal Error: \`${reason}\`` }));
  }
}

async function handlePipeline(req: IncomingMessage, res: ServerResponse, deps: HttpLayerDeps): Promise<void> {
  const { options, streams, executor } = deps;
  const body = parseJson(await readBody(req, options.maxRequestBytes));
  const pipeline = decodePipelineRequest(body, options.protocolLimits);
  const stream = streams.acquire(pipeline.baton);
  const budget = new ResponseBudget(options.maxResponseBytes);
  const results: string[] = [];
  try {
    for (const request of pipeline.requests) {
      results.push(await executor.execute(stream, request, budget));
    }
  } catch (err) {
    streams.discard(stream);
    throw err;
  }
  const baton = streams.release(stream);
  sendJson(
    res,
    200,
    `{"baton":${baton === null ? "null" : JSON.stringify(baton)},"base_url":null,"results":[${results.join(",")}]}`,
  );
}

function route(req: IncomingMessage, res: ServerResponse, deps: HttpLayerDeps): Promise<void> | void {
  const path = (req.url ?? "/").split("?", 1)[0];
  const method = req.method ?? "GET";
  deps.options.guard.checkSender(req);
  // As on sqld, /health answers without a token (it says nothing but "up").
  if (path !== "/health") deps.options.auth?.check(req.headers.authorization);
  switch (path) {
    case "/v2/pipeline":
      if (method !== "POST") throw new HttpError(405, { error: "Method not allowed" }, { allow: "POST" });
      deps.options.guard.checkJsonBody(req);
      return handlePipeline(req, res, deps);
    case "/v2":
      if (method !== "GET" && method !== "HEAD") throw new HttpError(405, { error: "Method not allowed" }, { allow: "GET" });
      return sendText(res, 200, "Hello, this is HTTP API v2 (Hrana over HTTP)");
    case "/health":
      if (method !== "GET" && method !== "HEAD") throw new HttpError(405, { error: "Method not allowed" }, { allow: "GET" });
      res.writeHead(200, { "content-length": 0 });
      res.end();
      return;
    default:
      // Includes /v3 and /v3-protobuf: clients that probe them fall back to v2.
      throw new HttpError(404, { error: "Not found" });
  }
}

export function createRequestHandler(deps: HttpLayerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    deps.inFlight.count++;
    const done = () => {
      if (--deps.inFlight.count === 0) for (const wake of deps.inFlight.idle.splice(0)) wake();
    };
    let outcome: Promise<void> | void;
    try {
      outcome = route(req, res, deps);
    } catch (err) {
      sendError(res, err);
      done();
      return;
    }
    Promise.resolve(outcome)
      .catch((err: unknown) => sendError(res, err))
      .finally(done);
  };
}
