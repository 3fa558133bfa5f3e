/**
 * Registering a site through the API, with the ownership rules that keep a domain with its
 * owner: re-posting a registered domain hands the caller the existing site only when it is
 * plainly theirs, and a site a limited key creates joins that key's allowlist.
 */
import type { Database } from "../lib/db";
import { HttpProblem } from "../lib/problem";
import type { Caller } from "./access";
import { addSiteToKey, findRegistrant, type Registrant } from "./apikeys";
import { findSiteByDomain, insertSite, type SiteRow } from "./sites";

export interface SiteRegistration {
  name: string;
  domain: string;
  timezone?: string | undefined;
}

/**
 * Whether re-posting a registered domain hands this caller the existing site. Only when the
 * site is plainly the caller's: it registered it, or an admin listed it on the key, or the key
 * reaches every site and the site was registered by the operator (the CLI or an admin key).
 * A site a limited key registered first is never handed over silently — else whoever posts a
 * domain first could squat it and keep reading what its real owner later records there.
 */
function mayTakeExisting(caller: Caller, site: SiteRow, registrant: Registrant | undefined): boolean {
  if (site.createdByKey === caller.key.id || caller.listsSite(site.id)) return true;
  const byOperator = site.createdByKey === null || registrant?.admin === true;
  return byOperator && caller.mayActOn(site.id);
}

function domainTaken(caller: Caller, site: SiteRow, registrant: Registrant | undefined): HttpProblem {
  if (!caller.isAdmin) {
    return new HttpProblem(409, `The domain ${site.domain} is already registered to another site.`, { field: "domain" });
  }
  // An admin is told who holds it, to take it over deliberately (delete that site, re-post).
  const by = registrant
    ? `key ${registrant.id} ("${registrant.name}"${registrant.revoked ? ", revoked" : ""})`
    : "an unknown key";
  return new HttpProblem(
    409,
    `The domain ${site.domain} is registered to site ${site.id} by ${by}, a key limited to its own sites. ` +
      `To take the domain over, delete that site (DELETE /api/v1/sites/${site.id}) and register it again.`,
    {
      field: "domain",
      site: site.id,
      registered_by: registrant ? { id: registrant.id, name: registrant.name, revoked: registrant.revoked } : null,
    },
  );
}

async function existingFor(db: Database, caller: Caller, site: SiteRow): Promise<SiteRow> {
  const registrant = site.createdByKey === null ? undefined : await findRegistrant(db, site.createdByKey);
  if (!mayTakeExisting(caller, site, registrant)) throw domainTaken(caller, site, registrant);
  return site;
}

/** The caller's site for the domain: created (and granted to a limited key), or the existing one it may take. */
export async function registerSite(
  db: Database,
  caller: Caller,
  input: SiteRegistration,
): Promise<{ site: SiteRow; created: boolean }> {
  // A person creates sites only as an admin of every site (an admin of one site may not).
  if (caller.principal.kind !== "key" && !caller.hasScopeOn("write:sites", "*")) {
    throw new HttpProblem(403, "Only an admin of all sites may register a site.", {
      field: "authorization",
      required_scope: "admin",
    });
  }
  const existing = await findSiteByDomain(db, input.domain);
  if (existing) return { site: await existingFor(db, caller, existing), created: false };
  const { site, created } = await insertSite(db, { ...input, createdByKey: caller.key.id });
  if (!created) return { site: await existingFor(db, caller, site), created: false };
  if (caller.allowedSites() !== null) await addSiteToKey(db, caller.key.id, site.id);
  return { site, created: true };
}
