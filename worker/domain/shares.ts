/**
 * Shared dashboard links (docs/dashboard.md "Sharing a dashboard"): made, listed and revoked by a
 * site's admins (`write:sites` on the site), opened by anyone holding the link. A link's token is
 * 32 random bytes (base64url), shown once; only its SHA-256 is stored and every lookup goes by
 * that hash, so an unknown, a revoked and an expired token cost the same indexed read and get the
 * same answer. A link reads exactly what a `read:reports` key on its one site reads (shareCaller):
 * the same routes, report functions and k-filter, never more.
 *
 * A password link also needs the unlock cookie: `wren_share_<id>` = `EXPIRES.MAC`, MAC =
 * HMAC-SHA256(server secret, "share-unlock:" id ":" EXPIRES), short-lived, HttpOnly and
 * SameSite=Strict, so only this origin's own requests carry it and the page's script cannot read it.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import { now } from "../lib/clock";
import { constantTimeEqual, hmacSha256, randomToken, serverHmacKey, sha256Hex, toBase64Url } from "../lib/crypto";
import { preparedQuery, type Database } from "../lib/db";
import { newId } from "../lib/ids";
import { hashPassword, verifyPassword } from "../lib/password";
import { HttpProblem } from "../lib/problem";
import { shareLinks } from "../lib/schema";
import { callerFor, type Caller } from "./access";
import type { ApiKeyRow } from "./apikeys";
import { requireSite, type SiteRow } from "./sites";

export type ShareRow = typeof shareLinks.$inferSelect;

/** What a link's reader may do: a `read:reports` key's reads on the link's site, and its name and goal names. */
export const SHARE_SCOPES = ["read:reports", "read:sites"] as const;

/** How long an unlock lasts before the password is asked again. */
export const UNLOCK_TTL_MS = 2 * 60 * 60 * 1000;
/** Shown in listings: enough to tell links apart, far too little to guess one. */
const PREFIX_LENGTH = 6;
/** Tokens are 43 characters; anything much longer is not one (and is not hashed). */
const MAX_TOKEN_LENGTH = 64;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+$/;

export interface NewShare {
  password?: string | undefined;
  /** ms since the epoch; must be in the future. */
  expiresAt?: number | undefined;
  embed?: boolean | undefined;
  createdBy: string;
}

/**
 * The CSP `frame-ancestors` sources of a site: each of its own hostnames (its domain and the
 * hostnames on its beacon allowlist), https and http, any port — as the collector takes beacons
 * from those hostnames whatever the scheme and port.
 */
export function frameAncestorsOf(site: Pick<SiteRow, "domain" | "allowlist">): string[] {
  const hosts = [...new Set([site.domain, ...site.allowlist])];
  return hosts.flatMap((host) => [`https://${host}:*`, `http://${host}:*`]);
}

export async function createShare(db: Database, siteId: string, input: NewShare): Promise<{ row: ShareRow; token: string }> {
  const site = await requireSite(db, siteId);
  if (input.expiresAt !== undefined && input.expiresAt <= now())
    throw new HttpProblem(422, "expires_at: must be in the future", { field: "expires_at" });
  const token = randomToken(32);
  const [row] = await db
    .insert(shareLinks)
    .values({
      id: newId("shr"),
      siteId: site.id,
      tokenHash: await sha256Hex(token),
      tokenPrefix: token.slice(0, PREFIX_LENGTH),
      passwordHash: input.password === undefined ? null : await hashPassword(input.password),
      expiresAt: input.expiresAt ?? null,
      embedOrigin: input.embed ? frameAncestorsOf(site).join(" ") : null,
      createdBy: input.createdBy,
      createdAt: now(),
    })
    .returning();
  return { row: row!, token };
}

/** The site's links that are not revoked (expired ones too, so an admin sees and revokes them), oldest first. */
export async function listShares(db: Database, siteId: string): Promise<ShareRow[]> {
  await requireSite(db, siteId);
  return db
    .select()
    .from(shareLinks)
    .where(and(eq(shareLinks.siteId, siteId), isNull(shareLinks.revokedAt)))
    .orderBy(shareLinks.createdAt, sql`rowid`);
}

