/**
 * Every scope a key can hold, with what it allows. A Record over the generated Scope type, so
 * a scope added to the API fails the typecheck until it is described here.
 */
import type { Scope } from "../../api/client";

export const SCOPE_HELP: Record<Scope, string> = {
  "read:reports": "Read reports, the Overview, deployments and alert rules",
  "read:sites": "List sites and their goals",
  "read:sessions": "Read the sessions list",
  "write:sites": "Register, change and delete sites; rotate their s2s tokens",
  "write:events": "Send server-side conversions",
  "write:goals": "Create, relabel and delete goals",
  "write:deployments": "Record deployment markers; set up the deployment webhook",
  "write:alerts": "Make, change, test and delete alert rules",
  admin: "Everything on every site, keys included",
};

export const SCOPES = Object.keys(SCOPE_HELP) as Scope[];

/**
 * The "viewer" preset: every screen's figures, read-only, on the key's sites (docs/dashboard.md,
 * Keys). read:reports alone knows its sites by id only and cannot open Goals: read:sites names
 * the sites and lists their goals; read:sessions opens the Sessions list.
 */
export const VIEWER_SCOPES: Scope[] = ["read:reports", "read:sites", "read:sessions"];
