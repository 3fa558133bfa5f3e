/**
 * The inbound deployment webhook, `POST /hooks/deployments/{site}`, on the real stack (reached
 * through the collector, the front door): its secret from `POST /api/v1/sites/{id}/deployment-hook`
 * and `wren hooks deployment`; GitHub `deployment_status` deliveries signed here with node:crypto;
 * Standard Webhooks deliveries signed with the `standardwebhooks` package; and every refusal —
 * bad, missing, stale or rotated signatures, an unknown site (the same bytes as a bad signature),
 * a body over 1 MiB — with nothing written.
 */
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "./fixtures";

let f: ApiFixture;
let site: string;
let secret: string;

beforeAll(async () => {
  f = await apiFixture();
  site = (await f.makeSite("hooked.example")).id;
}, 60_000);
afterAll(() => f?.close());

const iso = (ms: number) => new Date(ms).toISOString();

async function markers(siteId = site): Promise<Record<string, unknown>[]> {
  const rs = await f.database().execute({ sql: "SELECT * FROM deployments WHERE site_id = ? ORDER BY ts, id", args: [siteId] });
  return rs.rows.map((r) => ({ ...r }));
}

interface Delivery {
  status: number;
  text: string;
  body: any;
  type: string | null;
}

async function deliver(siteId: string, body: string, headers: Record<string, string>): Promise<Delivery> {
  const res = await fetch(`${f.stack.url}/hooks/deployments/${siteId}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined, type: res.headers.get("content-type") };
}

/** A GitHub delivery, signed as GitHub signs: HMAC-SHA256 keyed with the secret string, over the raw body. */
function gitHub(siteId: string, event: string, payload: unknown, key: string): Promise<Delivery> {
  const raw = JSON.stringify(payload);
  const signature = `sha256=${createHmac("sha256", key).update(raw).digest("hex")}`;
  return deliver(siteId, raw, {
    "x-github-event": event,
    "x-hub-signature-256": signature,
    "x-github-delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958",
  });
}

/** A Standard Webhooks delivery, signed with the reference library. */
function standard(siteId: string, id: string, payload: unknown, key: string, at = new Date()): Promise<Delivery> {
  const raw = JSON.stringify(payload);
  const signature = new Webhook(key).sign(id, at, raw);
  return deliver(siteId, raw, {
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signature,
  });
}

/** What GitHub sends for a deployment status, people included (none of it may be kept). */
function deploymentStatus(state: string, deploymentId: number, createdAt: number) {
  const person = { login: "octocat", id: 1, avatar_url: "https://github.com/images/error/octocat_happy.gif", type: "User" };
  return {
    action: "created",
    deployment_status: {
      id: 9_000_000 + deploymentId,
      state,
      creator: person,
      description: "Deployment finished successfully.",
      environment: "production",
      target_url: "https://example.com/deployment/42/output",
      environment_url: "https://shop.hooked.example",
      created_at: iso(createdAt),
      updated_at: iso(createdAt),
    },
    deployment: {
      id: deploymentId,
      sha: "a84d88e7554fc1fa21bcbc4efae3c782a70d2b9d",
      ref: "main",
      task: "deploy",
      environment: "production",
      description: "Ship the checkout",
      creator: person,
      created_at: iso(createdAt - 60_000),
    },
    repository: { id: 1296269, full_name: "octocat/Hello-World", owner: person },
    sender: person,
  };
}

describe("the deployment hook's secret", () => {
  it("is a Standard Webhooks secret for the site's hook URL, shown once, from write:deployments on the site", async () => {
    const res = await f.admin("POST", `/api/v1/sites/${site}/deployment-hook`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body).toEqual({
      url: `${f.stack.url}/hooks/deployments/${site}`,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(res.body.secret.slice(6), "base64")).toHaveLength(32);
    secret = res.body.secret;
    // Not stored: no column of the site holds it, or its key bytes.
    const row = JSON.stringify((await f.database().execute({ sql: "SELECT * FROM sites WHERE id = ?", args: [site] })).rows);
    expect(row).not.toContain(secret.slice(6, 20));
    expect(row).toContain('"deployment_hook_version":1');
    expect((await f.admin("POST", "/api/v1/sites/site_AAAAAAAAAAAAAAAA/deployment-hook")).status).toBe(404);
  });
});

describe("GitHub deployment_status", () => {
  it("makes a marker for a success, keeping nothing about who deployed; the same deployment again is the same marker", async () => {
    const createdAt = Date.now() - 2 * 60_000;
    const made = await gitHub(site, "deployment_status", deploymentStatus("success", 145988746, createdAt), secret);
    expect(made.status, made.text).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^dep_/),
      site,
      version: "a84d88e7554fc1fa21bcbc4efae3c782a70d2b9d",
      environment: "production",
      external_id: "github:145988746",
      description: "Ship the checkout",
      url: "https://shop.hooked.example",
      deployed_at: iso(createdAt),
      source: "github",
      created_at: expect.any(String),
      smoke: [],
    });
    const stored = JSON.stringify(await markers());
    for (const word of ["octocat", "avatar", "Hello-World", "1296269"]) expect(stored).not.toContain(word);

    const again = await gitHub(site, "deployment_status", deploymentStatus("success", 145988746, createdAt), secret);
    expect([again.status, again.body]).toEqual([200, made.body]);
    expect(await markers()).toHaveLength(1);
    // The API lists it.
    expect((await f.admin("GET", `/api/v1/deployments?site=${site}`)).body.deployments).toEqual([made.body]);
  });

  it("refuses a replay once its marker was deleted: the same signed bytes record nothing (202), however often", async () => {
    const payload = deploymentStatus("success", 27182, Date.now() - 60_000);
    const made = await gitHub(site, "deployment_status", payload, secret);
    expect(made.status, made.text).toBe(201);
    // GitHub's "Redeliver" while the marker exists: the same marker.
    const redelivered = await gitHub(site, "deployment_status", payload, secret);
    expect([redelivered.status, redelivered.body]).toEqual([200, made.body]);
    expect((await f.admin("DELETE", `/api/v1/deployments/${made.body.id}`)).status).toBe(204);
    const before = await markers();
    for (let i = 0; i < 2; i++) {
      const replay = await gitHub(site, "deployment_status", payload, secret);
      expect([replay.status, replay.type, replay.body]).toEqual([
        202,
        "application/json",
        {
          recorded: false,
          reason:
            "GitHub deployment 27182 was recorded before and its marker has since been deleted; a delivery makes a marker once, so nothing was recorded.",
        },
      ]);
    }
    // Another status of the same deployment is the same deployment: nothing either.
    const later = await gitHub(
      site,
      "deployment_status",
      { ...payload, deployment_status: { ...payload.deployment_status, id: 1 } },
      secret,
    );
    expect(later.status).toBe(202);
    expect(await markers()).toEqual(before);
    expect(JSON.stringify(before)).not.toContain("github:27182");
    // The receipt is all that is kept of it.
    const receipts = await f
      .database()
      .execute({ sql: "SELECT key FROM deployment_hook_receipts WHERE site_id = ? AND key = 'github:27182'", args: [site] });
    expect(receipts.rows).toHaveLength(1);
  });

  it("refuses a delivery by its age: created_at more than 24 hours ago, or missing (422), writing nothing", async () => {
    const before = await markers();
    const stale = await gitHub(
      site,
      "deployment_status",
      deploymentStatus("success", 4242, Date.now() - 24 * 3_600_000 - 60_000),
      secret,
    );
    expect([stale.status, stale.type, stale.body]).toEqual([
      422,
      "application/problem+json",
      {
        type: "about:blank",
        title: "Unprocessable Content",
        status: 422,
        detail: "deployment_status.created_at: is more than 24 hours ago",
        field: "deployment_status.created_at",
      },
    ]);
    const payload = deploymentStatus("success", 4243, Date.now());
    const { created_at: _createdAt, ...undated } = payload.deployment_status;
    const missing = await gitHub(site, "deployment_status", { ...payload, deployment_status: undated }, secret);
    expect([missing.status, missing.body.field]).toEqual([422, "deployment_status.created_at"]);
    expect(await markers()).toEqual(before);
  });

  it("accepts and ignores a ping and any state but success (202), writing nothing", async () => {
    const before = await markers();
    const ping = await gitHub(site, "ping", { zen: "Design for failure.", hook_id: 1 }, secret);
    expect([ping.status, ping.body]).toEqual([
      202,
      {
        recorded: false,
        reason: 'GitHub event "ping" is not a deployment status; only deployment_status events with state success make a marker.',
      },
    ]);
    for (const state of ["in_progress", "queued", "failure", "error"]) {
      const res = await gitHub(site, "deployment_status", deploymentStatus(state, 200 + state.length, Date.now()), secret);
      expect([res.status, res.body], state).toEqual([
        202,
        { recorded: false, reason: `Deployment status "${state}" is not success; nothing was recorded.` },
      ]);
    }
    const push = await gitHub(site, "push", { ref: "refs/heads/main" }, secret);
    expect(push.status).toBe(202);
    expect(await markers()).toEqual(before);
  });

  it("refuses a bad or missing signature and an unknown site with the same 401, byte for byte, writing nothing", async () => {
    const before = await markers();
    const payload = deploymentStatus("success", 777, Date.now());
    const wrongKey = await gitHub(site, "deployment_status", payload, `whsec_${Buffer.alloc(32, 7).toString("base64")}`);
    expect([wrongKey.status, wrongKey.type]).toEqual([401, "application/problem+json"]);
    expect(wrongKey.body).toEqual({
      type: "about:blank",
      title: "Unauthorized",
      status: 401,
      detail:
        "The delivery's signature does not verify: an unknown site, a site without a deployment hook, or a wrong or rotated secret.",
      field: "X-Hub-Signature-256",
    });
    const unknownSite = await gitHub("site_AAAAAAAAAAAAAAAA", "deployment_status", payload, secret);
    expect([unknownSite.status, unknownSite.text]).toEqual([401, wrongKey.text]);
    const noHook = (await f.makeSite("unhooked.example")).id;
    const unhooked = await gitHub(noHook, "deployment_status", payload, secret);
    expect([unhooked.status, unhooked.text]).toEqual([401, wrongKey.text]);
    // The right secret over a body changed after signing.
    const raw = JSON.stringify(payload);
    const tampered = await deliver(site, raw.replace("production", "prod"), {
      "x-github-event": "deployment_status",
      "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`,
    });
    expect([tampered.status, tampered.text]).toEqual([401, wrongKey.text]);
    // GitHub's key is the whole secret string, not the decoded bytes.
    const decodedKey = await deliver(site, raw, {
      "x-github-event": "deployment_status",
      "x-hub-signature-256": `sha256=${createHmac("sha256", Buffer.from(secret.slice(6), "base64"))
        .update(raw)
        .digest("hex")}`,
    });
    expect(decodedKey.status).toBe(401);
    const unsigned = await deliver(site, raw, { "x-github-event": "deployment_status" });
    expect([unsigned.status, unsigned.body.field]).toEqual([401, "signature"]);
    const form = await deliver(site, `payload=${encodeURIComponent(raw)}`, {
      "content-type": "application/x-www-form-urlencoded",
      "x-github-event": "deployment_status",
      "x-hub-signature-256": `sha256=${createHmac("sha256", secret)
        .update(`payload=${encodeURIComponent(raw)}`)
        .digest("hex")}`,
    });
    expect([form.status, form.body.field]).toEqual([415, "content-type"]);
    // No API key opens it either.
    const keyed = await deliver(site, raw, {
      authorization: `Bearer ${f.stack.adminKey}`,
      "x-github-event": "deployment_status",
    });
    expect(keyed.status).toBe(401);
    expect(await markers()).toEqual(before);
    expect(await markers(noHook)).toEqual([]);
  });
});

