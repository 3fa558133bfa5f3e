/**
 * Sign-in with OpenID Connect against a REAL provider: `oidc-provider` on 127.0.0.1
 * (test/helpers/oidc-provider.ts), the real stack (`wren start`, workerd, its oidc-network opened
 * to loopback by WREN_OIDC_ALLOW) and a browser made of fetch and a cookie jar. An invited person
 * signs in and holds the invited role; every attack — no invitation, a state that is not the
 * browser's or is replayed, an ID token issued to another client, a nonce that is not the
 * sign-in's, an answer from another provider (issuer mix-up), a sign-in past its 10 minutes
 * (the service's clock moved), a return_to elsewhere, hostile query strings — is refused with a
 * redirect to the sign-in screen naming the error, and writes nothing (accounts, identities,
 * sessions, grants, audit entries counted before and after).
 */
import { createHash, randomBytes } from "node:crypto";
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, type Call } from "../helpers/http";
import { freePort } from "../helpers/ports";
import {
  browse,
  CLIENT_ID,
  CLIENT_SECRET,
  CookieJar,
  OTHER_CLIENT_ID,
  OTHER_CLIENT_SECRET,
  startTestProvider,
  type TestProvider,
} from "../helpers/oidc-provider";
import { runWren, startStack, type Stack } from "../helpers/stack";

let stack: Stack;
let provider: TestProvider;
let other: TestProvider;
let admin: Call;
let wren: string;
let callback: string;
let siteId = "";
let secondSite = "";

const TABLES = ["accounts", "account_grants", "oidc_identities", "dashboard_sessions", "audit_log", "invitations"] as const;

type Counts = Record<(typeof TABLES)[number] | "used_invitations", number>;

