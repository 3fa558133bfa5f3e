/**
 * Wren's record ids: a readable prefix and base64url randomness (`site_3k9xQ…`). Every schema,
 * parser and generator takes its pattern from here, so a site id means the same to the API,
 * the collector, the reports, the s2s token and the CLI.
 */
import { z } from "zod";
import { randomToken } from "./crypto";

export type IdPrefix =
  "site" | "goal" | "key" | "dep" | "alr" | "dst" | "msg" | "acct" | "ses" | "inv" | "aud" | "chl" | "shr" | "imp" | DigestIdPrefix;
/** Digests (domain/digests) and the mail outbox (domain/mail.ts). */
type DigestIdPrefix = "dgs" | "mail";

/** Generated ids carry 12 random bytes (16 characters); up to 40 are accepted. */
const idPattern = (prefix: IdPrefix) => new RegExp(`^${prefix}_[A-Za-z0-9_-]{1,40}$`);

export const SITE_ID = idPattern("site");
export const GOAL_ID = idPattern("goal");
export const KEY_ID = idPattern("key");
export const DEPLOYMENT_ID = idPattern("dep");
export const ALERT_RULE_ID = idPattern("alr");
export const ACCOUNT_ID = idPattern("acct");
export const SESSION_ID = idPattern("ses");
export const INVITATION_ID = idPattern("inv");
export const SHARE_ID = idPattern("shr");
export const DIGEST_ID = idPattern("dgs");
export const IMPORT_ID = idPattern("imp");

export const siteId = z.string().regex(SITE_ID, "must be a site id (site_…)");
export const goalId = z.string().regex(GOAL_ID, "must be a goal id (goal_…)");
export const keyId = z.string().regex(KEY_ID, "must be a key id (key_…)");
export const deploymentId = z.string().regex(DEPLOYMENT_ID, "must be a deployment id (dep_…)");
export const alertRuleId = z.string().regex(ALERT_RULE_ID, "must be an alert rule id (alr_…)");
export const accountId = z.string().regex(ACCOUNT_ID, "must be an account id (acct_…)");
export const sessionId = z.string().regex(SESSION_ID, "must be a session id (ses_…)");
export const invitationId = z.string().regex(INVITATION_ID, "must be an invitation id (inv_…)");
export const shareId = z.string().regex(SHARE_ID, "must be a share link id (shr_…)");
export const digestId = z.string().regex(DIGEST_ID, "must be a digest id (dgs_…)");
export const importId = z.string().regex(IMPORT_ID, "must be an import id (imp_…)");

export const isSiteId = (value: string): boolean => SITE_ID.test(value);

/** A new random id with its readable prefix, e.g. `site_3k9xQ…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomToken(12)}`;
}
