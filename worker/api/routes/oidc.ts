/**
 * Sign-in with the operator's OpenID provider (domain/people/oidc.ts): `start` sends the browser
 * to the provider, `callback` takes it back, signs the person in and sends them to the
 * dashboard. Both are public (no key) GETs that a browser navigates, so every outcome is a 302:
 * to the provider, to the dashboard, or to the dashboard's sign-in with `?sign_in_error=CODE`
 * (one of OIDC_ERRORS' codes; nothing the provider said is echoed). Only a malformed query (400)
 * and a database that does not answer (503) are problem documents.
 */
import { z } from "zod";
import { oidcConfig, oidcRedirectUri, type OidcConfig } from "../../domain/people/oidc-config";
import { signInIdentity } from "../../domain/people/oidc-accounts";
import {
  beginLogin,
  CALLBACK_PATH,
  completeLogin,
  LOGIN_TTL_MS,
  OidcRefusal,
  safeReturnTo,
  STATE_COOKIE,
  type OidcErrorCode,
  type OidcFetch,
} from "../../domain/people/oidc";
import { findUsableInvitation, INVITATION_TOKEN } from "../../domain/people/invitations";
import { sessionSettings, sessionTokenFrom } from "../../domain/people/sessions";
import { now } from "../../lib/clock";
import { HttpProblem } from "../../lib/problem";
import type { ApiEnv } from "../env";
import { route } from "../registry";
import type { HeaderSpec } from "../reply";

const LOCATION: HeaderSpec = {
  description: "Where the browser goes next.",
  required: true,
  schema: { type: "string" },
};
const SET_COOKIE: HeaderSpec = {
  description: "The sign-in's state cookie (start), the new `wren_session` and the state cookie cleared (callback).",
  required: false,
  schema: { type: "string" },
};
const REDIRECT = { headers: { Location: LOCATION, "Set-Cookie": SET_COOKIE } };

/** The settings, or null when not configured (a bad value is logged; `wren start` refuses it first). */
function configOf(env: ApiEnv): OidcConfig | null {
  try {
    return oidcConfig(env);
  } catch (error) {
    console.error(`wren: OIDC sign-in is off: ${(error as Error).message}`);
    return null;
  }
}

/** The provider is reached through the oidc-network binding only (global fetch reaches nothing). */
function fetcherOf(env: ApiEnv): OidcFetch {
  const network = env.OIDC_NETWORK;
  return network ? (url, init) => network.fetch(url, init) : (url, init) => fetch(url, init);
}

const signInWith = (code: OidcErrorCode) => `/dashboard/?sign_in_error=${code}`;

function stateCookie(value: string, secure: boolean, maxAgeS: number): string {
  // Lax, not Strict: it must come back on the provider's top-level redirect to the callback.
  return `${STATE_COOKIE}=${value}; HttpOnly; SameSite=Lax; Path=/api/v1/auth/oidc; Max-Age=${maxAgeS}${secure ? "; Secure" : ""}`;
}

function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

/** A 302 with any number of Set-Cookie headers (a reply's headers hold one of each). */
function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store", "referrer-policy": "no-referrer" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 302, headers });
}

const startQuery = z.strictObject({
  invitation: z
    .string()
    .regex(INVITATION_TOKEN, "must be an invitation token")
    .optional()
    .meta({ param: { description: "An invitation's token: a new person joins with its role on signing in." } }),
  return_to: z
    .string()
    .max(512)
    .optional()
    .meta({ param: { description: "A path on this service to land on afterwards; anything else is ignored (the dashboard)." } }),
});

const param = (description: string) => z.string().max(4096).optional().meta({ param: { description } });

// Loose: providers add their own parameters (Keycloak's session_state).
const callbackQuery = z.looseObject({
  code: param("The authorization code."),
  state: param("The state `start` sent; must equal the browser's state cookie."),
  iss: param("The issuer (RFC 9207); when present it must be the configured one."),
  error: param("The provider's refusal, e.g. access_denied."),
  error_description: param("The provider's words on it (never shown)."),
});

