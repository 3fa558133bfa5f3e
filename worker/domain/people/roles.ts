/**
 * Roles for the domain: the role → scopes table lives in lib/roles.ts (the dashboard reads it
 * too); the roles themselves and their ranks are here.
 */
import type { Role } from "../../lib/schema";

export { scopesFor, type AccountScope } from "../../lib/roles";
export { ROLES, type Role } from "../../lib/schema";

/** Ranks roles so a site admin can be told apart from a viewer in one comparison. */
export const ROLE_RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };
