/**
 * The OpenID Connect settings, from the environment (WREN_OIDC_ISSUER and the rest), read the same way by the api
 * worker and by `wren start` / `wren oidc check` (which refuse a bad value before anything
 * runs). OIDC is configured when the issuer and the client id are set; the client secret is
 * required with them (Wren is a confidential client: authorization code + PKCE + secret).
 */
import ipaddr from "ipaddr.js";
import { parseWebhookAllow, type WebhookAllow } from "../../lib/webhook-allow";

export interface OidcEnv {
  WREN_OIDC_ISSUER?: string | null;
  WREN_OIDC_CLIENT_ID?: string | null;
  WREN_OIDC_CLIENT_SECRET?: string | null;
  WREN_OIDC_NAME?: string | null;
  WREN_OIDC_LINK_BY_EMAIL?: string | null;
  WREN_OIDC_SCOPES?: string | null;
  WREN_OIDC_ALLOW?: string | null;
}

export interface OidcConfig {
  /** The issuer identifier as configured (discovery must answer with exactly this). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The button's label: "Sign in with NAME". */
  name: string;
  /** An unknown subject may join an account whose email equals its verified email. */
  linkByEmail: boolean;
  scopes: string;
  /** Addresses beyond public ones the provider may be reached at (WREN_OIDC_ALLOW). */
  allow: WebhookAllow;
  /** Plain http:// to the provider: only for a host WREN_OIDC_ALLOW names (tests, a local Keycloak). */
  allowInsecure: boolean;
}

export const DEFAULT_OIDC_SCOPES = "openid email profile";
export const DEFAULT_OIDC_NAME = "your identity provider";

/** A setting that is wrong; the message names the variable. */
export class OidcConfigError extends Error {}

const trimmed = (value: string | null | undefined) => (value ?? "").trim();

/** The settings, null when OIDC is not configured; throws OidcConfigError for a bad value. */
export function oidcConfig(env: OidcEnv): OidcConfig | null {
  const issuerText = trimmed(env.WREN_OIDC_ISSUER);
  const clientId = trimmed(env.WREN_OIDC_CLIENT_ID);
  if (!issuerText && !clientId) return null;
  if (!issuerText) throw new OidcConfigError("WREN_OIDC_ISSUER must be set with WREN_OIDC_CLIENT_ID");
  if (!clientId) throw new OidcConfigError("WREN_OIDC_CLIENT_ID must be set with WREN_OIDC_ISSUER");
  const clientSecret = trimmed(env.WREN_OIDC_CLIENT_SECRET);
  if (!clientSecret) throw new OidcConfigError("WREN_OIDC_CLIENT_SECRET must be set: Wren signs in as a confidential client");
  let issuer: URL;
  try {
    issuer = new URL(issuerText);
  } catch {
    throw new OidcConfigError(`WREN_OIDC_ISSUER must be an https:// URL, got "${issuerText}"`);
  }
  if (
    (issuer.protocol !== "https:" && issuer.protocol !== "http:") ||
    issuer.search ||
    issuer.hash ||
    issuer.username ||
    issuer.password
  ) {
    throw new OidcConfigError(`WREN_OIDC_ISSUER must be an https:// URL without query or credentials, got "${issuerText}"`);
  }
  let allow: WebhookAllow;
  try {
    allow = parseWebhookAllow(env.WREN_OIDC_ALLOW);
  } catch (error) {
    throw new OidcConfigError(`WREN_OIDC_ALLOW: ${(error as Error).message}`);
  }
  const host = issuer.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const named =
    allow.hosts.has(host) ||
    (ipaddr.isValid(host) &&
      allow.blocks.some(({ range }) => {
        const address = ipaddr.process(host);
        return address.kind() === range[0].kind() && address.match(range as never);
      }));
  if (issuer.protocol === "http:" && !named) {
    throw new OidcConfigError(
      `WREN_OIDC_ISSUER must be an https:// URL (plain http:// only for a host WREN_OIDC_ALLOW names), got "${issuerText}"`,
    );
  }
  const link = trimmed(env.WREN_OIDC_LINK_BY_EMAIL).toLowerCase();
  if (link !== "" && link !== "true" && link !== "false") {
    throw new OidcConfigError(`WREN_OIDC_LINK_BY_EMAIL must be true or false, got "${env.WREN_OIDC_LINK_BY_EMAIL}"`);
  }
  const scopes = trimmed(env.WREN_OIDC_SCOPES).replace(/\s+/g, " ") || DEFAULT_OIDC_SCOPES;
  if (!scopes.split(" ").includes("openid") || !/^[\x21\x23-\x5b\x5d-\x7e ]+$/.test(scopes)) {
    throw new OidcConfigError(`WREN_OIDC_SCOPES must be space-separated scopes including openid, got "${env.WREN_OIDC_SCOPES}"`);
  }
  const name = trimmed(env.WREN_OIDC_NAME) || DEFAULT_OIDC_NAME;
  if (name.length > 60) throw new OidcConfigError("WREN_OIDC_NAME must be at most 60 characters");
  return {
    // Issuer identifiers are compared as strings (RFC 8414 §3.3): kept exactly as given.
    issuer: issuerText,
    clientId,
    clientSecret,
    name,
    linkByEmail: link === "true",
    scopes,
    allow,
    allowInsecure: issuer.protocol === "http:",
  };
}

/** The redirect URI to register at the provider: the callback under the public URL. */
export function oidcRedirectUri(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/api/v1/auth/oidc/callback`;
}

/** What GET /api/v1/auth/methods says of OIDC: the button's name when configured (and valid), else null. */
export function oidcSignInMethod(env: OidcEnv): { name: string } | null {
  try {
    const config = oidcConfig(env);
    return config ? { name: config.name } : null;
  } catch {
    return null;
  }
}