export const oidcRoutes = [
  route({
    operationId: "createOidcSignIn",
    method: "GET",
    path: "/api/v1/auth/oidc/start",
    summary: "Sign in with the operator's OpenID provider: redirects the browser there",
    tag: "People",
    auth: "public",
    scope: "any",
    query: startQuery,
    responses: {
      302: {
        description:
          "To the provider's authorization endpoint (authorization code + PKCE, with a state cookie), or to the dashboard's sign-in with `?sign_in_error=` (not_configured, invitation_invalid, provider_unavailable, busy).",
        ...REDIRECT,
      },
      503: { description: "The database is not answering; nothing was written. Retry after Retry-After." },
    },
    async handle({ db, env, query, baseUrl, forward }) {
      const config = configOf(env);
      if (!config) return forward(redirect(signInWith("not_configured")));
      const at = now();
      try {
        let invitation: { id: string; token: string } | null = null;
        if (query.invitation) {
          const found = await findUsableInvitation(db, query.invitation, at).catch((error: unknown) => {
            if (error instanceof HttpProblem && error.status === 401) throw new OidcRefusal("invitation_invalid");
            throw error;
          });
          invitation = { id: found.id, token: query.invitation };
        }
        const began = await beginLogin(db, config, fetcherOf(env), {
          redirectUri: oidcRedirectUri(baseUrl),
          invitation,
          returnTo: safeReturnTo(query.return_to, baseUrl),
          at,
        });
        const secure = sessionSettings(env).secure;
        return forward(redirect(began.location, [stateCookie(began.state, secure, LOGIN_TTL_MS / 1000)]));
      } catch (error) {
        if (!(error instanceof OidcRefusal)) throw error;
        console.warn(`wren: OIDC sign-in not started: ${error.message}`);
        return forward(redirect(signInWith(error.code)));
      }
    },
  }),
  route({
    operationId: "recordOidcCallback",
    method: "GET",
    path: CALLBACK_PATH,
    summary: "The provider's redirect back: signs the person in and redirects to the dashboard",
    tag: "People",
    auth: "public",
    scope: "any",
    query: callbackQuery,
    responses: {
      302: {
        description:
          "Signed in: to the dashboard (or the sign-in's `return_to`) with a new `wren_session` cookie. Refused: to the dashboard's sign-in with `?sign_in_error=` (state_mismatch, login_expired, issuer_mismatch, nonce_mismatch, audience_mismatch, id_token_invalid, provider_refused, provider_unavailable, unknown_identity, invitation_invalid, account_disabled, not_configured); nothing is written but the spent sign-in.",
        ...REDIRECT,
      },
      503: { description: "The database is not answering; nothing was written. Retry after Retry-After." },
    },
    async handle({ db, env, request, baseUrl, forward }) {
      const secure = sessionSettings(env).secure;
      const clearState = stateCookie("", secure, 0);
      const config = configOf(env);
      if (!config) return forward(redirect(signInWith("not_configured"), [clearState]));
      const at = now();
      try {
        const completed = await completeLogin(db, config, fetcherOf(env), {
          redirectUri: oidcRedirectUri(baseUrl),
          callback: new URL(request.url),
          cookieState: cookieValue(request, STATE_COOKIE),
          at,
        });
        const signedIn = await signInIdentity(db, completed.identity, {
          invitationToken: completed.invitationToken,
          linkByEmail: config.linkByEmail,
          presentedSession: sessionTokenFrom(request),
          userAgent: request.headers.get("user-agent"),
          settings: sessionSettings(env),
          at,
        });
        return forward(redirect(completed.returnTo, [signedIn.cookie, clearState]));
      } catch (error) {
        if (!(error instanceof OidcRefusal)) throw error;
        console.warn(`wren: OIDC sign-in refused: ${error.message}`);
        // A state that is not this browser's spent nothing: its own sign-in may still be under way.
        return forward(redirect(signInWith(error.code), error.code === "state_mismatch" ? [] : [clearState]));
      }
    },
  }),
];
