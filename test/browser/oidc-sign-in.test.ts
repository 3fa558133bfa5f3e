/**
 * Signing in with the operator's OpenID provider in real Chromium: the sign-in screen offers
 * "Sign in with NAME" when GET /api/v1/auth/methods names the provider, the browser goes through
 * a real `oidc-provider` on loopback and back, and the page's own requests then carry the
 * HttpOnly, SameSite=Strict session cookie (after a cross-site redirect chain) — GET
 * /api/v1/session names the invited person and role. A refused sign-in comes back to the sign-in
 * screen with its reason worded; a code the dashboard does not know shows nothing.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser";
import { CLIENT_ID, CLIENT_SECRET, startTestProvider, type TestProvider } from "../helpers/oidc-provider";
import { freePort } from "../helpers/ports";
import { client } from "../helpers/http";
import { startStack, type Stack } from "../helpers/stack";

declare const document: { querySelector(selector: string): { textContent: string } | null };

let stack: Stack;
let provider: TestProvider;
let browser: Browser;
let wren = "";
let siteId = "";

async function invite(role: string): Promise<string> {
  const token = randomBytes(32).toString("base64url");
  const db = stack.openDatabase();
  await db.execute({
    sql: "INSERT INTO invitations (id, token_hash, site_id, role, email, invited_by, created_at, expires_at) VALUES (?, ?, ?, ?, NULL, 'test', ?, ?)",
    args: [
      `inv_${randomBytes(8).toString("hex")}`,
      createHash("sha256").update(token).digest("hex"),
      siteId,
      role,
      stack.now(),
      stack.now() + 86_400_000,
    ],
  });
  db.close();
  return token;
}

beforeAll(async () => {
  const port = await freePort();
  wren = `http://127.0.0.1:${port}`;
  provider = await startTestProvider(`${wren}/api/v1/auth/oidc/callback`);
  stack = await startStack({
    env: {
      PORT: String(port),
      WREN_OIDC_ISSUER: provider.issuer,
      WREN_OIDC_CLIENT_ID: CLIENT_ID,
      WREN_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      WREN_OIDC_NAME: "Acme SSO",
      WREN_OIDC_ALLOW: "127.0.0.1",
    },
  });
  siteId = (await client(stack.url, stack.adminKey)("POST", "/api/v1/sites", { name: "Shop", domain: "shop.example" })).body.id;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await provider?.close();
});

describe("OIDC sign-in in the dashboard", () => {
  it("offers 'Sign in with NAME', and an invited person comes back signed in with the invited role", async () => {
    const token = await invite("editor");
    provider.signInAs({ sub: "ada-sub", email: "ada@example.com", email_verified: true, name: "Ada" });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${wren}/dashboard/`);
    const button = page.getByRole("link", { name: "Sign in with Acme SSO" });
    await button.waitFor();
    expect(await button.getAttribute("href")).toBe("/api/v1/auth/oidc/start");

    // The invitation page's button: the same start, with the invitation.
    await page.goto(`${wren}/dashboard/invite#${token}`);
    const join = page.getByRole("link", { name: "Sign in with Acme SSO" });
    expect(await join.getAttribute("href")).toBe(`/api/v1/auth/oidc/start?invitation=${token}`);
    await join.click();
    await page.waitForURL(`${wren}/dashboard/`);
    const cookie = (await context.cookies(wren)).find((c) => c.name === "wren_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" });
    const me = await page.evaluate(async () => {
      const response = await fetch("/api/v1/session", { credentials: "same-origin" });
      return { status: response.status, body: (await response.json()) as { account: { name: string }; grants: unknown[] } };
    });
    expect(me.status).toBe(200);
    expect(me.body.account.name).toBe("Ada");
    expect(me.body.grants).toEqual([{ site: siteId, role: "editor" }]);
    await context.close();
  });

  it("clicking the button as a stranger comes back to the sign-in with the reason in words", async () => {
    provider.signInAs({ sub: "stranger-sub", email: "s@example.com", email_verified: true });
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${wren}/dashboard/`);
    await page.getByRole("link", { name: "Sign in with Acme SSO" }).click();
    await page.waitForURL(`${wren}/dashboard/?sign_in_error=unknown_identity`);
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toBe("This account has no access to Wren. Ask an admin for an invitation.");
    expect((await context.cookies(wren)).some((c) => c.name === "wren_session")).toBe(false);

    // A code the dashboard does not know (or markup) is not shown at all.
    await page.goto(`${wren}/dashboard/?sign_in_error=%3Cimg%20src%3Dx%3E`);
    await page.getByRole("link", { name: "Sign in with Acme SSO" }).waitFor();
    expect(await page.evaluate(() => document.querySelector("#oidc-sign-in-problem"))).toBeNull();
    await context.close();
  });
});
