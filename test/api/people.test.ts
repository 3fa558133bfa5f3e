/**
 * People against the real stack: the onboarding invitation, passkeys (a software
 * authenticator with real signatures, test/helpers/passkey.ts), the session cookie with its
 * CSRF rule, roles per site, invitations, removal, and the audit log. Each attack is refused
 * with a problem+json and writes nothing.
 */
import { readFileSync } from "node:fs";
import { join as joinPath } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client } from "../helpers/http";
import { browser, join, signIn, tokenOf, type Browser } from "../helpers/passkey";
import { apiFixture, type ApiFixture } from "./fixtures";
import { peopleUrl } from "../../worker/lib/public-url";

describe("people: passkeys, sessions, roles, invitations, audit", () => {
  let f: ApiFixture;
  let admin: Browser;
  let site: string;
  let other: string;
  const count = async (table: string) => Number((await f.database().execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);

  beforeAll(async () => {
    f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
    site = (await f.makeSite("people.example")).id;
    other = (await f.makeSite("other-people.example")).id;
    admin = browser(f.stack.url);
  }, 120_000);
  afterAll(() => f?.close());

  it("the onboarding link makes the first admin (all sites) and signs them in; the link is single use", async () => {
    const link = readFileSync(joinPath(f.stack.dataDir, "first-admin-invitation.txt"), "utf8").trim();
    // On the loopback defaults the link says localhost: a browser takes no IP address as a passkey's RP ID.
    expect(link).toMatch(new RegExp(`^${peopleUrl(f.stack.url)}/dashboard/invite#[A-Za-z0-9_-]{43}$`));
    expect(link.startsWith("http://localhost:")).toBe(true);
    // Nothing signed in yet: no cookie is 401.
    expect((await admin.call("GET", "/api/v1/session")).status).toBe(401);
    const joined = await join(admin, tokenOf(link), "Ada");
    expect(joined.status, joined.text).toBe(201);
    const setCookie = joined.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^wren_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=604800$/);
    expect(joined.body.grants).toEqual([{ site: "*", role: "admin" }]);
    expect(joined.body.scopes).toEqual(["admin"]);
    const me = await admin.call("GET", "/api/v1/session");
    expect(me.status).toBe(200);
    expect(me.body.account.name).toBe("Ada");
    expect(me.body.csrf_token).toBe(admin.csrf);

    // The link again, from another browser: refused, no second account.
    const accounts = await count("accounts");
    const again = await join(browser(f.stack.url), tokenOf(link), "Mallory");
    expect(again.status).toBe(401);
    expect(again.headers.get("content-type")).toBe("application/problem+json");
    expect(again.body.field).toBe("invitation");
    expect(await count("accounts")).toBe(accounts);
  });

  it("a cookie write needs x-wren-csrf and the dashboard's Origin: without, wrong or foreign → 403, nothing written", async () => {
    const goals = await count("goals");
    const body = { kind: "event", match: "csrf-probe" };
    const path = `/api/v1/sites/${site}/goals`;
    const none = await admin.call("POST", path, body, { "x-wren-csrf": "" });
    expect([none.status, none.body.field]).toEqual([403, "x-wren-csrf"]);
    const wrong = await admin.call("POST", path, body, { "x-wren-csrf": "A".repeat(43) });
    expect([wrong.status, wrong.body.field]).toEqual([403, "x-wren-csrf"]);
    const foreign = await admin.call("POST", path, body, { origin: "http://evil.example" });
    expect([foreign.status, foreign.body.field]).toEqual([403, "origin"]);
    const noOrigin = await admin.call("POST", path, body, { origin: "" });
    expect([noOrigin.status, noOrigin.body.field]).toEqual([403, "origin"]);
    expect(await count("goals")).toBe(goals);
    // With both, it works: the same write by the same person.
    const ok = await admin.call("POST", path, body);
    expect(ok.status, ok.text).toBe(201);
    expect(await count("goals")).toBe(goals + 1);
  });

  it("session fixation: a cookie presented at sign-in is ended and a new one is set", async () => {
    const before = admin.cookie!;
    const { answer } = await signIn(admin);
    expect(answer.status, answer.text).toBe(200);
    expect(admin.cookie).toBeDefined();
    expect(admin.cookie).not.toBe(before);
    const old = client(f.stack.url);
    const refused = await old("GET", "/api/v1/session", undefined, { cookie: `wren_session=${before}` });
    expect(refused.status).toBe(401);
    expect((await admin.call("GET", "/api/v1/session")).status).toBe(200);
  });

  it("a signed-in person adds a second passkey (cookie + CSRF) and signs in with it; without CSRF nothing is added", async () => {
    const passkeys = await count("passkeys");
    const options = await admin.call("POST", "/api/v1/auth/passkey/register/options", {});
    expect(options.status, options.text).toBe(200);
    const response = admin.authenticator.register(options.body.options);
    const body = { challenge_id: options.body.challenge_id, name: "Laptop", response };
    const forged = await admin.call("POST", "/api/v1/auth/passkey/register", body, { "x-wren-csrf": "" });
    expect([forged.status, forged.body.field]).toEqual([403, "x-wren-csrf"]);
    expect(await count("passkeys")).toBe(passkeys);
    const added = await admin.call("POST", "/api/v1/auth/passkey/register", body);
    expect(added.status, added.text).toBe(201);
    expect(added.body.passkey.name).toBe("Laptop");
    expect(await count("passkeys")).toBe(passkeys + 1);
    // Signed out, nobody can add one without an invitation.
    const anonymous = await client(f.stack.url)("POST", "/api/v1/auth/passkey/register/options", {}, { origin: f.stack.url });
    expect(anonymous.status).toBe(401);
    expect((await signIn(admin)).answer.status).toBe(200); // the newest passkey: the laptop's
  });

  it("a replayed passkey assertion (same challenge) is refused, and no session is made", async () => {
    const { answer, sent } = await signIn(admin);
    expect(answer.status).toBe(200);
    const sessions = await count("dashboard_sessions");
    const replay = await client(f.stack.url)("POST", "/api/v1/auth/passkey/sign-in", sent, { origin: f.stack.url });
    expect([replay.status, replay.body.field]).toEqual([401, "challenge_id"]);
    expect(replay.headers.get("set-cookie")).toBeNull();
    expect(await count("dashboard_sessions")).toBe(sessions);
    // A sign-in POST from another origin is refused before anything (login CSRF).
    const foreign = await client(f.stack.url)("POST", "/api/v1/auth/passkey/sign-in/options", undefined, {
      origin: "http://evil.example",
    });
    expect([foreign.status, foreign.body.field]).toEqual([403, "origin"]);
  });

  it("a viewer reads reports and goal names but is refused editor and admin routes (403, nothing written)", async () => {
    const invited = await admin.call("POST", "/api/v1/people", { site, role: "viewer" });
    expect(invited.status, invited.text).toBe(201);
    expect(invited.body.link).toMatch(/\/dashboard\/invite#/);
    const viewer = browser(f.stack.url);
    expect((await join(viewer, tokenOf(invited.body.link), "Vic")).status).toBe(201);

    expect((await viewer.call("GET", `/api/v1/sites/${site}/goals`)).body.goals.map((g: { match: string }) => g.match)).toContain(
      "csrf-probe",
    );
    expect((await viewer.call("GET", `/api/v1/overview?site=${site}&period=7d`)).status).not.toBe(403);
    const sites = await viewer.call("GET", "/api/v1/sites");
    expect(sites.body.sites.map((s: { id: string }) => s.id)).toEqual([site]);
    expect((await viewer.call("GET", `/api/v1/sites/${other}/goals`)).status).toBe(403);

    const goals = await count("goals");
    const keys = await count("api_keys");
    const invitations = await count("invitations");
    const attempts = [
      await viewer.call("POST", `/api/v1/sites/${site}/goals`, { kind: "event", match: "viewer-made" }),
      await viewer.call("POST", "/api/v1/keys", { scopes: ["admin"] }),
      await viewer.call("GET", "/api/v1/keys"),
      await viewer.call("POST", "/api/v1/people", { site, role: "admin" }),
      await viewer.call("GET", "/api/v1/people"),
      await viewer.call("GET", "/api/v1/audit"),
      await viewer.call("POST", "/api/v1/sites", { name: "x", domain: "viewer-made.example" }),
    ];
    for (const a of attempts) {
      expect(a.status, a.text).toBe(403);
      expect(a.headers.get("content-type")).toBe("application/problem+json");
    }
    expect([await count("goals"), await count("api_keys"), await count("invitations")]).toEqual([goals, keys, invitations]);
  });

  it("a site admin manages only its site: another site or '*' → 403; an all-sites admin is out of reach", async () => {
    const invited = await admin.call("POST", "/api/v1/people", { site, role: "admin" });
    const siteAdmin = browser(f.stack.url);
    expect((await join(siteAdmin, tokenOf(invited.body.link), "Sam")).status).toBe(201);
    const invitations = await count("invitations");
    const elsewhere = await siteAdmin.call("POST", "/api/v1/people", { site: other, role: "viewer" });
    expect([elsewhere.status, elsewhere.body.field]).toEqual([403, "site"]);
    const everywhere = await siteAdmin.call("POST", "/api/v1/people", { site: "*", role: "viewer" });
    expect([everywhere.status, everywhere.body.field]).toEqual([403, "site"]);
    expect(await count("invitations")).toBe(invitations);
    // It may invite for its own site, and sees only its site's people and audit entries.
    expect((await siteAdmin.call("POST", "/api/v1/people", { site, role: "editor" })).status).toBe(201);
    const people = (await siteAdmin.call("GET", "/api/v1/people")).body.people as { name: string; grants: { site: string }[] }[];
    expect(people.map((p) => p.name).sort()).toEqual(["Sam", "Vic"]);
    const ada = (await admin.call("GET", "/api/v1/people")).body.people.find((p: { name: string }) => p.name === "Ada");
    const demote = await siteAdmin.call("PATCH", `/api/v1/people/${ada.id}`, { site, role: "viewer" });
    expect(demote.status).toBe(404);
    const audit = (await siteAdmin.call("GET", "/api/v1/audit")).body.entries as { site: string | null }[];
    expect(audit.length).toBeGreaterThan(0);
    expect(audit.every((e) => e.site === site)).toBe(true);
    // A site admin may not register sites.
    expect((await siteAdmin.call("POST", "/api/v1/sites", { name: "x", domain: "sam.example" })).status).toBe(403);
  });

  it("roles are per site: an editor of one site who views another cannot write there (403, nothing written)", async () => {
    const invited = await admin.call("POST", "/api/v1/people", { site, role: "editor" });
    const mixed = browser(f.stack.url);
    const joined = await join(mixed, tokenOf(invited.body.link), "Max");
    expect((await admin.call("PATCH", `/api/v1/people/${joined.body.account.id}`, { site: other, role: "viewer" })).status).toBe(
      200,
    );
    const goals = await count("goals");
    const there = await mixed.call("POST", `/api/v1/sites/${other}/goals`, { kind: "event", match: "max-there" });
    expect([there.status, there.body.field]).toEqual([403, "id"]);
    expect(await count("goals")).toBe(goals);
    expect((await mixed.call("GET", `/api/v1/sites/${other}/goals`)).status).toBe(200);
    expect((await mixed.call("POST", `/api/v1/sites/${site}/goals`, { kind: "event", match: "max-here" })).status).toBe(201);
  });

  it("the last all-sites admin cannot be removed or demoted (409)", async () => {
    const ada = (await admin.call("GET", "/api/v1/people")).body.people.find((p: { name: string }) => p.name === "Ada");
    const removed = await admin.call("DELETE", `/api/v1/people/${ada.id}`);
    expect([removed.status, removed.body.field]).toEqual([409, "id"]);
    const demoted = await admin.call("PATCH", `/api/v1/people/${ada.id}`, { site: "*", role: "editor" });
    expect(demoted.status).toBe(409);
    expect((await admin.call("GET", "/api/v1/session")).body.grants).toEqual([{ site: "*", role: "admin" }]);
  });

  it("removing a person ends their sessions at once: the next request is 401", async () => {
    const invited = await admin.call("POST", "/api/v1/people", { site, role: "editor" });
    const editor = browser(f.stack.url);
    expect((await join(editor, tokenOf(invited.body.link), "Eve")).status).toBe(201);
    expect((await editor.call("GET", "/api/v1/session")).status).toBe(200);
    const eve = (await admin.call("GET", "/api/v1/people")).body.people.find((p: { name: string }) => p.name === "Eve");
    expect((await admin.call("DELETE", `/api/v1/people/${eve.id}`)).status).toBe(204);
    expect((await editor.call("GET", "/api/v1/session")).status).toBe(401);
    const write = await editor.call("POST", `/api/v1/sites/${site}/goals`, { kind: "event", match: "eve" });
    expect(write.status).toBe(401);
    // Nor can the passkey sign in again.
    expect((await signIn(editor)).answer.status).toBe(401);
  });

  it("an expired or revoked invitation is refused and writes nothing", async () => {
    const revokedInvite = await admin.call("POST", "/api/v1/people", { site, role: "viewer" });
    expect((await admin.call("DELETE", `/api/v1/invitations/${revokedInvite.body.id}`)).status).toBe(204);
    const expiredInvite = await admin.call("POST", "/api/v1/people", { site, role: "viewer" });
    // Expiry is judged on the service's clock: move the invitation's expiry into the past.
    await f
      .database()
      .execute({ sql: "UPDATE invitations SET expires_at = ? WHERE id = ?", args: [f.stack.now() - 1, expiredInvite.body.id] });
    const accounts = await count("accounts");
    for (const link of [revokedInvite.body.link, expiredInvite.body.link]) {
      const attempt = await join(browser(f.stack.url), tokenOf(link), "Late");
      expect([attempt.status, attempt.body.field]).toEqual([401, "invitation"]);
    }
    expect(await count("accounts")).toBe(accounts);
    const pending = (await admin.call("GET", "/api/v1/invitations")).body.invitations.map((i: { id: string }) => i.id);
    expect(pending).not.toContain(revokedInvite.body.id);
    expect(pending).not.toContain(expiredInvite.body.id);
  });

  it("sign-out ends the session; own sessions list with a coarse label and can be revoked", async () => {
    const second = browser(f.stack.url);
    second.authenticator.credentials.push(...admin.authenticator.credentials);
    expect((await signIn(second)).answer.status).toBe(200);
    const listed = await admin.call("GET", "/api/v1/account/sessions");
    expect(listed.status).toBe(200);
    const mine = listed.body.sessions as { id: string; label: string; current: boolean }[];
    expect(mine.filter((s) => s.current)).toHaveLength(1);
    expect(mine.every((s) => !/\d/.test(s.label))).toBe(true);
    const secondId = mine.find((s) => !s.current)!.id;
    expect((await admin.call("DELETE", `/api/v1/account/sessions/${secondId}`)).status).toBe(204);
    expect((await second.call("GET", "/api/v1/session")).status).toBe(401);
    // An API key is not a person: the session routes refuse it.
    expect((await f.admin("GET", "/api/v1/account/sessions")).status).toBe(401);
  });

  it("the operator invites from the shell: `wren people invite` prints a one-time link that binds its role", async () => {
    const made = await f.stack.cli(["people", "invite", "--role", "editor", "--site", site, "--json"]);
    expect(made.code, made.stderr).toBe(0);
    const out = JSON.parse(made.stdout);
    expect(out).toMatchObject({ site, role: "editor", link: expect.stringMatching(/\/dashboard\/invite#[A-Za-z0-9_-]{43}$/) });
    const cli = browser(f.stack.url);
    const joined = await join(cli, tokenOf(out.link), "Cleo");
    expect(joined.body.grants).toEqual([{ site, role: "editor" }]);
    const refused = await f.stack.cli(["people", "invite", "--role", "owner", "--site", site]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--role");
  });

  it("the audit log names actor and action and never a token", async () => {
    const entries = (await admin.call("GET", "/api/v1/audit?limit=500")).body.entries as {
      action: string;
      actor: { kind: string; name: string };
    }[];
    const actions = new Set(entries.map((e) => e.action));
    for (const action of [
      "account.invite",
      "account.join",
      "session.sign_in",
      "account.remove",
      "goal.create",
      "site.create",
      "session.revoke",
    ]) {
      expect(actions, action).toContain(action);
    }
    expect(entries.find((e) => e.action === "account.remove")!.actor).toMatchObject({ kind: "account", name: "Ada" });
    expect(entries.find((e) => e.action === "site.create")!.actor.kind).toBe("key");
    const text = JSON.stringify(entries);
    const links = (await f.database().execute("SELECT token_hash FROM invitations")).rows.map((r) => String(r.token_hash));
    for (const hash of links) expect(text).not.toContain(hash);
    expect(text).not.toContain(admin.cookie!);
    expect(text).not.toContain(admin.csrf!);
    expect(text).not.toContain(f.stack.adminKey!);
    // Without a signed-in admin: no cookie → 401.
    expect((await client(f.stack.url)("GET", "/api/v1/audit")).status).toBe(401);
  });
});