/** Revokes a link of the site: it opens nothing from now on (404 when the site has no such live link). */
export async function revokeShare(db: Database, siteId: string, shareId: string): Promise<ShareRow> {
  const [row] = await db
    .update(shareLinks)
    .set({ revokedAt: now() })
    .where(and(eq(shareLinks.id, shareId), eq(shareLinks.siteId, siteId), isNull(shareLinks.revokedAt)))
    .returning();
  if (!row) throw new HttpProblem(404, `No share link ${shareId} on site ${siteId}.`, { field: "share" });
  return row;
}

function isOpen(row: ShareRow | undefined, at: number): row is ShareRow {
  return row !== undefined && row.revokedAt === null && (row.expiresAt === null || row.expiresAt > at);
}

/** Every read through a link runs this lookup, so it is prepared once (as a key's is). */
const shareByHash = preparedQuery((db) =>
  db.query.shareLinks.findFirst({ where: eq(shareLinks.tokenHash, sql.placeholder("hash")) }).prepare(),
);

/** The link a token opens now, or undefined — for an unknown, a revoked and an expired token alike. */
export async function findOpenShare(db: Database, token: string): Promise<ShareRow | undefined> {
  if (token.length > MAX_TOKEN_LENGTH || !TOKEN_SHAPE.test(token)) return undefined;
  const row = await shareByHash(db).execute({ hash: await sha256Hex(token) });
  return isOpen(row, now()) ? row : undefined;
}

/**
 * A link's reader as the API sees it: `read:reports` and `read:sites` on the link's site, nothing
 * else; its principal is the link (kind `share`), so rate limits and the audit name the link.
 */
export function shareCaller(share: ShareRow): Caller {
  const key: ApiKeyRow = {
    id: share.id,
    name: `share link ${share.tokenPrefix}…`,
    prefix: share.tokenPrefix,
    secretHash: "",
    scopes: [...SHARE_SCOPES],
    sites: [share.siteId],
    rateRequests: null,
    ratePerSeconds: null,
    createdAt: share.createdAt,
    lastUsedAt: null,
    revokedAt: null,
  };
  const caller: Caller = {
    ...callerFor(key),
    principal: { kind: "share", id: share.id, name: key.name },
    // The same scopes on its one site: narrowing to a route's scope changes nothing.
    forScope: () => caller,
  };
  return caller;
}

/** The site a share caller reads (its one site). */
export function sharedSiteOf(caller: Caller): string {
  if (caller.principal.kind !== "share" || !caller.key.sites?.[0])
    throw new HttpProblem(401, "Not a share link.", { field: "authorization" });
  return caller.key.sites[0];
}

export function shareCookieName(shareId: string): string {
  return `wren_share_${shareId}`;
}

async function unlockMac(secret: string, shareId: string, expires: number): Promise<string> {
  return toBase64Url(await hmacSha256(await serverHmacKey(secret), `share-unlock:${shareId}:${expires}`));
}

/** Whether the password is the link's (a link without one needs none). */
export async function checkSharePassword(share: ShareRow, password: string): Promise<boolean> {
  return share.passwordHash === null || verifyPassword(password, share.passwordHash);
}

/** The Set-Cookie value that unlocks a password link for UNLOCK_TTL_MS. */
export async function unlockCookie(secret: string, share: ShareRow, secure: boolean): Promise<string> {
  const expires = now() + UNLOCK_TTL_MS;
  const value = `${expires}.${await unlockMac(secret, share.id, expires)}`;
  return `${shareCookieName(share.id)}=${value}; Max-Age=${UNLOCK_TTL_MS / 1000}; Path=/; HttpOnly; SameSite=Strict${secure ? "; Secure" : ""}`;
}

/** Whether the request carries an unexpired unlock cookie for this link (always, for a link without a password). */
export async function isUnlocked(request: Request, secret: string, share: ShareRow): Promise<boolean> {
  if (share.passwordHash === null) return true;
  const name = shareCookieName(share.id);
  const cookies = (request.headers.get("cookie") ?? "").split(";").map((part) => part.trim());
  const value = cookies.find((part) => part.startsWith(`${name}=`))?.slice(name.length + 1);
  const match = value ? /^(\d{13,16})\.([A-Za-z0-9_-]{43})$/.exec(value) : null;
  if (!match) return false;
  const expires = Number(match[1]);
  if (expires <= now()) return false;
  return constantTimeEqual(await unlockMac(secret, share.id, expires), match[2]!);
}
