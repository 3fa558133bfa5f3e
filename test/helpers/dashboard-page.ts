/**
 * The dashboard in a browser test: a page in a fresh context (no storage shared with another
 * test) that collects console and page errors, signing in with a key as a person does, and
 * reading what the page draws (tables, filter chips, axe's violations) to compare with the API.
 */
import AxeBuilder from "@axe-core/playwright";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";

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

/** A table's body rows as the page draws them: each cell's text. `name` is the table's accessible name. */
export function tableRows(page: Page, name: RegExp): Promise<(string | null)[][]> {
  return page
    .getByRole("table", { name })
    .locator("tbody tr")
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent)));
}

/** The filter chips above a screen, as read: "Country is Germany". */
export function filterChips(page: Page): Promise<string[]> {
  return page.locator(".filter-bar .chip").evaluateAll((items) =>
    items.map((chip) =>
      [...chip.children]
        .slice(0, 3)
        .map((c) => c.textContent)
        .join(" "),
    ),
  );
}

/**
 * Polls until the page draws what the API answers, both read afresh each time (days publish
 * after a restart); on a timeout the last pair is the failure's message.
 */
export async function drawsAsAnswered(drawn: () => Promise<unknown>, answered: () => Promise<unknown>): Promise<void> {
  await expect
    .poll(
      async () => {
        const [page, api] = await Promise.all([drawn(), answered()]);
        return JSON.stringify(page) === JSON.stringify(api) ? "same" : JSON.stringify({ page, api });
      },
      { timeout: 20_000 },
    )
    .toBe("same");
}

/** Axe's serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
