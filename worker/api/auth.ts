/**
 * Who is calling, and whether the route lets them. A caller proves itself with EITHER a Bearer
 * API key (machines) OR the dashboard's `wren_session` cookie (people, domain/people/sessions.ts);
 * a request carrying an Authorization header is judged by it alone. Then the route's scope and
 * the caller's sites (domain/access.ts) are checked here, before a handler runs.
 *
 * CSRF: a cookie is sent by the browser on its own, so every non-GET request authenticated by
 * cookie must also carry `x-wren-csrf` equal to the session's CSRF token and an `Origin` equal
 * to WREN_PUBLIC_URL's origin (an absent Origin is refused). SameSite=Strict is the first wall;
 * this is the second. Bearer-key requests are unaffected: a browser never adds the header.
 */
import { callerFor, type Caller } from "../domain/access";
import { findActiveKey } from "../domain/apikeys";
import {
  csrfMatches,
  findSession,
  sessionSettings,
  sessionTokenFrom,
  type SessionEnv,
  type SessionRow,
} from "../domain/people/sessions";
import type { Database } from "../lib/db";
import { KEY_PREFIX, type Scope } from "../lib/keys";
import { HttpProblem } from "../lib/problem";
import { peopleUrl, publicUrl } from "../lib/public-url";

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export async function authenticateKey(request: Request, db: Database): Promise<Caller> {
  const header = request.headers.get("authorization");
  const presented = header ? BEARER.exec(header)?.[1] : undefined;
  if (!presented) {
    throw new HttpProblem(401, "Send an API key as `Authorization: Bearer <key>`, or sign in to the dashboard.", {
      field: "authorization",
      headers: { "www-authenticate": 'Bearer realm="wren"' },
    });
  }
  const key = presented.startsWith(KEY_PREFIX) && presented.length < 200 ? await findActiveKey(db, presented) : undefined;
  if (!key) {
    throw new HttpProblem(401, "The API key is not valid or was revoked.", {
      field: "authorization",
      headers: { "www-authenticate": 'Bearer realm="wren", error="invalid_token"' },
    });
  }
  return callerFor(key);
}

/** The public URL's origin (`http://host:port`): what a dashboard's Origin must be. */
export function publicOrigin(env: { WREN_PUBLIC_URL?: string | null }): string {
  return new URL(publicUrl(env)).origin;
}

/**
 * Refuses a state-changing request whose Origin is absent or not the dashboard's own: the public
 * URL's origin, or the one people sign in at when that spells a loopback address `localhost`.
 */
export function requireSameOrigin(request: Request, env: { WREN_PUBLIC_URL?: string | null }): void {
  const origin = request.headers.get("origin");
  if (origin !== publicOrigin(env) && origin !== new URL(peopleUrl(publicUrl(env))).origin) {
    throw new HttpProblem(403, "A signed-in write must come from the dashboard's own origin.", { field: "origin" });
  }
}

/** The session each cookie caller came with, for the CSRF check (requireCsrf). */
const sessions = new WeakMap<Caller, SessionRow>();

/**
 * The signed-in account's caller, by cookie. `csrf`: apply the CSRF rule here too; the pipeline
 * applies it itself (requireCsrf) once the caller's rate-limit token is taken, so a refused write
 * still counts and carries the RateLimit headers.
 */
export async function authenticateSession(
  request: Request,
  env: SessionEnv,
  db: Database,
  options: { csrf?: boolean } = {},
): Promise<Caller> {
  const token = sessionTokenFrom(request);
  const active = token ? await findSession(db, token, sessionSettings(env)) : undefined;
  if (!active) {
    throw new HttpProblem(401, "Not signed in, or the session ended; sign in again.", {
      field: "cookie",
      headers: { "www-authenticate": 'Bearer realm="wren"' },
    });
  }
  sessions.set(active.caller, active.session);
  if (options.csrf) await requireCsrf(request, env, active.caller);
  return active.caller;
}

/**
 * The CSRF rule for a caller signed in by cookie: a non-GET request needs the dashboard's own
 * Origin and `x-wren-csrf` equal to the session's token. A key's caller passes untouched.
 */
export async function requireCsrf(request: Request, env: SessionEnv, caller: Caller): Promise<void> {
  const session = sessions.get(caller);
  if (!session || SAFE_METHODS.has(request.method)) return;
  requireSameOrigin(request, env);
  if (!(await csrfMatches(session, request.headers.get("x-wren-csrf")))) {
    throw new HttpProblem(403, "Send the session's CSRF token as `x-wren-csrf`.", { field: "x-wren-csrf" });
  }
}

/** A Bearer key when the request has an Authorization header, else the session cookie. */
export function authenticateKeyOrSession(request: Request, db: Database, env: SessionEnv): Promise<Caller> {
  if (request.headers.has("authorization") || !sessionTokenFrom(request)) return authenticateKey(request, db);
  return authenticateSession(request, env, db);
}

/** The caller must hold `scope`, or `alternative` when the route accepts either (on `siteId` when the route names one). */
export function requireScope(caller: Caller, scope: Scope | "any", alternative?: Scope, siteId?: string): void {
  if (scope === "any") return;
  const holds = (s: Scope) => (siteId === undefined ? caller.hasScope(s) : caller.hasScopeOn(s, siteId));
  if (!holds(scope) && !(alternative && holds(alternative))) {
    const needed = alternative ? `${scope} or ${alternative}` : scope;
    const who = caller.principal.kind === "account" ? "Your role" : "This key";
    throw new HttpProblem(403, `${who} lacks the ${needed} scope${siteId ? ` on site ${siteId}` : ""}.`, {
      field: "authorization",
      required_scope: scope,
    });
  }
}

export function requireSiteAccess(caller: Caller, siteId: string, field = "site"): void {
  if (!caller.mayActOn(siteId)) {
    const who = caller.principal.kind === "account" ? "You" : "This key";
    throw new HttpProblem(403, `${who} may not act on site ${siteId}.`, { field });
  }
}

/** A route only a signed-in person can call (its own sessions, sign-out). */
export function requireAccount(caller: Caller): NonNullable<Caller["account"]> {
  if (!caller.account)
    throw new HttpProblem(403, "Only a signed-in person can do this, not an API key.", { field: "authorization" });
  return caller.account;
}
