/**
 * What a caller may do: one authorization object for the API and the dashboard, made from an
 * API key or from a signed-in account's grants (domain/people/roles.ts).
 *
 * Key: `admin` holds every scope and every site. Any other key reaches only the sites its
 * allowlist names — the ones an admin listed and the ones it created — or every site when an
 * admin granted "*"; an allowlist that is missing (a row from before keys were
 * least-privilege) names none.
 *
 * Account: its scopes differ per site (viewer on one, editor on another), so `hasScopeOn`
 * answers per site, and the pipeline hands a handler `forScope(route scope)`: a caller whose
 * `mayActOn`/`allowedSites` count only the sites where the route's scope is held. A handler
 * that finds a resource's site by the resource's own id (an alert, a deployment) thus checks
 * the right thing without knowing about roles.
 */
import { EVERY_SITE, SCOPES, type Scope } from "../lib/keys";
import type { ApiKeyRow } from "./apikeys";
import { scopesFor, type AccountScope, type Role } from "./people/roles";

export interface Principal {
  kind: "key" | "account" | "share";
  id: string;
  name: string;
}

export interface Grant {
  siteId: string;
  role: Role;
}

export interface Caller {
  principal: Principal;
  /**
   * The key, or for an account a key-shaped view of it (its id, name, scopes and sites), so
   * code written for keys (createdByKey, GET /keys/current) keeps working.
   */
  key: ApiKeyRow;
  isAdmin: boolean;
  /** Holds the scope on at least one site (or everywhere). */
  hasScope(scope: AccountScope): boolean;
  /** Holds the scope on this site; `"*"` asks for every site. */
  hasScopeOn(scope: AccountScope, siteId: string): boolean;
  /** Site ids the caller may act on, or null for all. */
  allowedSites(): string[] | null;
  mayActOn(siteId: string): boolean;
  /** True when the key's own allowlist names this site (not merely through admin or "*"). */
  listsSite(siteId: string): boolean;
  /** This caller as a route needing `scope` (or `orScope`) sees it: only sites where it holds one. */
  forScope(scope: Scope | "any", orScope?: Scope): Caller;
  /** Set for a signed-in account. */
  account?: { id: string; grants: Grant[]; sessionId: string };
}

export function callerFor(key: ApiKeyRow): Caller {
  const admin = key.scopes.includes("admin");
  const listed = key.sites ?? [];
  const sites = admin || listed.includes(EVERY_SITE) ? null : listed;
  const hasScope = (scope: AccountScope) => admin || key.scopes.includes(scope);
  const caller: Caller = {
    principal: { kind: "key", id: key.id, name: key.name },
    key,
    isAdmin: admin,
    hasScope,
    hasScopeOn: (scope, siteId) => hasScope(scope) && (sites === null || (siteId !== EVERY_SITE && sites.includes(siteId))),
    allowedSites: () => sites,
    mayActOn: (siteId) => sites === null || sites.includes(siteId),
    listsSite: (siteId) => listed.includes(siteId),
    // A key's scopes are the same on every site it reaches.
    forScope: () => caller,
  };
  return caller;
}

export interface AccountIdentity {
  id: string;
  name: string;
  createdAt: number;
  sessionId: string;
}

/** The caller for a signed-in account: the union of its grants' scopes, per site. */
export function callerForAccount(account: AccountIdentity, grants: Grant[]): Caller {
  const scopesOn = new Map<string, Set<AccountScope>>();
  for (const grant of grants) {
    const set = scopesOn.get(grant.siteId) ?? new Set<AccountScope>();
    for (const scope of scopesFor(grant.role, grant.siteId)) set.add(scope);
    scopesOn.set(grant.siteId, set);
  }
  const everywhere = scopesOn.get(EVERY_SITE) ?? new Set<AccountScope>();
  const admin = everywhere.has("admin");
  // `admin` (only ever on "*") holds every scope, managing people included.
  const holds = (set: Set<AccountScope> | undefined, scope: AccountScope) => !!set && (set.has(scope) || set.has("admin"));
  const hasScopeOn = (scope: AccountScope, siteId: string) =>
    holds(everywhere, scope) || (siteId !== EVERY_SITE && holds(scopesOn.get(siteId), scope));
  const hasScope = (scope: AccountScope) => [...scopesOn.values()].some((set) => holds(set, scope));
  const named = grants.filter((g) => g.siteId !== EVERY_SITE).map((g) => g.siteId);
  const sitesWhere = (test: (siteId: string) => boolean): string[] | null =>
    everywhere.size > 0 && test(EVERY_SITE) ? null : named.filter(test);

  const scopes = admin ? ["admin"] : SCOPES.filter((s) => hasScope(s));
  const everySite = everywhere.size > 0;
  const key: ApiKeyRow = {
    id: account.id,
    name: account.name,
    prefix: "",
    secretHash: "",
    scopes,
    sites: everySite ? [EVERY_SITE] : named,
    rateRequests: null,
    ratePerSeconds: null,
    createdAt: account.createdAt,
    lastUsedAt: null,
    revokedAt: null,
  };

  const make = (reach: (siteId: string) => boolean): Caller => {
    const allowed = sitesWhere(reach);
    const caller: Caller = {
      principal: { kind: "account", id: account.id, name: account.name },
      key,
      isAdmin: admin,
      hasScope,
      hasScopeOn,
      allowedSites: () => allowed,
      mayActOn: (siteId) => (allowed === null ? true : allowed.includes(siteId)),
      listsSite: (siteId) => named.includes(siteId),
      forScope: (scope, orScope) =>
        scope === "any" ? caller : make((siteId) => hasScopeOn(scope, siteId) || (!!orScope && hasScopeOn(orScope, siteId))),
      account: { id: account.id, grants, sessionId: account.sessionId },
    };
    return caller;
  };
  // Unnarrowed: every site any grant names.
  return make(() => true);
}
