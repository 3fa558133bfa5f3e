/**
 * Sign-in with the operator's OpenID provider: the authorization code flow with PKCE, a nonce
 * and a client secret, through oauth4webapi (which does the protocol checks: the `iss`
 * response parameter of RFC 9207, the ID token's signature against the provider's JWKS, its
 * iss/aud/azp/nonce/exp). This module is the protocol; oidc-accounts.ts maps a verified
 * (issuer, subject) to an account.
 *
 * Invariants:
 * - A login is single use: the callback deletes its row (by the state's hash) before it talks
 *   to the provider, so a replayed callback finds nothing.
 * - The state is bound to the browser that started the sign-in: it is also in an HttpOnly
 *   cookie, and a callback whose `state` differs from the cookie's is refused before the row is
 *   touched (no one can finish a sign-in in someone else's browser, nor burn someone's login).
 * - Every outbound request goes through the `fetcher` (the api worker's OIDC_NETWORK binding)
 *   and only to the issuer's origin and the endpoints its discovery document names.
 * - The provider's clock and ours are the real clock: ID token times are checked against
 *   Date.now(); logins expire on the service's clock (`at`, lib/clock.ts).
 */
import * as oauth from "oauth4webapi";
import { and, eq, gt, lte, sql } from "drizzle-orm";
import { sha256Hex, toBase64Url } from "../../lib/crypto";
import type { Database } from "../../lib/db";
import { oidcLogins } from "../../lib/schema";
import type { OidcConfig } from "./oidc-config";
import type { OidcErrorCode } from "../../lib/oidc-errors";

export { OIDC_ERRORS, type OidcErrorCode } from "../../lib/oidc-errors";

/** A sign-in refused; `code` goes to the sign-in screen, nothing from the provider does. */
export class OidcRefusal extends Error {
  constructor(
    readonly code: OidcErrorCode,
    readonly reason?: string,
  ) {
    // For the log: a reason can carry a callback's own text (`error=`), so one printable line, bounded.
    super(reason ? `${code}: ${reason.replace(/[^\x20-\x7e]/g, "?").slice(0, 200)}` : code);
  }
}

/** Outbound HTTP to the provider (the OIDC_NETWORK binding's fetch). */
export type OidcFetch = (url: string, init: RequestInit) => Promise<Response>;

export const LOGIN_TTL_MS = 10 * 60_000;
/**
 * Logins under way at once; more are refused (`busy`) so unauthenticated starts cannot fill the
 * table (a row is ~200 bytes: 20 MB at most). High enough that a flood must be sustained near the
 * start's own throughput (`npm run bench oidc`) for 10 minutes to deny sign-ins.
 */
export const MAX_PENDING_LOGINS = 100_000;
/** Discovery (and with it the JWKS cache) is kept this long per isolate, on the real clock. */
const DISCOVERY_TTL_MS = 60 * 60_000;
/** The cookie that binds a login's state to the browser that started it. */
export const STATE_COOKIE = "wren_oidc_state";
export const CALLBACK_PATH = "/api/v1/auth/oidc/callback";

interface Discovered {
  issuer: string;
  as: oauth.AuthorizationServer;
  origins: Set<string>;
  jwks: oauth.JWKSCacheInput;
  at: number;
}

let discovered: Discovered | undefined;

/** Forgets the cached discovery (tests; and after a failure, so the next sign-in looks again). */
export function forgetDiscovery(): void {
  discovered = undefined;
}

