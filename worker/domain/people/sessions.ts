/**
 * Dashboard sessions: the `wren_session` cookie. The cookie holds a random 32-byte token and
 * only its SHA-256 is stored, with the SHA-256 of the session's CSRF token. A session ends
 * idle (WREN_SESSION_IDLE_HOURS, default 12 h since last seen), at its absolute expiry
 * (WREN_SESSION_MAX_DAYS, default 7 days after sign-in), or when revoked — by its owner, by
 * signing out, or with every session of an account removed or disabled. Times are the
 * injectable clock's (lib/clock.ts). `last_seen_at` is written at most once a minute.
 *
 * Fixation: every sign-in makes a new token (startSession); a cookie presented at sign-in is
 * revoked by the caller (revokeByCookie), never reused.
 */
import { and, desc, eq, gt, isNull } from "drizzle-orm";
import UAParser from "ua-parser-js";
import { now } from "../../lib/clock";
import { randomToken, sha256Hex, toBase64Url } from "../../lib/crypto";
import type { Database } from "../../lib/db";
import { newId } from "../../lib/ids";
import { HttpProblem } from "../../lib/problem";
import { accountGrants, accounts, dashboardSessions } from "../../lib/schema";
import { callerForAccount, type Caller } from "../access";

export const SESSION_COOKIE = "wren_session";
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** last_seen_at moves at most this often: one write a minute, not one a request. */
const TOUCH_EVERY_MS = 60_000;

export interface SessionSettings {
  idleMs: number;
  maxMs: number;
  /** Adds `Secure` to the cookie (WREN_PUBLIC_URL is https). */
  secure: boolean;
}

export interface SessionEnv {
  WREN_SESSION_IDLE_HOURS?: string | null;
  WREN_SESSION_MAX_DAYS?: string | null;
  WREN_PUBLIC_URL?: string | null;
}

function positive(value: string | null | undefined, fallback: number): number {
  const n = Number(value);
  return value && Number.isFinite(n) && n > 0 ? n : fallback;
}

export function sessionSettings(env: SessionEnv): SessionSettings {
  return {
    idleMs: positive(env.WREN_SESSION_IDLE_HOURS, 12) * HOUR_MS,
    maxMs: positive(env.WREN_SESSION_MAX_DAYS, 7) * DAY_MS,
    secure: (env.WREN_PUBLIC_URL ?? "").startsWith("https:"),
  };
}

/** Browser family and OS only ("Chrome on Linux"): no version, no device, no full UA. */
export function userAgentLabel(userAgent: string | null | undefined): string {
  const { browser, os } = new UAParser(userAgent ?? "").getResult();
  const label = [browser.name, os.name].filter(Boolean).join(" on ");
  return label || "Unknown browser";
}

export function sessionCookie(token: string, settings: Pick<SessionSettings, "secure" | "maxMs">): string {
  const maxAge = Math.floor(settings.maxMs / 1000);
  return `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}${settings.secure ? "; Secure" : ""}`;
}

