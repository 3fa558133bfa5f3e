/**
 * Shared dashboards (issue 40, docs/dashboard.md "Sharing a dashboard"): a per-site link that
 * opens the site's reports read-only, without a key. Only the SHA-256 of the link's token is
 * stored (looked up by that hash, so an unknown, revoked or expired token all cost one indexed
 * read); `token_prefix` names the link in listings. A password is stored as PBKDF2-SHA256
 * (lib/password.ts), never in clear.
 */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { siteIdColumn } from "./core";

export const shareLinks = sqliteTable(
  "share_links",
  {
    id: text("id").primaryKey(),
    siteId: siteIdColumn(),
    tokenHash: text("token_hash").notNull(),
    /** The token's first characters, to tell links apart in the list (never enough to open one). */
    tokenPrefix: text("token_prefix").notNull(),
    /** `pbkdf2-sha256$ITERATIONS$SALT$HASH` (base64url), or null for a link without a password. */
    passwordHash: text("password_hash"),
    /** After this instant (ms) the link opens nothing; null: until revoked. */
    expiresAt: integer("expires_at"),
    /**
     * The CSP `frame-ancestors` sources the page may be framed by — the site's own hostnames,
     * https and http, any port — fixed when the link is made with `embed`; null: no framing.
     */
    embedOrigin: text("embed_origin"),
    /** Who made it: the principal's id (an API key's or an account's). */
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [uniqueIndex("share_links_token_hash").on(t.tokenHash), index("share_links_site").on(t.siteId)],
);
