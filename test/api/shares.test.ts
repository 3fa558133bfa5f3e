/**
 * Shared dashboard links through the real stack: made, listed and revoked by a site's admins
 * only; a link reads what a read:reports key on its one site reads and nothing else (never a
 * write, another site, the site record, keys, sessions, alerts or deployments); a password
 * link opens only after its unlock, which is rate limited per link; the page carries the link's
 * framing rule and no Referer; an unknown, revoked and expired link all get the same 404.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, type Call } from "../helpers/http";
import { browser, join, tokenOf } from "../helpers/passkey";
import { startStack } from "../helpers/stack";
import { apiFixture, type ApiFixture } from "./fixtures";

let f: ApiFixture;
let siteA: { id: string; domain: string };
let siteB: { id: string; domain: string };

beforeAll(async () => {
  f = await apiFixture();
  siteA = await f.makeSite("shared.example", "Shared shop");
  siteB = await f.makeSite("other.example");
}, 60_000);
afterAll(() => f?.close());

/** A link's client: `Authorization: Share <token>`, plus any cookie. */
function shareClient(token: string, cookie?: string): Call {
  const call = client(f.stack.url);
  return (method, path, body, headers = {}) =>
    call(method, path, body, { authorization: `Share ${token}`, ...(cookie ? { cookie } : {}), ...headers });
}

async function makeShare(
  siteId: string,
  body: Record<string, unknown> = {},
): Promise<{ id: string; token: string; url: string; body: any }> {
  const res = await f.admin("POST", `/api/v1/sites/${siteId}/shares`, body);
  if (res.status !== 201) throw new Error(`share create: ${res.status} ${res.text}`);
  const token = res.body.url.split("/share/")[1];
  return { id: res.body.id, token, url: res.body.url, body: res.body };
}

async function rows(sql: string, ...args: (string | number)[]): Promise<Record<string, unknown>[]> {
  const result = await f.database().execute({ sql, args });
  return result.rows as unknown as Record<string, unknown>[];
}

const shareCount = async () => Number((await rows("SELECT count(*) AS n FROM share_links"))[0]!.n);

