/**
 * The API's route table. Each route declares its operation id, method, path, how it is
 * authenticated, its scope, where its site id comes from, and its request and response
 * schemas; the router, the pipeline and the OpenAPI document are all built from this one
 * declaration, and a handler's reply is typechecked against the responses it declares.
 *
 * Two kinds of route: `route()` for callers with an API key (scope, site allowlist, rate
 * limit, call counters), and `signedRoute()` for webhook deliveries signed with a per-site
 * secret over the raw body (the deployment hook), which have no key, scope or allowlist.
 */
import type { z } from "zod";
import type { Scope } from "../lib/keys";
import type { Database } from "../lib/db";
import type { Caller } from "../domain/access";
import type { ApiEnv } from "./env";
import type { Replier, Reply, Responses } from "./reply";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * How a route's caller proves who it is: an API key (`Authorization: Bearer wren_…`) or a
 * dashboard session cookie (`key`: either one), a signed webhook delivery (a per-site secret
 * over the raw body), a site's s2s token, a shared dashboard link (`share`:
 * `Authorization: Share <token>`, api/share-auth.ts), or nothing (`public`: sign-in, an
 * invitation's registration; the caller holds no scope and its writes must come from the
 * dashboard's origin), or the session cookie only (`session`: a person's own sessions, sign-out).
 */
export type AuthKind = "key" | "webhook-signature" | "site-token" | "share" | "public" | "session";

export interface RouteContext<P, Q, B, R extends Responses> extends Replier<R> {
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

/** What every route declares besides its schemas and handler. */
interface DeclarationBase {
  /** Hand-named and stable: generated clients call the route by it (`listSites`). */
  operationId: string;
  method: Method;
  /** itty-router pattern, e.g. /api/v1/sites/:id */
  path: string;
  summary: string;
  tag: string;
  bodyLimit?: number;
  /** A body the handler reads itself (e.g. to forward it); documented, not validated here. */
  documentedBody?: z.ZodType;
  /**
   * A file the handler reads itself as bytes (an import upload), after every check of the
   * pipeline passed; documented as these media types, never parsed as JSON here.
   */
  rawBody?: { mediaTypes: readonly string[]; description: string };
}

interface RouteDeclaration extends DeclarationBase {
  auth: Exclude<AuthKind, "webhook-signature">;
  /** The scope the key must hold; "any" for a route every valid key may call (who am I). */
  scope: Scope | "any";
  /** A second scope that is enough on its own (reading alert rules: read:reports or write:alerts). */
  orScope?: Scope;
  /** Which request value names the site the key must be allowed on. */
  site?: { from: "params" | "query" | "body"; name: string };
  /** A `share` route a password link may call before it is unlocked (the unlock itself). */
  beforeUnlock?: boolean;
}

export interface RouteSpec<
  P extends z.ZodType,
  Q extends z.ZodType,
  B extends z.ZodType,
  R extends Responses,
> extends RouteDeclaration {
  params?: P;
  query?: Q;
  body?: B;
  responses: R;
  handle(context: RouteContext<z.output<P>, z.output<Q>, z.output<B>, R>): Promise<Reply>;
}

/** A key route as the router and the OpenAPI generator hold it, its schema types set aside. */
export interface KeyRoute extends RouteDeclaration {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  responses: Responses;
  handle(context: RouteContext<unknown, unknown, unknown, Responses>): Promise<Reply>;
}

/** A webhook delivery whose signature verified with its site's secret (api/hook-auth.ts). */
export interface SignedDelivery {
  siteId: string;
  /** `github`: X-Hub-Signature-256; `standard`: Standard Webhooks. */
  scheme: "github" | "standard";
  /** The raw body the signature covers. */
  body: Uint8Array;
  /** GitHub's X-GitHub-Event. */
  gitHubEvent: string | null;
  /** Standard Webhooks' webhook-id. */
  webhookId: string | null;
}

export interface SignedRouteContext<P, R extends Responses> extends Replier<R> {
  request: Request;
  env: ApiEnv;
  execution: ExecutionContext;
  db: Database;
  params: P;
  delivery: SignedDelivery;
  baseUrl: string;
}

interface SignedRouteDeclaration extends DeclarationBase {
  auth: "webhook-signature";
  /** The path parameter naming the site whose secret signs the deliveries. */
  siteParam: string;
  /** How deliveries are signed, and the headers that carry it, for the OpenAPI document. */
  signedWith: { description: string; headers: Record<string, string> };
}

export interface SignedRouteSpec<P extends z.ZodType, R extends Responses> extends SignedRouteDeclaration {
  params: P;
  responses: R;
  handle(context: SignedRouteContext<z.output<P>, R>): Promise<Reply>;
}

export interface SignedRoute extends SignedRouteDeclaration {
  params: z.ZodType;
  responses: Responses;
  handle(context: SignedRouteContext<unknown, Responses>): Promise<Reply>;
}

/** A route as the router and the OpenAPI generator hold it. */
export type Route = KeyRoute | SignedRoute;

/**
 * Declares a route, inferring the handler's parameter and reply types from its schemas. The
 * pipeline validates path, query and body with these same schemas before the handler runs.
 */
export function route<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, const R extends Responses>(
  spec: RouteSpec<P, Q, B, R>,
): Route {
  return spec;
}

/**
 * Declares a route for signed webhook deliveries: the pipeline reads the raw body under its
 * bound and verifies the signature with the site's secret before the handler parses anything.
 */
export function signedRoute<P extends z.ZodType, const R extends Responses>(spec: SignedRouteSpec<P, R>): Route {
  return spec as SignedRoute;
}