async function counts(): Promise<Counts> {
  const db = stack.openDatabase();
  try {
    const out = {} as Counts;
    for (const table of TABLES) out[table] = Number((await db.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
    // Used invitations too: a refused sign-in must not spend one.
    out.used_invitations = Number(
      (await db.execute("SELECT count(*) AS n FROM invitations WHERE used_at IS NOT NULL")).rows[0]!.n,
    );
    return out;
  } finally {
    db.close();
  }
}

/** An invitation straight into the database (Part A's routes make them; the token is what matters here). */
async function invite(site: string, role: "viewer" | "editor" | "admin", at = stack.now()): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  const db = stack.openDatabase();
  try {
    await db.execute({
      sql: "INSERT INTO invitations (id, token_hash, site_id, role, email, invited_by, created_at, expires_at) VALUES (?, ?, ?, ?, NULL, 'test', ?, ?)",
      args: [
        `inv_${randomBytes(8).toString("hex")}`,
        createHash("sha256").update(token).digest("hex"),
        site,
        role,
        at,
        at + 86_400_000,
      ],
    });
  } finally {
    db.close();
  }
  return token;
}

const isCallback = (url: string) => url.startsWith(callback);

/** Runs a sign-in from `start` up to the callback URL the provider sends the browser to (not requested). */
async function toCallback(
  start: string,
  jar = new CookieJar(),
  change?: (url: string) => string,
): Promise<{ jar: CookieJar; url: string }> {
  const { last, response } = await browse(start, jar, { stop: isCallback, change });
  expect(response, `stopped at ${last}`).toBeNull();
  return { jar, url: last };
}

/** Requests the callback as the browser would, and answers where Wren sends it. */
async function finish(url: string, jar: CookieJar): Promise<{ location: string; status: number }> {
  const { hops } = await browse(url, jar, { stop: (next) => next !== url });
  return { status: hops[0]!.status, location: hops[0]!.location ?? "" };
}

const errorOf = (location: string) => new URL(location, wren).searchParams.get("sign_in_error");

beforeAll(async () => {
  const port = await freePort();
  wren = `http://127.0.0.1:${port}`;
  callback = `${wren}/api/v1/auth/oidc/callback`;
  provider = await startTestProvider(callback);
  other = await startTestProvider(callback);
  stack = await startStack({
    env: {
      PORT: String(port),
      WREN_OIDC_ISSUER: provider.issuer,
      WREN_OIDC_CLIENT_ID: CLIENT_ID,
      WREN_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      WREN_OIDC_NAME: "Test IdP",
      WREN_OIDC_ALLOW: "127.0.0.1",
    },
  });
  admin = client(stack.url, stack.adminKey);
  siteId = (await admin("POST", "/api/v1/sites", { name: "Shop", domain: "shop.example" })).body.id;
  secondSite = (await admin("POST", "/api/v1/sites", { name: "Blog", domain: "blog.example" })).body.id;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await provider?.close();
  await other?.close();
});

describe("OIDC sign-in", () => {
  it("signs an invited person in with the invited role, once the invitation is spent signs them in by identity, and audits it", async () => {
    const token = await invite(siteId, "viewer");
    provider.signInAs({ sub: "alice-sub", email: "alice@example.com", email_verified: true, name: "Alice" });
    const before = await counts();
    const { jar, url } = await toCallback(`${wren}/api/v1/auth/oidc/start?invitation=${token}`);
    // The provider answered with its issuer (RFC 9207), the code and the state.
    expect(new URL(url).searchParams.get("iss")).toBe(provider.issuer);
    const done = await finish(url, jar);
    expect(done).toEqual({ status: 302, location: "/dashboard/" });
    const session = jar.get(new URL(wren).host, "wren_session");
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const after = await counts();
    expect(after).toEqual({
      ...before,
      accounts: before.accounts + 1,
      account_grants: before.account_grants + 1,
      oidc_identities: before.oidc_identities + 1,
      dashboard_sessions: before.dashboard_sessions + 1,
      audit_log: before.audit_log + 2,
      used_invitations: before.used_invitations + 1,
    });
    const db = stack.openDatabase();
    const identity = (await db.execute("SELECT issuer, subject, account_id FROM oidc_identities WHERE subject = 'alice-sub'"))
      .rows[0]!;
    const aliceId = String(identity.account_id);
    expect([identity.issuer, identity.subject]).toEqual([provider.issuer, "alice-sub"]);
    const account = (await db.execute({ sql: "SELECT name FROM accounts WHERE id = ?", args: [aliceId] })).rows[0]!;
    expect(account.name).toBe("Alice");
    const grants = (await db.execute({ sql: "SELECT site_id, role FROM account_grants WHERE account_id = ?", args: [aliceId] }))
      .rows;
    expect(grants.map((g) => [g.site_id, g.role])).toEqual([[siteId, "viewer"]]);
    const sessions = (await db.execute({ sql: "SELECT method FROM dashboard_sessions WHERE account_id = ?", args: [aliceId] }))
      .rows;
    expect(sessions.map((s) => s.method)).toEqual(["oidc"]);
    const audit = (
      await db.execute({
        sql: "SELECT action, actor_kind, actor_id, detail FROM audit_log WHERE actor_id = ? ORDER BY at, action",
        args: [aliceId],
      })
    ).rows.map((r) => [r.action, r.actor_kind, JSON.parse(String(r.detail)).method]);
    expect(audit).toEqual([
      ["account.join", "account", "oidc"],
      ["session.sign_in", "account", "oidc"],
    ]);
    db.close();

    // The session cookie is a caller with exactly the viewer's reach: its site, no writes.
    const asAlice = client(wren);
    const cookie = { cookie: `wren_session=${session}` };
    const sites = await asAlice("GET", "/api/v1/sites", undefined, cookie);
    expect(sites.status, sites.text).toBe(200);
    expect(sites.body.sites.map((s: { id: string }) => s.id)).toEqual([siteId]);
    const write = await asAlice(
      "POST",
      `/api/v1/sites/${siteId}/goals`,
      { kind: "page", match: "/x" },
      { ...cookie, origin: wren },
    );
    expect(write.status).toBe(403);

    // Again, without an invitation: the identity is known now; a new session, no new account.
    const again = await toCallback(`${wren}/api/v1/auth/oidc/start`);
    const beforeAgain = await counts();
    expect(await finish(again.url, again.jar)).toEqual({ status: 302, location: "/dashboard/" });
    const afterAgain = await counts();
    expect(afterAgain).toEqual({
      ...beforeAgain,
      dashboard_sessions: beforeAgain.dashboard_sessions + 1,
      audit_log: beforeAgain.audit_log + 1,
    });

    // The spent invitation cannot make a second person.
    provider.signInAs({ sub: "mallory-sub", email: "mallory@example.com", email_verified: true, name: "Mallory" });
    const start = await browse(`${wren}/api/v1/auth/oidc/start?invitation=${token}`, new CookieJar(), {
      stop: (u) => !u.startsWith(wren),
    });
    expect(errorOf(start.hops[0]!.location!)).toBe("invitation_invalid");
  });

  it("refuses an unknown subject without an invitation, and writes nothing", async () => {
    provider.signInAs({ sub: "stranger-sub", email: "stranger@example.com", email_verified: true });
    const { jar, url } = await toCallback(`${wren}/api/v1/auth/oidc/start`);
    const before = await counts();
    const done = await finish(url, jar);
    expect(done.status).toBe(302);
    expect(errorOf(done.location)).toBe("unknown_identity");
    expect(new URL(done.location, wren).pathname).toBe("/dashboard/");
    expect(jar.get(new URL(wren).host, "wren_session")).toBeUndefined();
    expect(await counts()).toEqual(before);
  });

  it("refuses a callback whose state is not the browser's, and a replayed one, writing nothing", async () => {
    const token = await invite(siteId, "editor");
    provider.signInAs({ sub: "bob-sub", email: "bob@example.com", email_verified: true, name: "Bob" });
    const { jar, url } = await toCallback(`${wren}/api/v1/auth/oidc/start?invitation=${token}`);
    const before = await counts();
    // Another browser (no state cookie): someone else's callback link.
    expect(errorOf((await finish(url, new CookieJar())).location)).toBe("state_mismatch");
    // This browser, the state changed.
    const forged = new URL(url);
    forged.searchParams.set("state", "x".repeat(43));
    expect(errorOf((await finish(forged.href, jar)).location)).toBe("state_mismatch");
    expect(await counts()).toEqual(before);
    // The genuine one still works: the refusals burned nothing.
    expect(await finish(url, jar)).toEqual({ status: 302, location: "/dashboard/" });
    const signedIn = await counts();
    expect(signedIn.accounts).toBe(before.accounts + 1);
    // Replayed (same browser, same cookie): the sign-in is spent.
    const replay = new CookieJar();
    replay.set(wren, "wren_oidc_state", new URL(url).searchParams.get("state")!);
    expect(errorOf((await finish(url, replay)).location)).toBe("state_mismatch");
    expect(await counts()).toEqual(signedIn);
  });

  it("refuses an ID token issued to another client (aud), writing nothing", async () => {
    const token = await invite(siteId, "viewer");
    provider.signInAs({ sub: "carol-sub", email: "carol@example.com", email_verified: true, name: "Carol" });
    let nonce = "";
    const { jar, url } = await toCallback(`${wren}/api/v1/auth/oidc/start?invitation=${token}`, new CookieJar(), (next) => {
      if (next.startsWith(provider.issuer) && new URL(next).searchParams.has("nonce"))
        nonce = new URL(next).searchParams.get("nonce")!;
      return next;
    });
    // A genuine ID token of the same provider, person and nonce, but issued to other-client.
    const foreign = await idTokenFor(OTHER_CLIENT_ID, OTHER_CLIENT_SECRET, nonce);
    expect(JSON.parse(Buffer.from(foreign.split(".")[1]!, "base64url").toString()).aud).toBe(OTHER_CLIENT_ID);
    provider.tamperTokenResponse((body) => {
      body.id_token = foreign;
    });
    const before = await counts();
    try {
      expect(errorOf((await finish(url, jar)).location)).toBe("audience_mismatch");
    } finally {
      provider.tamperTokenResponse(null);
    }
    expect(await counts()).toEqual(before);
  });

  it("refuses an ID token whose nonce is not the sign-in's, writing nothing", async () => {
    const token = await invite(siteId, "viewer");
    provider.signInAs({ sub: "dave-sub", email: "dave@example.com", email_verified: true });
    const { jar, url } = await toCallback(`${wren}/api/v1/auth/oidc/start?invitation=${token}`, new CookieJar(), (next) => {
      const u = new URL(next);
      if (u.origin === provider.issuer && u.searchParams.has("nonce")) u.searchParams.set("nonce", "not-the-sign-ins-nonce");
      return u.href;
    });
    const before = await counts();
    expect(errorOf((await finish(url, jar)).location)).toBe("nonce_mismatch");
    expect(await counts()).toEqual(before);
  });

  it("refuses an answer from another provider (issuer mix-up, RFC 9207), writing nothing", async () => {
    const token = await invite(siteId, "viewer");
    other.signInAs({ sub: "erin-sub", email: "erin@example.com", email_verified: true });
    // Wren's authorization request, sent to the other provider instead (same client id there).
    const { jar, url } = await toCallback(`${wren}/api/v1/auth/oidc/start?invitation=${token}`, new CookieJar(), (next) => {
      const u = new URL(next);
      if (u.origin === provider.issuer && u.pathname === "/auth" && u.searchParams.has("state"))
        return `${other.issuer}/auth${u.search}`;
      return next;
    });
    expect(new URL(url).searchParams.get("iss")).toBe(other.issuer);
    const before = await counts();
    expect(errorOf((await finish(url, jar)).location)).toBe("issuer_mismatch");
    expect(await counts()).toEqual(before);
  });

  it("refuses the provider's own refusal (error=access_denied) without echoing its words", async () => {
    const { jar, url } = await toCallback(`${wren}/api/v1/auth/oidc/start`);
    const refused = new URL(url);
    const state = refused.searchParams.get("state")!;
    refused.search = "";
    refused.searchParams.set("error", "access_denied");
    refused.searchParams.set("error_description", "<script>alert(1)</script>");
    refused.searchParams.set("state", state);
    refused.searchParams.set("iss", provider.issuer);
    const before = await counts();
    const done = await finish(refused.href, jar);
    expect(done.location).toBe("/dashboard/?sign_in_error=provider_refused");
    expect(await counts()).toEqual(before);
  });

  it("lands on a same-origin return_to, and ignores one elsewhere", async () => {
    provider.signInAs({ sub: "alice-sub", email: "alice@example.com", email_verified: true, name: "Alice" });
    const land = async (returnTo: string) => {
      const { jar, url } = await toCallback(`${wren}/api/v1/auth/oidc/start?return_to=${encodeURIComponent(returnTo)}`);
      return (await finish(url, jar)).location;
    };
    expect(await land(`/dashboard/s/${siteId}/pages?period=7d`)).toBe(`/dashboard/s/${siteId}/pages?period=7d`);
    for (const elsewhere of [
      "https://evil.example/dashboard/",
      "//evil.example/x",
      "/\\evil.example",
      "javascript:alert(1)",
      `${wren}.evil.example/`,
    ]) {
      expect(await land(elsewhere), elsewhere).toBe("/dashboard/");
    }
  });

  it("refuses hostile query strings with a 400 problem naming the field, writing nothing", async () => {
    const anyone = client(wren);
    const before = await counts();
    const badInvitation = await anyone("GET", "/api/v1/auth/oidc/start?invitation=%3Cscript%3E");
    expect([badInvitation.status, badInvitation.headers.get("content-type"), badInvitation.body.field]).toEqual([
      400,
      "application/problem+json",
      "invitation",
    ]);
    const long = await anyone("GET", `/api/v1/auth/oidc/start?return_to=/${"a".repeat(600)}`);
    expect([long.status, long.body.field]).toEqual([400, "return_to"]);
    const unknown = await anyone("GET", "/api/v1/auth/oidc/start?client_id=evil");
    expect([unknown.status, unknown.body.field]).toEqual([400, "client_id"]);
    const twice = await anyone("GET", "/api/v1/auth/oidc/callback?state=a&state=b&code=c");
    expect([twice.status, twice.body.field]).toEqual([400, "state"]);
    const post = await anyone("POST", "/api/v1/auth/oidc/start", {});
    expect(post.status).toBe(405);
    // An unknown invitation of the right shape: back to the sign-in, before the provider.
    const unknownInvitation = await fetch(`${wren}/api/v1/auth/oidc/start?invitation=${"A".repeat(43)}`, { redirect: "manual" });
    expect([unknownInvitation.status, unknownInvitation.headers.get("location")]).toEqual([
      302,
      "/dashboard/?sign_in_error=invitation_invalid",
    ]);
    expect(await counts()).toEqual(before);
  });

  it("`wren oidc check` fetches the provider's discovery and prints the redirect URI to register", async () => {
    const result = await stack.cli(["oidc", "check", "--json"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      issuer: provider.issuer,
      client_id: CLIENT_ID,
      redirect_uri: callback,
      scopes: "openid email profile",
      button: "Sign in with Test IdP",
      pkce_s256: "yes",
    });
    // A provider at a private address the service's OIDC network would not reach: said before starting.
    const refused = await runWren(["oidc", "check"], {
      ...stack.env,
      WREN_OIDC_ISSUER: "https://10.0.0.1/realms/x",
      WREN_OIDC_ALLOW: "",
    });
    expect([refused.code, refused.stderr.trim()]).toEqual([
      1,
      "wren: WREN_OIDC_ISSUER: 10.0.0.1 is at 10.0.0.1, not a public address (WREN_OIDC_ALLOW may allow it)",
    ]);
  });

  it("refuses a known identity whose account was disabled, writing nothing", async () => {
    const db = stack.openDatabase();
    const account = `acct_${randomBytes(8).toString("hex")}`;
    await db.execute({
      sql: "INSERT INTO accounts (id, name, email, created_at, disabled_at) VALUES (?, 'Gone', NULL, ?, ?)",
      args: [account, stack.now(), stack.now()],
    });
    await db.execute({
      sql: "INSERT INTO oidc_identities (issuer, subject, account_id, created_at) VALUES (?, 'gone-sub', ?, ?)",
      args: [provider.issuer, account, stack.now()],
    });
    db.close();
    provider.signInAs({ sub: "gone-sub" });
    const { jar, url } = await toCallback(`${wren}/api/v1/auth/oidc/start`);
    const before = await counts();
    expect(errorOf((await finish(url, jar)).location)).toBe("account_disabled");
    expect(await counts()).toEqual(before);
  });

  it("with WREN_OIDC_LINK_BY_EMAIL=true links a new subject to the account with its email only when the provider verified it", async () => {
    await stack.stop("SIGTERM", { keepDatabase: true });
    stack = await startStack({ dataDir: stack.dataDir, env: { ...stack.env, WREN_OIDC_LINK_BY_EMAIL: "true" } });
    const db = stack.openDatabase();
    const account = `acct_${randomBytes(8).toString("hex")}`;
    await db.execute({
      sql: "INSERT INTO accounts (id, name, email, created_at) VALUES (?, 'Grace', 'grace@example.com', ?)",
      args: [account, stack.now()],
    });
    await db.execute({
      sql: "INSERT INTO account_grants (account_id, site_id, role) VALUES (?, ?, 'editor')",
      args: [account, secondSite],
    });
    db.close();

    // Unverified: anyone can type an email at many providers.
    provider.signInAs({ sub: "grace-unverified", email: "grace@example.com", email_verified: false });
    let flow = await toCallback(`${wren}/api/v1/auth/oidc/start`);
    let before = await counts();
    expect(errorOf((await finish(flow.url, flow.jar)).location)).toBe("unknown_identity");
    expect(await counts()).toEqual(before);

    // Verified (the provider's case differs): linked, signed in as Grace, with Grace's role.
    provider.signInAs({ sub: "grace-sub", email: "Grace@Example.com", email_verified: true });
    flow = await toCallback(`${wren}/api/v1/auth/oidc/start`);
    before = await counts();
    expect(await finish(flow.url, flow.jar)).toEqual({ status: 302, location: "/dashboard/" });
    expect(await counts()).toEqual({
      ...before,
      oidc_identities: before.oidc_identities + 1,
      dashboard_sessions: before.dashboard_sessions + 1,
      audit_log: before.audit_log + 1,
    });
    const check = stack.openDatabase();
    const linked = (await check.execute("SELECT account_id FROM oidc_identities WHERE subject = 'grace-sub'")).rows[0]!;
    check.close();
    expect(linked.account_id).toBe(account);
    const session = flow.jar.get(new URL(wren).host, "wren_session")!;
    const sites = await client(wren)("GET", "/api/v1/sites", undefined, { cookie: `wren_session=${session}` });
    expect(sites.body.sites.map((s: { id: string }) => s.id)).toEqual([secondSite]);
  }, 120_000);

  // Last: the service restarts with its clock moved.
  it("refuses a sign-in finished after its 10 minutes (the service's clock moved), writing nothing", async () => {
    const token = await invite(siteId, "viewer", stack.now() + 3_600_000);
    provider.signInAs({ sub: "frank-sub", email: "frank@example.com", email_verified: true });
    const { jar, url } = await toCallback(`${wren}/api/v1/auth/oidc/start?invitation=${token}`);
    await stack.stop("SIGTERM", { keepDatabase: true });
    stack = await startStack({
      dataDir: stack.dataDir,
      env: { ...stack.env, WREN_TEST_CLOCK_OFFSET_MS: String(10 * 60_000 + 1_000) },
    });
    const before = await counts();
    expect(errorOf((await finish(url, jar)).location)).toBe("login_expired");
    expect(await counts()).toEqual(before);
  }, 120_000);
});

/** An ID token the provider issues to `clientId` for the signed-in person, with `nonce`. */
async function idTokenFor(clientId: string, secret: string, nonce: string): Promise<string> {
  const verifier = oauth.generateRandomCodeVerifier();
  const auth = new URL(`${provider.issuer}/auth`);
  const state = oauth.generateRandomState();
  for (const [name, value] of Object.entries({
    client_id: clientId,
    redirect_uri: callback,
    response_type: "code",
    scope: "openid email profile",
    state,
    nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  })) {
    auth.searchParams.set(name, value);
  }
  const { last } = await browse(auth.href, new CookieJar(), { stop: isCallback });
  const response = await fetch(`${provider.issuer}/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: new URL(last).searchParams.get("code")!,
      redirect_uri: callback,
      code_verifier: verifier,
    }),
  });
  const body = (await response.json()) as { id_token: string };
  return body.id_token;
}