describe("making, listing and revoking links", () => {
  it("makes a link shown once, stores only its hash, lists it without the token", async () => {
    const res = await f.admin("POST", `/api/v1/sites/${siteA.id}/shares`, {});
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        "created_at",
        "embed",
        "expires_at",
        "frame_ancestors",
        "id",
        "iframe",
        "password",
        "site_id",
        "token_prefix",
        "url",
      ].sort(),
    );
    const token: string = res.body.url.slice(`${f.stack.url}/share/`.length);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body).toMatchObject({
      site_id: siteA.id,
      password: false,
      expires_at: null,
      embed: false,
      frame_ancestors: [],
      iframe: null,
      token_prefix: token.slice(0, 6),
    });
    expect(res.body.id).toMatch(/^shr_[A-Za-z0-9_-]{16}$/);
    const [stored] = await rows("SELECT * FROM share_links WHERE id = ?", res.body.id);
    expect(stored!.token_hash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(stored)).not.toContain(token);
    const listed = await f.admin("GET", `/api/v1/sites/${siteA.id}/shares`);
    expect(listed.status).toBe(200);
    expect(listed.body.shares.find((s: { id: string }) => s.id === res.body.id)).toEqual(
      Object.fromEntries(Object.entries(res.body).filter(([k]) => k !== "url" && k !== "iframe")),
    );
    expect(listed.text).not.toContain(token);
  });

  it("audits share.create and share.revoke with the acting key, and never the token or password", async () => {
    const adminKeyId = (await f.admin("GET", "/api/v1/keys/current")).body.id;
    const share = await makeShare(siteA.id, { password: "audited pass", embed: true });
    expect((await f.admin("DELETE", `/api/v1/sites/${siteA.id}/shares/${share.id}`)).status).toBe(204);
    const entries = await rows(
      "SELECT actor_kind, actor_id, action, site_id, target, detail FROM audit_log WHERE target = ? ORDER BY at, rowid",
      share.id,
    );
    expect(entries.map((e) => [e.actor_kind, e.actor_id, e.action, e.site_id, e.target])).toEqual([
      ["key", adminKeyId, "share.create", siteA.id, share.id],
      ["key", adminKeyId, "share.revoke", siteA.id, share.id],
    ]);
    expect(JSON.parse(String(entries[0]!.detail))).toEqual({ protected: true, expires_at: null, embed: true });
    const text = JSON.stringify(entries);
    expect(text).not.toContain(share.token);
    expect(text).not.toContain("audited pass");
  });

  it("stores a password as PBKDF2-SHA256 with 600,000 iterations and a random salt, never in clear", async () => {
    const one = await makeShare(siteA.id, { password: "correct horse" });
    const two = await makeShare(siteA.id, { password: "correct horse" });
    const [a] = await rows("SELECT password_hash FROM share_links WHERE id = ?", one.id);
    const [b] = await rows("SELECT password_hash FROM share_links WHERE id = ?", two.id);
    expect(a!.password_hash).toMatch(/^pbkdf2-sha256\$600000\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a!.password_hash).not.toBe(b!.password_hash);
    expect(String(a!.password_hash)).not.toContain("correct horse");
    expect(one.body.password).toBe(true);
  });

  it("an embeddable link may be framed by the site's own hostnames, and comes with an iframe snippet", async () => {
    const share = await makeShare(siteA.id, { embed: true });
    expect(share.body.frame_ancestors).toEqual(["https://shared.example:*", "http://shared.example:*"]);
    expect(share.body.iframe).toBe(
      `<iframe src="${share.url}" title="Wren: Shared shop" width="100%" height="900" style="border:0" loading="lazy"></iframe>`,
    );
  });

  it("refuses hostile input with 422 naming the field, and writes nothing", async () => {
    const before = await shareCount();
    const cases: [unknown, string][] = [
      [{ password: "1234567" }, "password"],
      [{ password: "x".repeat(201) }, "password"],
      [{ password: 12345678 }, "password"],
      [{ expires_at: new Date(f.stack.now() - 60_000).toISOString() }, "expires_at"],
      [{ expires_at: "tomorrow" }, "expires_at"],
      [{ embed: "yes" }, "embed"],
      [{ embed: true, site_id: siteB.id }, "site_id"],
    ];
    for (const [body, field] of cases) {
      const res = await f.admin("POST", `/api/v1/sites/${siteA.id}/shares`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(res.body.field, JSON.stringify(body)).toBe(field);
    }
    const notJson = await f.admin("POST", `/api/v1/sites/${siteA.id}/shares`, "{", { "content-type": "application/json" });
    expect(notJson.status).toBe(400);
    const huge = await f.admin("POST", `/api/v1/sites/${siteA.id}/shares`, { password: "p".repeat(10_000) });
    expect(huge.status).toBe(413);
    expect(await shareCount()).toBe(before);
  });

  it("only a key with write:sites on the site makes, lists or revokes links (viewers and other sites' admins get 403)", async () => {
    const share = await makeShare(siteA.id);
    const before = await shareCount();
    const viewer = await f.makeKey(["read:reports", "read:sites", "read:sessions"], [siteA.id]);
    const otherAdmin = await f.makeKey(["write:sites", "read:sites"], [siteB.id]);
    for (const who of [viewer, otherAdmin]) {
      for (const [method, path] of [
        ["POST", `/api/v1/sites/${siteA.id}/shares`],
        ["GET", `/api/v1/sites/${siteA.id}/shares`],
        ["DELETE", `/api/v1/sites/${siteA.id}/shares/${share.id}`],
      ] as const) {
        const res = await who.call(method, path, method === "POST" ? {} : undefined);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.headers.get("content-type")).toBe("application/problem+json");
      }
    }
    const anonymous = await client(f.stack.url)("POST", `/api/v1/sites/${siteA.id}/shares`, {});
    expect(anonymous.status).toBe(401);
    expect(await shareCount()).toBe(before);
    expect((await rows("SELECT revoked_at FROM share_links WHERE id = ?", share.id))[0]!.revoked_at).toBeNull();
    // A link of site A revoked "through" site B is not found.
    const crossed = await f.admin("DELETE", `/api/v1/sites/${siteB.id}/shares/${share.id}`);
    expect(crossed.status).toBe(404);
    expect((await rows("SELECT revoked_at FROM share_links WHERE id = ?", share.id))[0]!.revoked_at).toBeNull();
  });
});

