/**
 * What every API route goes through, in order, before its handler may write:
 * authenticate (by the route's auth kind) → take a rate-limit token → check the scope →
 * validate path, query and body → check the site against the key's allowlist → run the
 * handler → render its reply. The call is counted for the key whatever the outcome once the
 * key is known — by the key's RateLimiter, in the same step as the token, so a request writes
 * nothing to the database for it — and rate-limit headers go on every answer.
 *
 * A signed webhook route (`webhook-signature`) has no key: its path is validated, its raw body
 * read under its bound and its signature verified with the site's secret (hook-auth.ts) before
 * the handler parses anything.
 */
import type { IRequest } from "itty-router";
import { callerFor, type Caller } from "../domain/access";
import { database, type Database } from "../lib/db";
import { errorResponse } from "../lib/errors";
import { problem } from "../lib/problem";
import { instanceCount } from "../lib/instances";
import { publicUrl } from "../lib/public-url";
import {
  authenticateKeyOrSession,
  authenticateSession,
  requireCsrf,
  requireSameOrigin,
  requireScope,
  requireSiteAccess,
} from "./auth";
import { DEFAULT_BODY_LIMIT, readJson, validate } from "./body";
import type { ApiEnv } from "./env";
import { rateLimiterFor } from "./key-limiter";
import { queryValues } from "./params";
import { instanceShare, parseDefaultLimit, rateLimitHeaders, type RateDecision } from "./ratelimit";
import { authenticateDelivery } from "./hook-auth";
import type { AuthKind, KeyRoute, Route, SignedRoute } from "./registry";
import { renderReply, replier } from "./reply";

type Authenticator = (request: Request, db: Database, env: ApiEnv) => Promise<Caller>;

/**
 * One authenticator per key-like auth kind. Site tokens get theirs with the first route that
 * takes them; until then such a route cannot be mounted. Signed webhooks go through
 * `runSignedRoute`.
 */
const AUTHENTICATORS: Partial<Record<Exclude<AuthKind, "webhook-signature">, Authenticator>> = {
  key: authenticateKeyOrSession,
  session: (request, db, env) => authenticateSession(request, env, db),
  // No credentials (sign-in, an invitation's registration, the sign-in methods): a caller that
  // holds nothing. A write must still come from the dashboard's own origin (login CSRF).
  public: async (request, _db, env) => {
    if (request.method !== "GET") requireSameOrigin(request, env);
    return ANONYMOUS;
  },
};

const ANONYMOUS: Caller = callerFor({
  id: "anonymous",
  name: "anonymous",
  prefix: "",
  secretHash: "",
  scopes: [],
  sites: [],
  rateRequests: null,
  ratePerSeconds: null,
  createdAt: 0,
  lastUsedAt: null,
  revokedAt: null,
});

/**
 * Takes a token from the key's bucket; the same call counts it for `route`. The bucket is this
 * instance's: with several instances on one database each admits its share of the limit
 * (instanceShare), so together they admit at most the limit.
 */
async function takeRateToken(env: ApiEnv, db: Database, caller: Caller, route: string): Promise<RateDecision> {
  // One bucket per principal: a key's, or a person's across all their sessions.
  const { key, principal } = caller;
  const limit =
    key.rateRequests && key.ratePerSeconds
      ? { requests: key.rateRequests, perSeconds: key.ratePerSeconds }
      : parseDefaultLimit(env.WREN_RATE_LIMIT);
  const share = instanceShare(limit, await instanceCount(db.$client));
  return rateLimiterFor(env.RATE_LIMITER, principal.id).take(share, { keyId: principal.id, route });
}

export function runRoute(spec: Route) {
  return spec.auth === "webhook-signature" ? runSignedRoute(spec) : runKeyRoute(spec);
}

function runSignedRoute(spec: SignedRoute) {
  return async (request: IRequest, env: ApiEnv, execution: ExecutionContext): Promise<Response> => {
    try {
      const db = database(env);
      const params = validate(spec.params, request.params ?? {}, "path") as Record<string, unknown>;
      const delivery = await authenticateDelivery(request, env, db, String(params[spec.siteParam]), spec.bodyLimit);
      return renderReply(
        await spec.handle({ request, env, execution, db, params, delivery, baseUrl: publicUrl(env), ...replier }),
      );
    } catch (error) {
      return errorResponse(error, `${spec.method} ${spec.path}`);
    }
  };
}

function runKeyRoute(spec: KeyRoute) {
  const authenticate = AUTHENTICATORS[spec.auth];
  if (!authenticate) throw new Error(`${spec.operationId}: no authenticator for auth kind "${spec.auth}"`);
  const routeName = `${spec.method} ${spec.path}`;
  return async (request: IRequest, env: ApiEnv, execution: ExecutionContext): Promise<Response> => {
    const db = database(env);
    let caller: Caller;
    try {
      caller = await authenticate(request, db, env);
    } catch (error) {
      return errorResponse(error, routeName);
    }

    let decision: RateDecision | undefined;
    let response: Response;
    try {
      decision = spec.auth === "public" ? undefined : await takeRateToken(env, db, caller, routeName);
      if (decision && !decision.allowed) {
        response = problem(429, `This key's limit of ${decision.limit} requests per ${decision.windowSeconds} s is used up.`, {
          field: "authorization",
        });
      } else {
        await requireCsrf(request, env, caller);
        requireScope(caller, spec.scope, spec.orScope);
        // An account's scopes differ per site: from here on it reaches only the sites where it
        // holds the route's scope (a key is unchanged).
        caller = caller.forScope(spec.scope, spec.orScope);
        const params = spec.params ? validate(spec.params, request.params ?? {}, "path") : {};
        const query = spec.query ? validate(spec.query, queryValues(new URL(request.url), spec.query), "query") : {};
        const body = spec.body
          ? validate(spec.body, await readJson(request, spec.bodyLimit ?? DEFAULT_BODY_LIMIT), "body")
          : undefined;
        if (spec.site) {
          const source = spec.site.from === "params" ? params : spec.site.from === "query" ? query : body;
          const siteId = (source as Record<string, unknown> | undefined)?.[spec.site.name];
          if (typeof siteId === "string") requireSiteAccess(caller, siteId, spec.site.name);
        }
        const baseUrl = publicUrl(env);
        response = renderReply(
          await spec.handle({ request, env, execution, db, caller, params, query, body, baseUrl, ...replier }),
        );
      }
    } catch (error) {
      response = errorResponse(error, routeName);
    }

    const headers = new Headers(response.headers);
    if (decision) for (const [name, value] of Object.entries(rateLimitHeaders(decision))) headers.set(name, value);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}
