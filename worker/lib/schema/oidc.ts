/**
 * Sign-in with the operator's OpenID provider (worker/domain/people/oidc.ts): who a provider's
 * subject is here, and the sign-ins under way. Nothing from the provider is kept beyond the
 * (issuer, subject) pair that names a person.
 */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { accounts } from "./people";

/**
 * A provider's person, as an account of Wren. An unknown pair signs in only with an invitation
 * (or, with WREN_OIDC_LINK_BY_EMAIL=true, a verified email equal to an account's own).
 */
export const oidcIdentities = sqliteTable(
  "oidc_identities",
  {
    /** The issuer identifier exactly as discovery and the ID token's `iss` say it. */
    issuer: text("issuer").notNull(),
    /** The ID token's `sub`: stable and unique within the issuer (OIDC Core §2). */
    subject: text("subject").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.issuer, t.subject] }), index("oidc_identities_account").on(t.accountId)],
);

/**
 * A sign-in between `GET /auth/oidc/start` and its callback: single use (the callback deletes
 * it before anything else) and 10 minutes long. Only the state's SHA-256 is kept; the state
 * itself is in the browser (the redirect and an HttpOnly cookie), so a reader of the database
 * cannot complete someone's sign-in.
 */
export const oidcLogins = sqliteTable(
  "oidc_logins",
  {
    stateHash: text("state_hash").primaryKey(),
    /** PKCE: sent with the code, which only the browser holds. */
    codeVerifier: text("code_verifier").notNull(),
    nonce: text("nonce").notNull(),
    /** The invitation the sign-in redeems for a new person, if it came with one. */
    invitationId: text("invitation_id"),
    /**
     * That invitation's token, AES-GCM-sealed with a key derived from the state (only the
     * browser has it): redeeming takes the token (domain/people/oidc-accounts.ts).
     */
    invitationSealed: text("invitation_sealed"),
    /** A path on this service to land on afterwards (same origin only). */
    returnTo: text("return_to").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("oidc_logins_expires_at").on(t.expiresAt)],
);