describe("people's roles (part A) map onto the share routes", () => {
  it("a site admin makes, lists and revokes the site's links (CSRF required); an editor, a viewer and another site's admin get 403", async () => {
    const person = async (site: string, role: string) => {
      const invited = await f.admin("POST", "/api/v1/people", { site, role });
      expect(invited.status, invited.text).toBe(201);
      const who = browser(f.stack.url);
      expect((await join(who, tokenOf(invited.body.link), `${role} of ${site}`)).status).toBe(201);
      return who;
    };
    const siteAdmin = await person(siteA.id, "admin");
    const made = await siteAdmin.call("POST", `/api/v1/sites/${siteA.id}/shares`, {});
    expect(made.status, made.text).toBe(201);
    expect((await siteAdmin.call("GET", `/api/v1/sites/${siteA.id}/shares`)).status).toBe(200);
    const [audited] = await rows("SELECT actor_kind, action FROM audit_log WHERE target = ?", made.body.id);
    expect(audited).toMatchObject({ actor_kind: "account", action: "share.create" });
    // A write without the CSRF header is refused, and writes nothing.
    const before = await shareCount();
    expect((await siteAdmin.call("POST", `/api/v1/sites/${siteA.id}/shares`, {}, { "x-wren-csrf": "" })).status).toBe(403);
    expect(await shareCount()).toBe(before);
    expect((await siteAdmin.call("POST", `/api/v1/sites/${siteB.id}/shares`, {})).status).toBe(403);
    for (const role of ["editor", "viewer"]) {
      const who = await person(siteA.id, role);
      expect((await who.call("POST", `/api/v1/sites/${siteA.id}/shares`, {})).status, role).toBe(403);
      expect((await who.call("DELETE", `/api/v1/sites/${siteA.id}/shares/${made.body.id}`)).status, role).toBe(403);
    }
    expect(await shareCount()).toBe(before);
    expect((await siteAdmin.call("DELETE", `/api/v1/sites/${siteA.id}/shares/${made.body.id}`)).status).toBe(204);
  });
});