/** A Set-Cookie value that clears the cookie. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${secure ? "; Secure" : ""}`;
}

/** The session token in a request's Cookie header, if any. */
export function sessionTokenFrom(request: Request): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === SESSION_COOKIE) {
      const value = rest.join("=");
      return /^[A-Za-z0-9_-]{20,100}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export interface StartedSession {
  /** The Set-Cookie value. */
  cookie: string;
  csrfToken: string;
  sessionId: string;
}

/**
 * Starts a session for an account after a successful sign-in: a new token every time. `settings`
 * defaults to the built-in expiry (12 h idle, 7 days absolute, no Secure).
 */
export async function startSession(
  db: Database,
  input: { accountId: string; method: "passkey" | "oidc"; userAgent: string | null; now?: number; settings?: SessionSettings },
): Promise<StartedSession> {
  const at = input.now ?? now();
  const settings = input.settings ?? sessionSettings({});
  const token = randomToken(32);
  const csrfToken = await csrfTokenFor(token);
  const id = newId("ses");
  await db.insert(dashboardSessions).values({
    id,
    tokenHash: await sha256Hex(token),
    csrfHash: await sha256Hex(csrfToken),
    accountId: input.accountId,
    method: input.method,
    createdAt: at,
    lastSeenAt: at,
    expiresAt: at + settings.maxMs,
    userAgentLabel: userAgentLabel(input.userAgent),
  });
  return { cookie: sessionCookie(token, settings), csrfToken, sessionId: id };
}

export type SessionRow = typeof dashboardSessions.$inferSelect;

export interface ActiveSession {
  session: SessionRow;
  caller: Caller;
}

/**
 * The live session a cookie token names, with its account's caller; undefined when unknown,
 * revoked, idle too long, past its absolute expiry, or its account disabled or without grants.
 */
export async function findSession(
  db: Database,
  token: string,
  settings: SessionSettings,
  at = now(),
): Promise<ActiveSession | undefined> {
  const tokenHash = await sha256Hex(token);
  const rows = await db
    .select({ session: dashboardSessions, account: accounts })
    .from(dashboardSessions)
    .innerJoin(accounts, eq(accounts.id, dashboardSessions.accountId))
    .where(and(eq(dashboardSessions.tokenHash, tokenHash), isNull(dashboardSessions.revokedAt), isNull(accounts.disabledAt)));
  const found = rows[0];
  if (!found) return undefined;
  const { session, account } = found;
  if (at >= session.expiresAt || at >= session.lastSeenAt + settings.idleMs) return undefined;
  const grants = await db
    .select({ siteId: accountGrants.siteId, role: accountGrants.role })
    .from(accountGrants)
    .where(eq(accountGrants.accountId, account.id));
  if (grants.length === 0) return undefined;
  if (at - session.lastSeenAt >= TOUCH_EVERY_MS) {
    await db.update(dashboardSessions).set({ lastSeenAt: at }).where(eq(dashboardSessions.id, session.id));
  }
  return {
    session,
    caller: callerForAccount({ id: account.id, name: account.name, createdAt: account.createdAt, sessionId: session.id }, grants),
  };
}

export async function csrfMatches(session: SessionRow, presented: string | null): Promise<boolean> {
  if (!presented || presented.length > 100) return false;
  return (await sha256Hex(presented)) === session.csrfHash;
}

/**
 * A session's CSRF token: derived from the cookie's token (SHA-256 of a labelled copy), so GET
 * /session can hand it out again to every tab of the session while only its hash is stored,
 * and only a reader of the HttpOnly cookie — the server — can compute it.
 */
export async function csrfTokenFor(cookieToken: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`wren-csrf:${cookieToken}`));
  return toBase64Url(new Uint8Array(digest));
}

export async function findSessionById(db: Database, id: string): Promise<SessionRow> {
  const row = (await db.select().from(dashboardSessions).where(eq(dashboardSessions.id, id)))[0];
  if (!row) throw new HttpProblem(404, `No session ${id}.`, { field: "id" });
  return row;
}

/** Revokes the session a presented cookie names, if any (sign-out, and fixation at sign-in). */
export async function revokeByCookie(db: Database, token: string | undefined, at = now()): Promise<void> {
  if (!token) return;
  await db
    .update(dashboardSessions)
    .set({ revokedAt: at })
    .where(and(eq(dashboardSessions.tokenHash, await sha256Hex(token)), isNull(dashboardSessions.revokedAt)));
}

/** Revokes one of the account's own sessions (404 when it has no such live session). */
export async function revokeSession(db: Database, accountId: string, sessionId: string, at = now()): Promise<void> {
  const rows = await db
    .update(dashboardSessions)
    .set({ revokedAt: at })
    .where(
      and(eq(dashboardSessions.id, sessionId), eq(dashboardSessions.accountId, accountId), isNull(dashboardSessions.revokedAt)),
    )
    .returning({ id: dashboardSessions.id });
  if (rows.length === 0) throw new HttpProblem(404, `No active session ${sessionId}.`, { field: "id" });
}

/** The statement that ends every session of an account: run in the same batch as its removal. */
export function revokeAllSessionsStatement(db: Database, accountId: string, at: number) {
  return db
    .update(dashboardSessions)
    .set({ revokedAt: at })
    .where(and(eq(dashboardSessions.accountId, accountId), isNull(dashboardSessions.revokedAt)));
}

/** The account's live sessions, newest first. */
export async function listSessions(
  db: Database,
  accountId: string,
  settings: SessionSettings,
  at = now(),
): Promise<SessionRow[]> {
  const rows = await db
    .select()
    .from(dashboardSessions)
    .where(
      and(eq(dashboardSessions.accountId, accountId), isNull(dashboardSessions.revokedAt), gt(dashboardSessions.expiresAt, at)),
    )
    .orderBy(desc(dashboardSessions.createdAt));
  return rows.filter((s) => at < s.lastSeenAt + settings.idleMs);
}
