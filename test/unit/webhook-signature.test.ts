/**
 * The deployment hook's signature checks (worker/lib/webhook-signature.ts, WebCrypto) agree
 * with the reference signers: GitHub's HMAC computed with node:crypto, and the `standardwebhooks`
 * package; and the hook secret is the documented derivation of the server secret.
 */
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { deploymentHookSecret } from "../../worker/domain/deployment-hook";
import { standardWebhookKey, verifyGitHubSignature, verifyStandardWebhook } from "../../worker/lib/webhook-signature";

const SERVER_SECRET = "11".repeat(32);
const encode = (text: string) => new TextEncoder().encode(text);

describe("the deployment hook secret", () => {
  it("is whsec_ + base64 HMAC-SHA256(server secret, deployment-hook:SITE:VERSION), per site and version", async () => {
    const secret = await deploymentHookSecret(SERVER_SECRET, "site_A", 3);
    const expected = createHmac("sha256", Buffer.from(SERVER_SECRET, "hex")).update("deployment-hook:site_A:3").digest("base64");
    expect(secret).toBe(`whsec_${expected}`);
    expect(standardWebhookKey(secret)).toHaveLength(32);
    const others = await Promise.all([
      deploymentHookSecret(SERVER_SECRET, "site_A", 4),
      deploymentHookSecret(SERVER_SECRET, "site_B", 3),
      deploymentHookSecret("22".repeat(32), "site_A", 3),
    ]);
    expect(new Set([secret, ...others]).size).toBe(4);
  });
});

describe("GitHub signatures", () => {
  it("verify an HMAC keyed with the whole secret string over the raw bytes, and nothing else", async () => {
    const secret = await deploymentHookSecret(SERVER_SECRET, "site_A", 1);
    const body = encode('{"zen":"Keep it logically awesome.","hook_id":1}');
    const hex = createHmac("sha256", secret).update(body).digest("hex");
    expect(await verifyGitHubSignature(secret, body, `sha256=${hex}`)).toBe(true);
    expect(await verifyGitHubSignature(secret, body, `sha256=${hex.toUpperCase()}`)).toBe(true);
    expect(await verifyGitHubSignature(secret, encode('{"zen":"Keep it logically awesome.","hook_id":2}'), `sha256=${hex}`)).toBe(
      false,
    );
    expect(await verifyGitHubSignature(`${secret}x`, body, `sha256=${hex}`)).toBe(false);
    const decodedKey = createHmac("sha256", standardWebhookKey(secret)!).update(body).digest("hex");
    expect(await verifyGitHubSignature(secret, body, `sha256=${decodedKey}`)).toBe(false);
    for (const header of [null, "", hex, `sha1=${hex}`, `sha256=${hex.slice(2)}`, `sha256=${hex}00`, "sha256=zz"]) {
      expect(await verifyGitHubSignature(secret, body, header), String(header)).toBe(false);
    }
    // The raw bytes, not a re-encoding: a byte-order mark is part of the body.
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...body]);
    expect(
      await verifyGitHubSignature(secret, withBom, `sha256=${createHmac("sha256", secret).update(withBom).digest("hex")}`),
    ).toBe(true);
  });
});

describe("Standard Webhooks signatures", () => {
  const now = Date.now();
  const at = new Date(now - 30_000);
  const timestamp = String(Math.floor(at.getTime() / 1000));

  it("verify what the standardwebhooks package signs, and the package verifies the same", async () => {
    const secret = await deploymentHookSecret(SERVER_SECRET, "site_A", 1);
    const payload = '{"version":"3f9c2ab"}';
    const signature = new Webhook(secret).sign("msg_1", at, payload);
    const headers = { id: "msg_1", timestamp, signature };
    expect(await verifyStandardWebhook(secret, encode(payload), headers, now)).toEqual({
      ok: true,
      id: "msg_1",
      timestampMs: Number(timestamp) * 1000,
    });
    expect(
      new Webhook(secret).verify(payload, {
        "webhook-id": "msg_1",
        "webhook-timestamp": timestamp,
        "webhook-signature": signature,
      }),
    ).toEqual({
      version: "3f9c2ab",
    });
    // One good signature among several (a sender rotating keys); other versions are skipped.
    const other = new Webhook(`whsec_${Buffer.alloc(32, 5).toString("base64")}`).sign("msg_1", at, payload);
    expect(
      (await verifyStandardWebhook(secret, encode(payload), { ...headers, signature: `v2,abc ${other} ${signature}` }, now)).ok,
    ).toBe(true);

    const refused = async (
      change: { id?: string | null; timestamp?: string; signature?: string | null },
      body = payload,
      clock = now,
    ) => verifyStandardWebhook(secret, encode(body), { ...headers, ...change }, clock);
    expect(await refused({}, '{"version":"3f9c2ac"}')).toEqual({ ok: false, reason: "signature" });
    expect(await refused({ id: "msg_2" })).toEqual({ ok: false, reason: "signature" });
    expect(await refused({ timestamp: String(Number(timestamp) + 1) })).toEqual({ ok: false, reason: "signature" });
    expect(await refused({ signature: other })).toEqual({ ok: false, reason: "signature" });
    expect(await refused({ signature: signature.replace("v1,", "v2,") })).toEqual({ ok: false, reason: "signature" });
    expect(await refused({ signature: null })).toEqual({ ok: false, reason: "malformed" });
    expect(await refused({ id: null })).toEqual({ ok: false, reason: "malformed" });
    expect(await refused({ timestamp: "soon" })).toEqual({ ok: false, reason: "malformed" });
    // Five minutes either way, no more.
    expect((await refused({}, payload, now + 4 * 60_000)).ok).toBe(true);
    expect(await refused({}, payload, now + 6 * 60_000)).toEqual({ ok: false, reason: "stale" });
    expect(await refused({}, payload, at.getTime() - 6 * 60_000)).toEqual({ ok: false, reason: "stale" });
    // The key is the decoded bytes after whsec_: the secret string itself as a key does not verify.
    const asString = createHmac("sha256", secret).update(`msg_1.${timestamp}.${payload}`).digest("base64");
    expect(await refused({ signature: `v1,${asString}` })).toEqual({ ok: false, reason: "signature" });
    expect(await verifyStandardWebhook("not-a-secret", encode(payload), headers, now)).toEqual({
      ok: false,
      reason: "signature",
    });
  });
});