describe("what a link reads", () => {
  let share: { id: string; token: string };
  let goalId: string;
  beforeAll(async () => {
    share = await makeShare(siteA.id);
    goalId = (await f.makeGoal(siteA.id, { kind: "event", match: "signup", name: "Sign-up" })).id;
  });

  it("says which site it opens, and reads the site's reports, goal names and prop names", async () => {
    const reader = shareClient(share.token);
    const me = await reader("GET", "/api/v1/share");
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ id: share.id, site: { id: siteA.id, name: "Shared shop" } });
    for (const path of [
      `/api/v1/overview?site=${siteA.id}`,
      `/api/v1/timeseries?site=${siteA.id}&period=7d`,
      `/api/v1/pages?site=${siteA.id}&period=7d`,
      `/api/v1/breakdown?site=${siteA.id}&period=7d&dimension=source`,
      `/api/v1/conversions?site=${siteA.id}&period=7d`,
      `/api/v1/aggregate?site=${siteA.id}&period=7d`,
      `/api/v1/vitals?site=${siteA.id}&period=7d`,
      `/api/v1/live?site=${siteA.id}`,
      `/api/v1/sites/${siteA.id}/arrivals`,
      `/api/v1/sites/${siteA.id}/props`,
    ]) {
      const res = await reader("GET", path);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
    }
    const goals = await reader("GET", `/api/v1/sites/${siteA.id}/goals`);
    expect(goals.body.goals.map((g: { id: string; name: string }) => [g.id, g.name])).toEqual([[goalId, "Sign-up"]]);
    const query = await reader("POST", "/api/v1/query", { site_id: siteA.id, metrics: ["visitors"], date_range: "7d" });
    expect(query.status, query.text).toBe(200);
  });

  it("writes nothing: a link on every write route is refused with 401 and no row changes", async () => {
    const reader = shareClient(share.token);
    const before = JSON.stringify(
      await rows(
        "SELECT (SELECT count(*) FROM goals) g, (SELECT count(*) FROM sites) s, (SELECT count(*) FROM share_links) l, (SELECT count(*) FROM api_keys) k, (SELECT count(*) FROM deployments) d, (SELECT group_concat(name) FROM sites) n",
      ),
    );
    for (const [method, path, body] of [
      ["POST", `/api/v1/sites/${siteA.id}/goals`, { kind: "event", match: "pwned" }],
      ["DELETE", `/api/v1/sites/${siteA.id}/goals/${goalId}`, undefined],
      ["PATCH", `/api/v1/sites/${siteA.id}`, { name: "pwned" }],
      ["DELETE", `/api/v1/sites/${siteA.id}`, undefined],
      ["POST", "/api/v1/sites", { name: "x", domain: "pwned.example" }],
      ["POST", `/api/v1/sites/${siteA.id}/shares`, {}],
      ["DELETE", `/api/v1/sites/${siteA.id}/shares/${share.id}`, undefined],
      ["POST", "/api/v1/keys", { name: "x", scopes: ["admin"] }],
      ["POST", "/api/v1/deployments", { site: siteA.id, version: "1" }],
      ["POST", "/api/v1/events", { site: siteA.id, goal_id: goalId }],
      ["PUT", `/api/v1/sites/${siteA.id}/props/pwned`, undefined],
    ] as const) {
      const res = await reader(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
    }
    expect(
      JSON.stringify(
        await rows(
          "SELECT (SELECT count(*) FROM goals) g, (SELECT count(*) FROM sites) s, (SELECT count(*) FROM share_links) l, (SELECT count(*) FROM api_keys) k, (SELECT count(*) FROM deployments) d, (SELECT group_concat(name) FROM sites) n",
        ),
      ),
    ).toBe(before);
  });

  it("reads nothing a read:reports key's report would not show: the site record, keys, sessions, alerts and deployments refuse it", async () => {
    const reader = shareClient(share.token);
    for (const path of [
      `/api/v1/sites/${siteA.id}`,
      "/api/v1/sites",
      `/api/v1/sites/${siteA.id}/verification`,
      `/api/v1/sessions?site=${siteA.id}`,
      "/api/v1/keys",
      "/api/v1/keys/current",
      `/api/v1/alerts?site=${siteA.id}`,
      `/api/v1/deployments?site=${siteA.id}`,
      `/api/v1/sites/${siteA.id}/shares`,
    ]) {
      const res = await reader("GET", path);
      expect(res.status, path).toBe(401);
    }
  });

  it("a link of site A reading site B is 403", async () => {
    const reader = shareClient(share.token);
    for (const path of [
      `/api/v1/overview?site=${siteB.id}`,
      `/api/v1/pages?site=${siteB.id}&period=7d`,
      `/api/v1/sites/${siteB.id}/goals`,
    ]) {
      const res = await reader("GET", path);
      expect(res.status, path).toBe(403);
      expect(res.body.field).toBe(path.includes("/goals") ? "id" : "site");
    }
    const query = await reader("POST", "/api/v1/query", { site_id: siteB.id, metrics: ["visitors"], date_range: "7d" });
    expect(query.status).toBe(403);
  });

  it("a link's token sent as a Bearer key, or a made-up link, is 401", async () => {
    const asBearer = await client(f.stack.url, share.token)("GET", `/api/v1/overview?site=${siteA.id}`);
    expect(asBearer.status).toBe(401);
    const madeUp = await shareClient("A".repeat(43))("GET", `/api/v1/overview?site=${siteA.id}`);
    expect(madeUp.status).toBe(401);
    expect(madeUp.body.field).toBe("authorization");
  });
});

