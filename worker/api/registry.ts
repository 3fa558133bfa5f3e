/**
 * The API's route table. Each route declares its method, path, scope, where its site id
 * comes from, and its request and response schemas; the router and the OpenAPI document are
 * both built from this one declaration.
 */
import type { z } from "zod";
import type { Database } from "../lib/db";
import type { ApiEnv } from "./env";
import type { Scope } from "../lib/keys";
import type { Caller } from "./auth";

export type Method = "GET" | "POST" | "PATCH" | "DELETE";

export interface RouteContext<P, Q, B> {
  request: Request;
  env: ApiEnv;
  execution: ExecutionContext;
  db: Database;
  caller: Caller;
  params: P;
  query: Q;
  body: B;
  /** Where browsers reach this service, for snippets. */
  baseUrl: string;
}

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Other media types the route answers with on `Accept` (e.g. text/csv); bodies are text. */
  alsoAs?: string[];
  headers?: Record<string, string>;
}

export interface RouteSpec<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: Method;
  /** itty-router pattern, e.g. /api/v1/sites/:id */
  path: string;
  summary: string;
  tag: string;
  scope: Scope;
  params?: P;
  query?: Q;
  body?: B;
  bodyLimit?: number;
  /** A body the handler reads itself (e.g. to forward it); documented, not validated here. */
  documentedBody?: z.ZodType;
  /** Which request value names the site the key must be allowed on. */
  site?: { from: "params" | "query" | "body"; name: string };
  responses: Record<number, ResponseSpec>;
  handle(context: RouteContext<z.output<P>, z.output<Q>, z.output<B>>): Promise<Response>;
}

/** Declares a route with its types inferred from its schemas. */
export function route<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(spec: RouteSpec<P, Q, B>): RouteSpec {
  return spec as unknown as RouteSpec;
}

export function json(value: unknown, status = 200, headers?: HeadersInit): Response {
  const response = Response.json(value, { status, headers });
  response.headers.set("cache-control", "no-store");
  return response;
}
