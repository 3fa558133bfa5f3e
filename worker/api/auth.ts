/**
 * Who is calling, and whether the route lets them: the Bearer key is hashed and looked up,
 * then the route's scope and the key's site allowlist (domain/access.ts) are checked here,
 * before a handler runs.
 */
import { callerFor, type Caller } from "../domain/access";
import { findActiveKey } from "../domain/apikeys";
import type { Database } from "../lib/db";
import { KEY_PREFIX, type Scope } from "../lib/keys";
import { HttpProblem } from "../lib/problem";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export async function authenticateKey(request: Request, db: Database): Promise<Caller> {
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

/** The key must hold `scope`, or `alternative` when the route accepts either. */
export function requireScope(caller: Caller, scope: Scope | "any", alternative?: Scope): void {
  if (scope === "any") return;
  if (!caller.hasScope(scope) && !(alternative && caller.hasScope(alternative))) {
    const needed = alternative ? `${scope} or ${alternative}` : scope;
    throw new HttpProblem(403, `This key lacks the ${needed} scope.`, { field: "authorization", required_scope: scope });
  }
}

export function requireSiteAccess(caller: Caller, siteId: string, field = "site"): void {
  if (!caller.mayActOn(siteId)) {
    throw new HttpProblem(403, `This key may not act on site ${siteId}.`, { field });
  }
}