describe("Standard Webhooks", () => {
  it("makes a marker from the API's body; a replayed webhook-id returns it and makes no second one", async () => {
    const deployedAt = Date.now() - 60_000;
    const body = {
      version: "build-512",
      environment: "staging",
      description: "Nightly",
      url: "https://ci.example.com/512",
      deployed_at: iso(deployedAt),
    };
    const made = await standard(site, "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", body, secret);
    expect(made.status, made.text).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^dep_/),
      site,
      version: "build-512",
      environment: "staging",
      external_id: "webhook:msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
      description: "Nightly",
      url: "https://ci.example.com/512",
      deployed_at: iso(deployedAt),
      source: "webhook",
      created_at: expect.any(String),
      smoke: [],
    });
    const count = (await markers()).length;
    const replay = await standard(site, "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", body, secret);
    expect([replay.status, replay.body]).toEqual([200, made.body]);
    // Even a different body under the same webhook-id (a sender reusing ids) makes no second marker.
    const reused = await standard(site, "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", { version: "build-513" }, secret);
    expect([reused.status, reused.body]).toEqual([200, made.body]);

    // With its own external_id: a replay of the delivery is still one marker.
    const own = await standard(site, "msg_own_1", { version: "build-514", external_id: "release-514" }, secret);
    expect([own.status, own.body.external_id]).toEqual([201, "release-514"]);
    const ownReplay = await standard(site, "msg_own_1", { version: "build-514", external_id: "release-514b" }, secret);
    expect([ownReplay.status, ownReplay.body]).toEqual([200, own.body]);
    expect(await markers()).toHaveLength(count + 1);
  });

  it("refuses a replayed webhook-id once its marker was deleted (202), writing nothing", async () => {
    const body = { version: "build-600" };
    const made = await standard(site, "msg_replayed_after_delete", body, secret);
    expect(made.status, made.text).toBe(201);
    expect((await f.admin("DELETE", `/api/v1/deployments/${made.body.id}`)).status).toBe(204);
    const before = await markers();
    const replay = await standard(site, "msg_replayed_after_delete", body, secret);
    expect([replay.status, replay.body]).toEqual([
      202,
      {
        recorded: false,
        reason:
          "Message msg_replayed_after_delete was recorded before and its marker has since been deleted; a delivery makes a marker once, so nothing was recorded.",
      },
    ]);
    expect(await markers()).toEqual(before);
  });

  it("refuses a stale timestamp, a wrong secret, missing headers and an invalid body, writing nothing", async () => {
    const before = await markers();
    const stale = await standard(site, "msg_stale", { version: "old" }, secret, new Date(Date.now() - 10 * 60_000));
    expect([stale.status, stale.body.field]).toEqual([401, "webhook-timestamp"]);
    const future = await standard(site, "msg_future", { version: "new" }, secret, new Date(Date.now() + 10 * 60_000));
    expect([future.status, future.body.field]).toEqual([401, "webhook-timestamp"]);
    const wrong = await standard(site, "msg_wrong", { version: "x" }, `whsec_${Buffer.alloc(32, 9).toString("base64")}`);
    expect([wrong.status, wrong.body.field]).toEqual([401, "webhook-signature"]);
    const unknown = await standard("site_AAAAAAAAAAAAAAAA", "msg_wrong", { version: "x" }, secret);
    expect([unknown.status, unknown.text]).toEqual([401, wrong.text]);
    const raw = JSON.stringify({ version: "x" });
    const noId = await deliver(site, raw, {
      "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
      "webhook-signature": "v1,AAAA",
    });
    expect(noId.status).toBe(401);
    const invalid = await standard(site, "msg_invalid", { version: "x", deployed_at: iso(Date.now() + 3_600_000) }, secret);
    expect([invalid.status, invalid.body.field]).toEqual([422, "deployed_at"]);
    const withSite = await standard(site, "msg_site", { site, version: "x" }, secret);
    expect([withSite.status, withSite.body.field]).toEqual([422, "site"]);
    expect(await markers()).toEqual(before);
  });

  it("refuses a body over 1 MiB (413), writing nothing", async () => {
    const before = await markers();
    const body = { version: "big", description: "x".repeat(1024 * 1024) };
    const big = await standard(site, "msg_big", body, secret);
    expect([big.status, big.type, big.body.field]).toEqual([413, "application/problem+json", "body"]);
    expect(await markers()).toEqual(before);
  });
});

