/**
 * Roles → scopes: the one table that maps a person's role onto the API's scopes, so the API
 * (domain/access.ts) and the dashboard (state/session.ts) enforce one model (docs/operations.md
 * "People"). Type-only imports keep it free of other code: the dashboard bundles it.
 *
 * - viewer: reports, goal names, site names.
 * - editor: viewer + goals, deployments, alerts.
 * - admin on every site ("*"): `admin`, i.e. every scope, keys, people, sites.
 * - admin on one site: editor + write:sites on that site + its people and invitations
 *   (`manage:people` below, never a key scope); not keys, not other sites, not creating sites.
 */
import type { Scope } from "./keys";
import type { Role } from "./schema";

/** A pseudo-scope an account holds on a site it administers: its people and invitations. */
export type AccountScope = Scope | "manage:people";

/** A grant's site meaning every site (lib/keys.ts EVERY_SITE, spelled here to keep this module import-free). */
const EVERY_SITE = "*";

const VIEWER: AccountScope[] = ["read:reports", "read:sites", "read:sessions"];
const EDITOR: AccountScope[] = [...VIEWER, "write:goals", "write:deployments", "write:alerts"];
const SITE_ADMIN: AccountScope[] = [...EDITOR, "write:sites", "manage:people"];

/** The scopes a role grants on the grant's site ("*" = every site). */
export function scopesFor(role: Role, siteId: string): AccountScope[] {
  if (role === "viewer") return VIEWER;
  if (role === "editor") return EDITOR;
  return siteId === EVERY_SITE ? ["admin"] : SITE_ADMIN;
}

/** Whether grants hold `scope` on `siteId`: a grant of that site or of every site, `admin` holding all. */
export function grantsHold(grants: readonly { site: string; role: Role }[], scope: AccountScope, siteId: string): boolean {
  return grants.some((g) => {
    if (g.site !== siteId && g.site !== EVERY_SITE) return false;
    const scopes = scopesFor(g.role, g.site);
    return scopes.includes("admin") || scopes.includes(scope);
  });
}
