/**
 * A real OpenID Provider (`oidc-provider`) on 127.0.0.1 for the OIDC sign-in tests: one
 * confidential client with a secret (PKCE required) whose redirect URI is Wren's callback, a
 * second client ("other-client", for an id_token issued to someone else), and accounts the
 * test names. Its interactions (login, consent) are completed programmatically: the provider
 * sends the browser to /interaction/UID, and this helper answers that with the account the test
 * chose (`provider.signInAs`) and grants what the client asked for — the provider's own code
 * does everything else (codes, tokens, signatures, `iss` in the authorization response).
 *
 * `browse()` is the browser: plain fetch following redirects by hand with a cookie jar per
 * host, so a test can stop at any hop (the provider's authorization URL, Wren's callback) and
 * change or replay it.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration } from "oidc-provider";
import { freePort } from "./ports";

export const CLIENT_ID = "wren-test";
export const CLIENT_SECRET = "wren-test-secret-0123456789abcdef0123456789abcdef";
export const OTHER_CLIENT_ID = "other-client";
export const OTHER_CLIENT_SECRET = "other-client-secret-0123456789abcdef0123456789ab";

export interface TestAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface TestProvider {
  /** The issuer identifier, http://127.0.0.1:PORT (no trailing slash). */
  issuer: string;
  provider: Provider;
  /** The account the next interaction signs in as. */
  signInAs(account: TestAccount): void;
  /**
   * Changes the next token endpoint answer (an object with id_token, access_token…) before it
   * is sent; null stops changing them.
   */
  tamperTokenResponse(change: ((body: Record<string, unknown>) => Promise<void> | void) | null): void;
  close(): Promise<void>;
}

/**
 * Starts a provider whose clients redirect to `redirectUri` (Wren's
 * /api/v1/auth/oidc/callback; the stack's port is chosen before the stack starts).
 */
export async function startTestProvider(redirectUri: string, options: { port?: number } = {}): Promise<TestProvider> {
  const port = options.port ?? (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  let current: TestAccount = { sub: "nobody" };
  const accounts = new Map<string, TestAccount>();
  let tamper: ((body: Record<string, unknown>) => Promise<void> | void) | null = null;

  const configuration: Configuration = {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [redirectUri],
        response_types: ["code"],
        grant_types: ["authorization_code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
      {
        client_id: OTHER_CLIENT_ID,
        client_secret: OTHER_CLIENT_SECRET,
        redirect_uris: [redirectUri],
        response_types: ["code"],
        grant_types: ["authorization_code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    pkce: { required: () => true },
    // The email and name claims in the ID token itself, as Keycloak, Authentik and Google send them.
    conformIdTokenClaims: false,
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ["wren-test-provider-cookie-key"] },
    ttl: { AccessToken: 600, IdToken: 600, Interaction: 600, Session: 3600, Grant: 3600, AuthorizationCode: 60 },
    async findAccount(_ctx, id) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return { accountId: id, claims: () => ({ ...account }) };
    },
  };
  const provider = new Provider(issuer, configuration);
  // The test's hook on the token endpoint's answer (koa middleware around the provider's own).
  provider.use(async (ctx, next) => {
    await next();
    if (tamper && ctx.path === "/token" && ctx.status === 200 && ctx.body && typeof ctx.body === "object") {
      await tamper(ctx.body as Record<string, unknown>);
    }
  });
  const handle = provider.callback();

  const server: Server = createServer((req, res) => {
    if (!req.url?.startsWith("/interaction/")) {
      handle(req, res);
      return;
    }
    void (async () => {
      try {
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name === "login") {
          accounts.set(current.sub, current);
          await provider.interactionFinished(req, res, { login: { accountId: current.sub } }, { mergeWithLastSubmission: false });
          return;
        }
        const accountId = details.session!.accountId;
        const clientId = String(details.params.client_id);
        const grant = details.grantId
          ? (await provider.Grant.find(details.grantId))!
          : new provider.Grant({ accountId, clientId });
        const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
        if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(" "));
        if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      } catch (error) {
        res.statusCode = 500;
        res.end(String(error));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  void (server.address() as AddressInfo);

  return {
    issuer,
    provider,
    signInAs(account) {
      current = account;
      accounts.set(account.sub, account);
    },
    tamperTokenResponse(change) {
      tamper = change;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A browser's cookies: name=value per host (paths and expiry set aside; tests are short). */
export class CookieJar {
  private readonly hosts = new Map<string, Map<string, string>>();

  take(url: string, response: Response): void {
    const host = new URL(url).host;
    const jar = this.hosts.get(host) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a));
      if (expired || value === "") jar.delete(name);
      else jar.set(name, value);
    }
    this.hosts.set(host, jar);
  }

  set(url: string, name: string, value: string): void {
    const host = new URL(url).host;
    this.hosts.set(host, (this.hosts.get(host) ?? new Map<string, string>()).set(name, value));
  }

  header(url: string): string {
    const jar = this.hosts.get(new URL(url).host);
    return jar ? [...jar].map(([name, value]) => `${name}=${value}`).join("; ") : "";
  }

  get(host: string, name: string): string | undefined {
    return this.hosts.get(host)?.get(name);
  }
}

export interface Hop {
  url: string;
  status: number;
  location: string | null;
}

/**
 * Follows redirects from `url` as a browser would (GET, the jar's cookies), until an answer is
 * not a redirect or `stop(url)` says to stop before requesting a URL; `change(url)` may rewrite
 * a URL before it is requested. Returns every hop and the URL it stopped at.
 */
export async function browse(
  url: string,
  jar: CookieJar,
  options: { stop?: (url: string) => boolean; change?: (url: string) => string } = {},
): Promise<{ hops: Hop[]; last: string; response: Response | null }> {
  const hops: Hop[] = [];
  let next = url;
  for (let i = 0; i < 20; i++) {
    next = options.change?.(next) ?? next;
    if (options.stop?.(next)) return { hops, last: next, response: null };
    const cookie = jar.header(next);
    const response = await fetch(next, { redirect: "manual", headers: cookie ? { cookie } : {} });
    jar.take(next, response);
    const location = response.headers.get("location");
    hops.push({ url: next, status: response.status, location });
    if (response.status < 300 || response.status >= 400 || !location) return { hops, last: next, response };
    await response.arrayBuffer();
    next = new URL(location, next).href;
  }
  throw new Error(`more than 20 redirects from ${url}`);
}