describe("rotation", () => {
  it("a new secret (API or `wren hooks deployment`) stops the old one at once", async () => {
    const old = secret;
    const rotated = await f.admin("POST", `/api/v1/sites/${site}/deployment-hook`);
    expect(rotated.body.secret).not.toBe(old);
    const before = await markers();
    const refused = await gitHub(site, "deployment_status", deploymentStatus("success", 31337, Date.now()), old);
    expect(refused.status).toBe(401);
    expect((await standard(site, "msg_old", { version: "old-key" }, old)).status).toBe(401);
    expect(await markers()).toEqual(before);
    expect((await standard(site, "msg_new", { version: "new-key" }, rotated.body.secret)).status).toBe(201);

    const cli = await f.stack.cli(["hooks", "deployment", site, "--json"]);
    expect(cli.code, cli.stderr).toBe(0);
    const hook = JSON.parse(cli.stdout);
    expect(hook).toEqual({
      site,
      url: `${f.stack.url}/hooks/deployments/${site}`,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect((await standard(site, "msg_api_key_after_cli", { version: "stale-key" }, rotated.body.secret)).status).toBe(401);
    const viaCli = await gitHub(site, "deployment_status", deploymentStatus("success", 31337, Date.now()), hook.secret);
    expect([viaCli.status, viaCli.body.external_id]).toEqual([201, "github:31337"]);
    const human = await f.stack.cli(["hooks", "deployment", site]);
    expect(human.stdout).toContain(`URL:    ${f.stack.url}/hooks/deployments/${site}\nSecret: whsec_`);
    expect((await f.stack.cli(["hooks", "deployment", "site_AAAAAAAAAAAAAAAA"])).code).toBe(1);
    expect((await f.stack.cli(["hooks", "nope", site])).code).toBe(2);
  });
});