function originOf(url: string | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/** oauth4webapi's HTTP options: our fetcher, to the allowed origins only. */
function httpOptions(config: OidcConfig, fetcher: OidcFetch, origins: Set<string>) {
  return {
    [oauth.allowInsecureRequests]: config.allowInsecure,
    [oauth.customFetch]: (url: string, init: RequestInit) => {
      if (!origins.has(new URL(url).origin))
        return Promise.reject(new Error(`refused: ${new URL(url).origin} is not the provider's`));
      return fetcher(url, { ...init, redirect: "manual" });
    },
    signal: AbortSignal.timeout(10_000),
  };
}

/** The provider's metadata, from discovery at the configured issuer (cached per isolate). */
export async function discover(config: OidcConfig, fetcher: OidcFetch): Promise<Discovered> {
  if (discovered && discovered.issuer === config.issuer && Date.now() - discovered.at < DISCOVERY_TTL_MS) return discovered;
  const issuer = new URL(config.issuer);
  let as: oauth.AuthorizationServer;
  try {
    const response = await oauth.discoveryRequest(issuer, httpOptions(config, fetcher, new Set([issuer.origin])));
    as = await oauth.processDiscoveryResponse(issuer, response);
  } catch (error) {
    throw new OidcRefusal("provider_unavailable", `discovery: ${(error as Error).message}`);
  }
  if (!as.authorization_endpoint || !as.token_endpoint || !as.jwks_uri) {
    throw new OidcRefusal("provider_unavailable", "discovery names no authorization, token or JWKS endpoint");
  }
  const origins = new Set([issuer.origin]);
  for (const endpoint of [as.token_endpoint, as.jwks_uri, as.userinfo_endpoint]) {
    const origin = originOf(endpoint);
    if (origin) origins.add(origin);
  }
  discovered = { issuer: config.issuer, as, origins, jwks: {}, at: Date.now() };
  return discovered;
}

/*
 * The invitation token travels through the provider's round trip sealed in the login row with a
 * key derived from the state (AES-GCM): the database alone cannot recover it, and the state is
 * only in the browser.
 */
const encoder = new TextEncoder();

async function sealKey(state: string): Promise<CryptoKey> {
  const raw = await crypto.subtle.digest("SHA-256", encoder.encode(`wren-oidc-invitation\u0000${state}`));
  return crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

function fromBase64Url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
}

/** The invitation token sealed under the state (for oidc_logins.invitation_sealed). */
export async function sealInvitation(state: string, token: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await sealKey(state), encoder.encode(token)),
  );
  const out = new Uint8Array(iv.length + sealed.length);
  out.set(iv);
  out.set(sealed, iv.length);
  return toBase64Url(out);
}

/** The invitation token back, or null when the seal does not open with this state. */
export async function openInvitation(state: string, sealed: string): Promise<string | null> {
  try {
    const bytes = fromBase64Url(sealed);
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes.slice(0, 12) }, await sealKey(state), bytes.slice(12));
    return new TextDecoder().decode(plain);
  } catch {
    return null;
  }
}

/** The absolute path (and query) to land on after signing in: same origin only, else the dashboard. */
export function safeReturnTo(value: string | undefined, publicUrl: string): string {
  const fallback = "/dashboard/";
  // Backslashes, white space and control characters (below U+0021) are refused outright.
  const unsafe = [...(value ?? "")].some((c) => c === "\\" || c.charCodeAt(0) < 0x21);
  if (!value || value.length > 512 || !value.startsWith("/") || value.startsWith("//") || unsafe) return fallback;
  try {
    const base = new URL(publicUrl);
    const url = new URL(value, base);
    if (url.origin !== base.origin) return fallback;
    return `${url.pathname}${url.search}`;
  } catch {
    return fallback;
  }
}

export interface BeganLogin {
  /** The provider's authorization URL, for the 302. */
  location: string;
  /** For the state cookie. */
  state: string;
}

/**
 * Starts a sign-in: stores the login (state hashed, PKCE verifier, nonce, invitation, where to
 * go afterwards) for 10 minutes and answers the provider's authorization URL.
 */
export async function beginLogin(
  db: Database,
  config: OidcConfig,
  fetcher: OidcFetch,
  input: { redirectUri: string; invitation: { id: string; token: string } | null; returnTo: string; at: number },
): Promise<BeganLogin> {
  const { as } = await discover(config, fetcher);
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const challenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
  await db.delete(oidcLogins).where(lte(oidcLogins.expiresAt, input.at));
  const [pending] = await db
    .select({ n: sql<number>`count(*)` })
    .from(oidcLogins)
    .where(gt(oidcLogins.expiresAt, input.at));
  if ((pending?.n ?? 0) >= MAX_PENDING_LOGINS) throw new OidcRefusal("busy");
  await db.insert(oidcLogins).values({
    stateHash: await sha256Hex(state),
    codeVerifier,
    nonce,
    invitationId: input.invitation?.id ?? null,
    invitationSealed: input.invitation ? await sealInvitation(state, input.invitation.token) : null,
    returnTo: input.returnTo,
    expiresAt: input.at + LOGIN_TTL_MS,
  });
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set("client_id", config.clientId);
  url.searchParams.set("redirect_uri", input.redirectUri);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("scope", config.scopes);
  url.searchParams.set("state", state);
  url.searchParams.set("nonce", nonce);
  url.searchParams.set("code_challenge", challenge);
  url.searchParams.set("code_challenge_method", "S256");
  return { location: url.href, state };
}

