/**
 * The dashboard in a browser test: a page in a fresh context (no storage shared with another
 * test) that collects console and page errors, and signing in with a key as a person does.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";

export interface DashboardPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught page errors, for a test to require none. */
  errors: string[];
}

export interface PageOptions {
  width?: number;
  height?: number;
  dark?: boolean;
  /** Grant clipboard access on this origin (the copy buttons). */
  clipboardOrigin?: string;
}

export async function openDashboardPage(browser: Browser, options: PageOptions = {}): Promise<DashboardPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
    timezoneId: "Europe/Berlin",
    colorScheme: options.dark ? "dark" : "light",
  });
  if (options.clipboardOrigin)
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: options.clipboardOrigin });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return { page, context, errors };
}

/** Signs in on the dashboard at `baseUrl` with `key`, as the sign-in form asks. */
export async function signIn(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}
