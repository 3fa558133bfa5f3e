/**
 * People in real Chromium (Debian's) with its virtual authenticator (CDP WebAuthn, a resident
 * key with user verification), against the real stack on its loopback defaults, which people
 * reach at http://localhost (a secure context, and a valid RP ID, where 127.0.0.1 is none): the first admin opens the onboarding invitation link, makes a passkey,
 * signs out and back in with it, adds a second device's passkey and signs in with that one alone,
 * and invites a viewer; the viewer (another browser context with
 * its own authenticator) joins, reads the site's goals and reports but sees no People, Keys or
 * goal editing, and, once an editor of a second site, the goal form there and still not on the
 * first; the admin removes the viewer, whose next request is 401.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { launchChromium } from "../helpers/browser";
import { openDashboardPage } from "../helpers/dashboard-page";
import { freePort } from "../helpers/ports";

let f: ApiFixture;
let browser: Browser;
let origin = "";
let siteId = "";
let otherSiteId = "";

beforeAll(async () => {
  const port = await freePort();
  origin = `http://localhost:${port}`;
  // No WREN_PUBLIC_URL: the loopback defaults, whose invitation links say localhost (an IP address is no RP ID).
  f = await apiFixture({ PORT: String(port), WREN_RATE_LIMIT: "100000/60" });
  siteId = (await f.makeSite("people.wren.test", "People shop")).id;
  await f.makeGoal(siteId, { kind: "event", match: "signup", name: "Signups" });
  otherSiteId = (await f.makeSite("other.wren.test", "Other shop")).id;
  browser = await launchChromium(["--host-resolver-rules=MAP localhost 127.0.0.1"]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await f?.close();
});

/** A fresh context whose page has its own virtual platform authenticator. */
async function personWithPasskeys(): Promise<{ page: Page; errors: string[]; newDevice: () => Promise<void> }> {
  const { page, context, errors } = await openDashboardPage(browser);
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const device = () =>
    cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: {
        protocol: "ctap2",
        transport: "internal",
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
  let current = (await device()).authenticatorId;
  /** Swaps the authenticator for a new one without passkeys (another device). */
  const newDevice = async () => {
    await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId: current });
    current = (await device()).authenticatorId;
  };
  return { page, errors, newDevice };
}