/** What a verified ID token says of the person. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

export interface CompletedLogin {
  identity: VerifiedIdentity;
  /** The invitation token the sign-in started with, unsealed. */
  invitationToken: string | null;
  returnTo: string;
}

/** Which check of oauth4webapi refused the ID token, as our error code. */
function refusalOf(error: unknown): OidcRefusal {
  if (error instanceof OidcRefusal) return error;
  if (error instanceof oauth.AuthorizationResponseError || error instanceof oauth.ResponseBodyError) {
    return new OidcRefusal("provider_refused", error.error);
  }
  if (error instanceof oauth.OperationProcessingError) {
    const claim = (error.cause as { claim?: string; attribute?: string } | undefined)?.claim;
    if (error.code === oauth.JWT_CLAIM_COMPARISON) {
      if (claim === "nonce") return new OidcRefusal("nonce_mismatch", error.message);
      if (claim === "aud" || claim === "azp") return new OidcRefusal("audience_mismatch", error.message);
      if (claim === "iss") return new OidcRefusal("issuer_mismatch", error.message);
    }
    return new OidcRefusal("id_token_invalid", error.message);
  }
  if (error instanceof TypeError || (error instanceof Error && /refused|network|fetch|timed? ?out|abort/i.test(error.message))) {
    return new OidcRefusal("provider_unavailable", (error as Error).message);
  }
  return new OidcRefusal("id_token_invalid", error instanceof Error ? error.message : String(error));
}

/**
 * Finishes a sign-in from the callback's URL: the state must equal the browser's cookie and
 * name a login that has not expired (which is deleted now, whatever follows); then oauth4webapi
 * checks the response's issuer, redeems the code with the PKCE verifier and the client secret,
 * and verifies the ID token (signature, iss, aud, azp, exp, nonce). Throws OidcRefusal.
 */
export async function completeLogin(
  db: Database,
  config: OidcConfig,
  fetcher: OidcFetch,
  input: { redirectUri: string; callback: URL; cookieState: string | undefined; at: number },
): Promise<CompletedLogin> {
  const state = input.callback.searchParams.get("state");
  if (!state || !input.cookieState || state.length > 256 || state !== input.cookieState) throw new OidcRefusal("state_mismatch");
  const [login] = await db
    .delete(oidcLogins)
    .where(eq(oidcLogins.stateHash, await sha256Hex(state)))
    .returning();
  if (!login) throw new OidcRefusal("state_mismatch");
  if (login.expiresAt <= input.at) throw new OidcRefusal("login_expired");
  const invitationToken = login.invitationSealed ? await openInvitation(state, login.invitationSealed) : null;

  try {
    const provider = await discover(config, fetcher);
    const { as } = provider;
    const client: oauth.Client = { client_id: config.clientId };
    let parameters: URLSearchParams;
    try {
      parameters = oauth.validateAuthResponse(as, client, input.callback, state);
    } catch (error) {
      if (error instanceof oauth.OperationProcessingError && /"iss"/.test(error.message)) {
        throw new OidcRefusal("issuer_mismatch", error.message);
      }
      throw error;
    }
    const options = { ...httpOptions(config, fetcher, provider.origins), [oauth.jwksCache]: provider.jwks };
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(config.clientSecret),
      parameters,
      input.redirectUri,
      login.codeVerifier,
      options,
    );
    const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: login.nonce,
      requireIdToken: true,
    });
    const claims = oauth.getValidatedIdTokenClaims(result)!;
    const email = typeof claims.email === "string" && claims.email.length <= 254 ? claims.email.trim().toLowerCase() : null;
    const name = typeof claims.name === "string" && claims.name.trim() ? claims.name.trim().slice(0, 100) : null;
    return {
      identity: {
        issuer: claims.iss,
        subject: claims.sub,
        email,
        emailVerified: email !== null && claims.email_verified === true,
        name,
      },
      invitationToken,
      returnTo: login.returnTo,
    };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.code === "provider_unavailable") forgetDiscovery();
    throw refusal;
  }
}

/** Deletes logins past their expiry (also done at every start). */
export async function pruneLogins(db: Database, at: number): Promise<void> {
  await db.delete(oidcLogins).where(and(lte(oidcLogins.expiresAt, at)));
}
