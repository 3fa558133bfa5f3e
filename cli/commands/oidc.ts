/**
 * `wren oidc check`: checks the OIDC settings (WREN_OIDC_ISSUER and the rest) as the service will read them, fetches the
 * provider's discovery document from WREN_OIDC_ISSUER (with oauth4webapi, as the service does:
 * the document must name exactly that issuer), checks that the service's OIDC network will
 * reach the issuer's addresses (public ones, or those WREN_OIDC_ALLOW names), and prints the
 * redirect URI to register at the provider.
 */
import { lookup } from "node:dns/promises";
import * as oauth from "oauth4webapi";
import { oidcConfig, OidcConfigError, oidcRedirectUri, type OidcEnv } from "../../worker/domain/people/oidc-config";
import { isPublicAddress } from "../../worker/lib/webhook-allow";
import ipaddr from "ipaddr.js";
import { CliError, print } from "../output";
import { serviceUrl } from "../service-url";
import type { Settings } from "../settings";
import type { Invocation, OIDC_CHECK_OPTIONS } from "./registry";

export async function oidcCheckCommand(settings: Settings, { values }: Invocation<typeof OIDC_CHECK_OPTIONS>): Promise<void> {
  let config;
  try {
    config = oidcConfig(process.env as OidcEnv);
  } catch (error) {
    if (error instanceof OidcConfigError) throw new CliError(error.message);
    throw error;
  }
  if (!config)
    throw new CliError("OIDC is not configured: set WREN_OIDC_ISSUER, WREN_OIDC_CLIENT_ID and WREN_OIDC_CLIENT_SECRET");
  const issuer = new URL(config.issuer);
  const host = issuer.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: string[];
  try {
    addresses = ipaddr.isValid(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    throw new CliError(`WREN_OIDC_ISSUER: the host name ${host} does not resolve`);
  }
  const allowed = (address: string) =>
    isPublicAddress(address) ||
    config.allow.hosts.has(host.toLowerCase()) ||
    (config.allow.private && !isPublicAddress(address)) ||
    config.allow.blocks.some(({ range }) => {
      const parsed = ipaddr.process(address);
      return parsed.kind() === range[0].kind() && parsed.match(range as never);
    });
  const refused = addresses.filter((a) => !allowed(a));
  if (refused.length > 0) {
    throw new CliError(
      `WREN_OIDC_ISSUER: ${host} is at ${refused.join(", ")}, not a public address (WREN_OIDC_ALLOW may allow it)`,
    );
  }
  let as: oauth.AuthorizationServer;
  try {
    as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, {
        [oauth.allowInsecureRequests]: config.allowInsecure,
        signal: AbortSignal.timeout(10_000),
      }),
    );
  } catch (error) {
    throw new CliError(`the provider's discovery at ${config.issuer} failed: ${(error as Error).message}`);
  }
  const missing = (["authorization_endpoint", "token_endpoint", "jwks_uri"] as const).filter((name) => !as[name]);
  if (missing.length > 0) throw new CliError(`the provider's discovery names no ${missing.join(", ")}`);
  const pkce = as.code_challenge_methods_supported;
  const result = {
    issuer: as.issuer,
    client_id: config.clientId,
    redirect_uri: oidcRedirectUri(serviceUrl(settings)),
    scopes: config.scopes,
    button: `Sign in with ${config.name}`,
    link_by_email: config.linkByEmail,
    authorization_endpoint: as.authorization_endpoint!,
    token_endpoint: as.token_endpoint!,
    jwks_uri: as.jwks_uri!,
    pkce_s256: pkce === undefined ? "not announced" : pkce.includes("S256") ? "yes" : "no",
  };
  if (pkce !== undefined && !pkce.includes("S256"))
    throw new CliError("the provider does not support PKCE with S256, which Wren requires");
  print(values.json ?? false, result, () =>
    [
      `The provider answers as ${result.issuer}.`,
      `Register this redirect URI for client ${result.client_id} (a confidential client):`,
      `  ${result.redirect_uri}`,
      `Scopes: ${result.scopes}; the sign-in button reads "${result.button}".`,
      `Endpoints: authorization ${result.authorization_endpoint}, token ${result.token_endpoint}, keys ${result.jwks_uri}.`,
    ].join("\n"),
  );
}
