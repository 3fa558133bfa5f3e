/**
 * Roles → scopes: the one table that maps a person's role onto the API's scopes, so the API
 * and the dashboard enforce one model (docs/operations.md "People").
 *
 * - viewer: reports, goal names, site names.
 * - editor: viewer + goals, deployments, alerts.
 * - admin on every site ("*"): `admin`, i.e. every scope, keys, people, sites.
 * - admin on one site: editor + write:sites on that site + its people and invitations
 *   (`manage:people` below, never a key scope); not keys, not other sites, not creating sites.
 */
import { EVERY_SITE, type Scope } from "../../lib/keys";
import type { Role } from "../../lib/schema";

export { ROLES, type Role } from "../../lib/schema";

/** A pseudo-scope an account holds on a site it administers: its people and invitations. */
export type AccountScope = Scope | "manage:people";

const VIEWER: AccountScope[] = ["read:reports", "read:sites", "read:sessions"];
const EDITOR: AccountScope[] = [...VIEWER, "write:goals", "write:deployments", "write:alerts"];
const SITE_ADMIN: AccountScope[] = [...EDITOR, "write:sites", "manage:people"];

/** The scopes a role grants on the grant's site ("*" = every site). */
export function scopesFor(role: Role, siteId: string): AccountScope[] {
  if (role === "viewer") return VIEWER;
  if (role === "editor") return EDITOR;
  return siteId === EVERY_SITE ? ["admin"] : SITE_ADMIN;
}

/** Ranks roles so a site admin can be told apart from a viewer in one comparison. */
export const ROLE_RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };
