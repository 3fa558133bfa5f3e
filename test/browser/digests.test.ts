/**
 * The Digests section of a site's Settings in real Chromium against the real stack (no SMTP
 * configured): an email digest is refused under its field with the API's words (409, nothing
 * made); one to the site's alert destination is scheduled, listed, previewed (the email's text,
 * nothing sent) and deleted after a confirmation, as the API then answers; a read-only key sees
 * the list without the form or Delete.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { launchChromium } from "../helpers/browser";
import { openDashboardPage, signIn } from "../helpers/dashboard-page";

let f: ApiFixture;
let browser: Browser;
let site: string;

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  site = (await f.makeSite("digests.wren.test", "Digest shop")).id;
  const rule = await f.admin("POST", "/api/v1/alerts", {
    site,
    metric: "visitors",
    condition: "above",
    threshold: 1_000_000_000,
    destinations: [{ url: "https://hooks.example.com/wren/digest" }],
  });
  expect(rule.status, rule.text).toBe(201);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await f?.close();
});

describe("Settings: Digests", () => {
  it("refuses email without mail, schedules to a destination, previews and deletes; read-only without the form", async () => {
    const { page, context, errors } = await openDashboardPage(browser);
    await signIn(page, f.stack.url, f.stack.adminKey!);
    await page.goto(`${f.stack.url}/dashboard/s/${site}/settings`);
    const section = page.locator("section[aria-labelledby=digests-title]");
    await section.getByText("No digests yet.").waitFor();

    await section.getByRole("textbox", { name: "Email addresses" }).fill("team@example.com");
    await section.getByRole("button", { name: "Schedule" }).click();
    const problem = page.locator("#digest-add-email_to-problem");
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/^Mail is not configured on this server/);
    expect((await f.admin("GET", `/api/v1/sites/${site}/digests`)).body.digests).toEqual([]);

    await section.getByRole("textbox", { name: "Email addresses" }).fill("");
    await section.getByRole("combobox", { name: "Alert destination" }).selectOption({ index: 1 });
    await section.getByRole("button", { name: "Schedule" }).click();
    const list = section.getByRole("list", { name: "Scheduled digests" });
    await expect
      .poll(() => list.locator("li > span[id^=digest-]").allTextContents())
      .toEqual(["Weekly to standard webhook https://hooks.example.com/wren/…"]);
    const made = (await f.admin("GET", `/api/v1/sites/${site}/digests`)).body.digests;
    expect(made).toHaveLength(1);

    await list.getByRole("button", { name: /^Preview / }).click();
    const preview = list.getByLabel("Digest preview (the email's text)");
    await preview.waitFor();
    expect(await preview.textContent()).toMatch(/^Weekly digest for Digest shop, \d{4}-\d\d-\d\d – \d{4}-\d\d-\d\d\n/);

    const reader = await f.makeKey(["read:sites", "read:reports"], [site]);
    const second = await openDashboardPage(browser);
    await signIn(second.page, f.stack.url, reader.key);
    await second.page.goto(`${f.stack.url}/dashboard/s/${site}/settings`);
    const readOnly = second.page.locator("section[aria-labelledby=digests-title]");
    await readOnly.getByText("A key with the write:alerts scope can schedule and delete digests.").waitFor();
    expect(await readOnly.getByRole("listitem").count()).toBe(1);
    expect(await readOnly.getByRole("button", { name: /^Delete / }).count()).toBe(0);
    expect(await readOnly.getByRole("button", { name: "Schedule" }).count()).toBe(0);
    // The sign-in screen asks GET /api/v1/session first (401 without a cookie): not this screen's.
    expect(second.errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
    await second.context.close();

    await list.getByRole("button", { name: /^Delete / }).click();
    await list.getByRole("button", { name: "Yes, delete" }).click();
    await section.getByText("No digests yet.").waitFor();
    expect((await f.admin("GET", `/api/v1/sites/${site}/digests`)).body.digests).toEqual([]);
    // The 409 of the first try is expected (and the sign-in screen's 401); nothing else went wrong.
    expect(errors.filter((e) => !/status of (409|401)/.test(e))).toEqual([]);
    await context.close();
  }, 120_000);
});
