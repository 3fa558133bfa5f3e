/**
 * People (issue 40): accounts and their per-site roles, passkeys, dashboard sessions,
 * invitations and WebAuthn challenges. Secrets are never stored: a session's cookie token, its
 * CSRF token and an invitation's token are kept as SHA-256 hex only; a passkey's public key is
 * not a secret. Nothing here identifies a visitor; a session keeps a coarse UA label, no IP.
 */
import { index, integer, primaryKey, sqliteTable, text, blob, uniqueIndex } from "drizzle-orm/sqlite-core";

export const ROLES = ["viewer", "editor", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** A person who signs in to the dashboard. */
export const accounts = sqliteTable(
  "accounts",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    email: text("email"),
    createdAt: integer("created_at").notNull(),
    disabledAt: integer("disabled_at"),
  },
  (t) => [uniqueIndex("accounts_email_unique").on(t.email)],
);

/** A role on one site, or on every site (`site_id = '*'`). */
export const accountGrants = sqliteTable(
  "account_grants",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    siteId: text("site_id").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.siteId] }), index("account_grants_site").on(t.siteId)],
);

/** A WebAuthn credential; `id` is the credential id (base64url). */
export const passkeys = sqliteTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    publicKey: blob("public_key", { mode: "buffer" }).notNull(),
    counter: integer("counter").notNull().default(0),
    transports: text("transports", { mode: "json" }).$type<string[]>(),
    name: text("name").notNull(),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
  },
  (t) => [index("passkeys_account").on(t.accountId)],
);

/** A signed-in dashboard: the cookie's token and the CSRF token are stored hashed. */
export const dashboardSessions = sqliteTable(
  "dashboard_sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    csrfHash: text("csrf_hash").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    method: text("method", { enum: ["passkey", "oidc"] }).notNull(),
    createdAt: integer("created_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
    /** Absolute expiry; idle expiry is judged from last_seen_at. */
    expiresAt: integer("expires_at").notNull(),
    revokedAt: integer("revoked_at"),
    /** Browser family and OS only (ua-parser-js), never the full User-Agent. */
    userAgentLabel: text("user_agent_label").notNull(),
  },
  (t) => [uniqueIndex("dashboard_sessions_token").on(t.tokenHash), index("dashboard_sessions_account").on(t.accountId)],
);

/** A one-time link binding a site (or '*') and a role. */
export const invitations = sqliteTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    siteId: text("site_id").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    email: text("email"),
    /** The inviting principal's id (`acct_…`, `key_…`, or `system` from the CLI). */
    invitedBy: text("invited_by").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    usedBy: text("used_by"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [uniqueIndex("invitations_token").on(t.tokenHash)],
);

/** A WebAuthn challenge handed out for one ceremony: single use, 5 minutes. */
export const webauthnChallenges = sqliteTable("webauthn_challenges", {
  id: text("id").primaryKey(),
  challenge: text("challenge").notNull(),
  purpose: text("purpose", { enum: ["register", "sign-in"] }).notNull(),
  invitationId: text("invitation_id"),
  accountId: text("account_id"),
  expiresAt: integer("expires_at").notNull(),
});
