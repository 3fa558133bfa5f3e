/**
 * Who is calling: the Bearer key is hashed and looked up; scopes and the key's site allowlist
 * are checked here, before a handler runs. `admin` holds every scope and every site. Any other
 * key reaches only the sites its allowlist names — the ones an admin listed and the ones it
 * created — or every site when an admin granted "*"; an allowlist that is missing (a row from
 * before keys were least-privilege) names none.
 */
import { findActiveKey, type ApiKeyRow } from "../domain/apikeys";
import type { Database } from "../lib/db";
import { EVERY_SITE, KEY_PREFIX, type Scope } from "../lib/keys";
import { HttpProblem } from "../lib/problem";

export interface Caller {
  key: ApiKeyRow;
  isAdmin: boolean;
  hasScope(scope: Scope): boolean;
  /** Site ids the key may act on, or null for all. */
  allowedSites(): string[] | null;
  mayActOn(siteId: string): boolean;
  /** True when the key's own allowlist names this site (not merely through admin or "*"). */
  listsSite(siteId: string): boolean;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export async function authenticate(request: Request, db: Database): Promise<Caller> {
  const header = request.headers.get("authorization");
  const presented = header ? BEARER.exec(header)?.[1] : undefined;
  if (!presented) {
    throw new HttpProblem(401, "Send an API key as `Authorization: Bearer <key>`.", {
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

export function callerFor(key: ApiKeyRow): Caller {
  const admin = key.scopes.includes("admin");
  const listed = key.sites ?? [];
  const sites = admin || listed.includes(EVERY_SITE) ? null : listed;
  return {
    key,
    isAdmin: admin,
    hasScope: (scope) => admin || key.scopes.includes(scope),
    allowedSites: () => sites,
    mayActOn: (siteId) => sites === null || sites.includes(siteId),
    listsSite: (siteId) => listed.includes(siteId),
  };
}

export function requireScope(caller: Caller, scope: Scope): void {
  if (!caller.hasScope(scope)) {
    throw new HttpProblem(403, `This key lacks the ${scope} scope.`, { field: "authorization", required_scope: scope });
  }
}

export function requireSite(caller: Caller, siteId: string, field = "site"): void {
  if (!caller.mayActOn(siteId)) {
    throw new HttpProblem(403, `This key may not act on site ${siteId}.`, { field });
  }
}