describe("password links", () => {
  it("refuses the reports until unlocked; a wrong password is 401, the right one sets an HttpOnly SameSite=Strict cookie", async () => {
    const share = await makeShare(siteA.id, { password: "open sesame" });
    const locked = await shareClient(share.token)("GET", `/api/v1/overview?site=${siteA.id}`);
    expect(locked.status).toBe(401);
    expect(locked.body.field).toBe("password");
    const whoLocked = await shareClient(share.token)("GET", "/api/v1/share");
    expect(whoLocked.status).toBe(401);
    expect(whoLocked.text).not.toContain("Shared shop");

    const unlock = client(f.stack.url);
    const wrong = await unlock("POST", `/share/${share.token}/unlock`, { password: "open sesame!" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.field).toBe("password");
    expect(wrong.headers.get("set-cookie")).toBeNull();

    const right = await unlock("POST", `/share/${share.token}/unlock`, { password: "open sesame" });
    expect(right.status).toBe(204);
    const setCookie = right.headers.get("set-cookie")!;
    expect(setCookie).toMatch(
      new RegExp(`^wren_share_${share.id}=\\d+\\.[A-Za-z0-9_-]{43}; Max-Age=7200; Path=/; HttpOnly; SameSite=Strict$`),
    );
    const cookie = setCookie.split(";")[0]!;
    const opened = await shareClient(share.token, cookie)("GET", `/api/v1/overview?site=${siteA.id}`);
    expect(opened.status).toBe(200);

    // The cookie opens only its own link, and a forged one opens nothing.
    const other = await makeShare(siteA.id, { password: "open sesame" });
    const renamed = cookie.replace(share.id, other.id);
    expect((await shareClient(other.token, renamed)("GET", `/api/v1/overview?site=${siteA.id}`)).status).toBe(401);
    const forged = `${cookie.split("=")[0]}=${Date.now() + 10 ** 9}.${"A".repeat(43)}`;
    expect((await shareClient(share.token, forged)("GET", `/api/v1/overview?site=${siteA.id}`)).status).toBe(401);
  });

  it("rate limits guesses per link: ten, then 429, while another link is unaffected", async () => {
    const share = await makeShare(siteA.id, { password: "hunter22" });
    const other = await makeShare(siteA.id, { password: "hunter22" });
    const unlock = client(f.stack.url);
    for (let i = 0; i < 10; i++) {
      const res = await unlock("POST", `/share/${share.token}/unlock`, { password: `guess-${i}-xx` });
      expect(res.status).toBe(401);
    }
    const limited = await unlock("POST", `/share/${share.token}/unlock`, { password: "hunter22" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("set-cookie")).toBeNull();
    const fine = await unlock("POST", `/share/${other.token}/unlock`, { password: "hunter22" });
    expect(fine.status).toBe(204);
  });

  it("unlocking an unknown or revoked link is 401 and hostile bodies are 4xx", async () => {
    const share = await makeShare(siteA.id, { password: "hunter22" });
    const unlock = client(f.stack.url);
    expect((await unlock("POST", `/share/${"B".repeat(43)}/unlock`, { password: "hunter22" })).status).toBe(401);
    expect((await unlock("POST", `/share/${share.token}/unlock`, { password: "" })).status).toBe(422);
    expect((await unlock("POST", `/share/${share.token}/unlock`, { password: "hunter22", extra: 1 })).status).toBe(422);
    expect((await unlock("POST", `/share/${share.token}/unlock`, "nope", { "content-type": "application/json" })).status).toBe(
      400,
    );
    await f.admin("DELETE", `/api/v1/sites/${siteA.id}/shares/${share.id}`);
    expect((await unlock("POST", `/share/${share.token}/unlock`, { password: "hunter22" })).status).toBe(401);
  });
});

describe("the share page", () => {
  const page = (path: string) => fetch(`${f.stack.url}${path}`);

  it("serves the dashboard with frame-ancestors 'none', no Referer and no caching", async () => {
    const share = await makeShare(siteA.id);
    const res = await page(`/share/${share.token}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await res.text()).toContain('<script type="module" src="/dashboard/app.js"></script>');
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-robots-tag")).toBe("noindex, nofollow");
    // The dashboard's own paths below the link are the same page.
    expect((await page(`/share/${share.token}/s/${siteA.id}/pages`)).status).toBe(200);
  });

  it("an embeddable link may be framed by the site's origins only", async () => {
    const share = await makeShare(siteA.id, { embed: true });
    const res = await page(`/share/${share.token}`);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp.endsWith("frame-ancestors https://shared.example:* http://shared.example:*")).toBe(true);
    expect(csp).not.toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(res.headers.get("x-frame-options")).toBeNull();
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  });

  it("an unknown and a revoked link get the same 404 page", async () => {
    const share = await makeShare(siteA.id);
    const revoked = await f.admin("DELETE", `/api/v1/sites/${siteA.id}/shares/${share.id}`);
    expect(revoked.status).toBe(204);
    const gone = await page(`/share/${share.token}`);
    const unknown = await page(`/share/${"C".repeat(43)}`);
    const garbage = await page(`/share/%00%3Cscript%3E`);
    for (const res of [gone, unknown, garbage]) {
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    }
    const [a, b, c] = await Promise.all([gone.text(), unknown.text(), garbage.text()]);
    expect(a).toBe(b);
    expect(c).toBe(b);
    expect((await shareClient(share.token)("GET", `/api/v1/overview?site=${siteA.id}`)).status).toBe(401);
    expect(await f.admin("DELETE", `/api/v1/sites/${siteA.id}/shares/${share.id}`).then((r) => r.status)).toBe(404);
  });
});

describe("expiry, on the service's clock", () => {
  it("a link past its expires_at opens nothing: the same 404 page, and 401 on the API", async () => {
    const share = await makeShare(siteA.id, { expires_at: new Date(f.stack.now() + 3_600_000).toISOString() });
    expect(share.body.expires_at).toBe(new Date(Date.parse(share.body.expires_at)).toISOString());
    expect((await fetch(`${f.stack.url}/share/${share.token}`)).status).toBe(200);
    const unknown = await (await fetch(`${f.stack.url}/share/${"D".repeat(43)}`)).text();
    // Two hours later, on the same data.
    const before = f.stack;
    await before.stop(undefined, { keepDatabase: true });
    const later = await startStack({
      dataDir: before.dataDir,
      env: { ...before.env, WREN_TEST_CLOCK_OFFSET_MS: String(2 * 3_600_000) },
    });
    f.stack = { ...later, adminKey: before.adminKey };
    const res = await fetch(`${later.url}/share/${share.token}`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe(unknown);
    const api = await client(later.url)("GET", `/api/v1/overview?site=${siteA.id}`, undefined, {
      authorization: `Share ${share.token}`,
    });
    expect(api.status).toBe(401);
    // It is still listed (expired, not revoked), so an admin sees it and may revoke it.
    const listed = await client(later.url, before.adminKey)("GET", `/api/v1/sites/${siteA.id}/shares`);
    expect(listed.body.shares.map((s: { id: string }) => s.id)).toContain(share.id);
  });
});