async function joinWith(page: Page, link: string, name: string): Promise<void> {
  await page.goto(link);
  await page.getByLabel("Your name").fill(name);
  await page.getByRole("button", { name: "Create a passkey and join" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

describe("people in the dashboard", () => {
  it("admin joins, signs out and in with a passkey, invites a viewer who sees only what a viewer may; removal ends the viewer's session", async () => {
    const link = readFileSync(join(f.stack.dataDir, "first-admin-invitation.txt"), "utf8").trim();
    expect(link.startsWith(`${origin}/dashboard/invite#`)).toBe(true);

    const admin = await personWithPasskeys();
    await joinWith(admin.page, link, "Ada");
    await expect.poll(() => admin.page.getByRole("link", { name: "People", exact: true }).isVisible()).toBe(true);
    await expect.poll(() => admin.page.getByRole("link", { name: "Ada", exact: true }).isVisible()).toBe(true);

    await admin.page.getByRole("button", { name: "Sign out" }).click();
    await admin.page.getByRole("button", { name: "Sign in with a passkey" }).click();

    // A second device: its passkey is added on "Your sessions", and alone signs Ada in again.
    await admin.page.getByRole("button", { name: "Sign out" }).waitFor();
    await admin.newDevice();
    await admin.page.getByRole("link", { name: "Ada", exact: true }).click();
    await admin.page.getByLabel(/^Name \(optional/).fill("backup key");
    await admin.page.getByRole("button", { name: "Add a passkey" }).click();
    await admin.page.getByText("Passkey added: it signs you in from now on.").waitFor();
    await admin.page.getByRole("navigation", { name: "Account" }).getByRole("button", { name: "Sign out" }).click();
    await admin.page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await admin.page.getByRole("link", { name: "People", exact: true }).click();
    await admin.page.getByRole("heading", { name: "People", exact: true }).waitFor();

    await admin.page.locator('form.invite select[name="site"]').selectOption(siteId);
    await admin.page.locator('form.invite select[name="role"]').selectOption("viewer");
    await admin.page.getByRole("button", { name: "Invite" }).click();
    const viewerLink = (await admin.page.getByTestId("invitation-link").textContent())!;
    expect(viewerLink).toMatch(/\/dashboard\/invite#[A-Za-z0-9_-]{43}$/);

    const viewer = await personWithPasskeys();
    await joinWith(viewer.page, viewerLink, "Vic");
    await viewer.page.goto(`${origin}/dashboard/s/${siteId}/goals`);
    await viewer.page.getByText("Signups").first().waitFor();
    await viewer.page.goto(`${origin}/dashboard/s/${siteId}/overview`);
    await viewer.page.getByRole("heading", { name: "Overview" }).waitFor();
    expect(await viewer.page.getByText("read:reports").count()).toBe(0); // no "needs read:reports" notice
    for (const hidden of ["People", "Keys", "Audit"])
      expect(await viewer.page.getByRole("link", { name: hidden, exact: true }).count(), hidden).toBe(0);
    await viewer.page.goto(`${origin}/dashboard/s/${siteId}/goals`);
    await viewer.page.getByText("Signups").first().waitFor();
    expect(await viewer.page.getByRole("form", { name: "New goal" }).count()).toBe(0);

    // An editor of a second site: its goals screen offers the form, the first site's still not.
    const people = (await f.admin("GET", "/api/v1/people")).body as { people: { id: string; name: string }[] };
    const vic = people.people.find((p) => p.name === "Vic")!;
    expect((await f.admin("PATCH", `/api/v1/people/${vic.id}`, { site: otherSiteId, role: "editor" })).status).toBe(200);
    await viewer.page.goto(`${origin}/dashboard/`);
    await viewer.page.goto(`${origin}/dashboard/s/${otherSiteId}/goals`);
    await viewer.page.getByRole("form", { name: "New goal" }).waitFor();
    await viewer.page.goto(`${origin}/dashboard/s/${siteId}/goals`);
    await viewer.page.getByText("Signups").first().waitFor();
    expect(await viewer.page.getByRole("form", { name: "New goal" }).count()).toBe(0);

    await admin.page.reload();
    await admin.page.getByRole("button", { name: "Remove Vic" }).click();
    await expect.poll(() => admin.page.getByRole("button", { name: "Remove Vic" }).count()).toBe(0);
    const status = await viewer.page.evaluate(
      async () => (await fetch("/api/v1/session", { credentials: "same-origin" })).status,
    );
    expect(status).toBe(401);

    // The audit log: the newest 100 entries, then the older ones below them, in the API's order.
    for (let i = 0; i < 101; i++)
      expect((await f.admin("PATCH", `/api/v1/sites/${otherSiteId}`, { name: `Other shop ${i}` })).status).toBe(200);
    const logged = (await f.admin("GET", "/api/v1/audit?limit=500")).body as { entries: { action: string }[] };
    expect(logged.entries.length).toBeGreaterThan(101);
    expect(logged.entries.map((e) => e.action)).toContain("account.remove");
    const auditRows = admin.page.locator("section[aria-labelledby=audit-heading] tbody tr");
    await admin.page.getByRole("link", { name: "Audit", exact: true }).click();
    await expect.poll(() => auditRows.count()).toBe(100);
    await admin.page.getByRole("button", { name: "Older entries" }).click();
    await expect.poll(() => auditRows.count()).toBe(logged.entries.length);
    expect(await auditRows.locator("td:nth-child(3)").allTextContents()).toEqual(logged.entries.map((e) => e.action));
    expect(await admin.page.getByRole("button", { name: "Older entries" }).count()).toBe(0);

    // Your sessions: this browser's, with its Sign out, and the ones the API lists for Ada.
    const mine = await admin.page.evaluate(
      async () =>
        ((await (await fetch("/api/v1/account/sessions", { credentials: "same-origin" })).json()) as { sessions: unknown[] })
          .sessions.length,
    );
    await admin.page.getByRole("link", { name: "Ada", exact: true }).click();
    const sessionRows = admin.page.locator("section[aria-labelledby=account-heading] > ul > li");
    await expect.poll(() => sessionRows.count()).toBe(mine);
    expect(await sessionRows.filter({ hasText: "(this browser)" }).count()).toBe(1);
    expect(admin.errors.filter((e) => !e.includes("401"))).toEqual([]);
  }, 120_000);
});
