/**
 * What a key may do. `admin` holds every scope and every site. Any other key reaches only the
 * sites its allowlist names — the ones an admin listed and the ones it created — or every site
 * when an admin granted "*"; an allowlist that is missing (a row from before keys were
 * least-privilege) names none.
 */
import { EVERY_SITE, type Scope } from "../lib/keys";
import type { ApiKeyRow } from "./apikeys";

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
