/**
 * Importing on a site's Settings screen in real Chromium against the real stack: an admin
 * chooses Plausible and the fixture's zip, sees the upload's progress and then "Reading…", then
 * the summary with the API's exact numbers and the rows left out with file and line; the import
 * is listed, and Remove (after its confirmation) takes it and its days away. A malformed file
 * shows the API's words — the file and line — under the file control, and writes nothing. A site
 * admin signed in with a passkey uploads with the session cookie and the CSRF header the
 * dashboard sends; a viewer sees no Import history.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { FIXTURES_DIR, PLAUSIBLE_ZIP } from "../fixtures/imports/generate";
import { launchChromium } from "../helpers/browser";
import { openDashboardPage, seriousViolations, signIn, tableRows } from "../helpers/dashboard-page";
import { freePort } from "../helpers/ports";

// The callbacks passed to page.evaluate run in the page; these are the page globals they use.
declare const document: { querySelector(selector: string): { textContent: string | null } | null; body: unknown };
declare const window: { importStates: string[] };
declare class MutationObserver {
  constructor(callback: () => void);
  observe(target: unknown, options: { childList: boolean; subtree: boolean; characterData: boolean }): void;
}

let f: ApiFixture;
let browser: Browser;
let siteId = "";
/** Where people sign in: localhost (a valid RP ID for passkeys, where 127.0.0.1 is none). */
let origin = "";

beforeAll(async () => {
  const port = await freePort();
  origin = `http://localhost:${port}`;
  f = await apiFixture({ PORT: String(port), WREN_RATE_LIMIT: "100000/60" });
  siteId = (await f.makeSite("imports.wren.test", "Imported shop")).id;
  browser = await launchChromium(["--host-resolver-rules=MAP localhost 127.0.0.1"]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await f?.close();
});

const countRows = async (table: string) =>
  Number(
    (await f.database().execute({ sql: `SELECT count(*) AS n FROM ${table} WHERE site_id = ?`, args: [siteId] })).rows[0]!.n,
  );

async function settings(): Promise<{ page: Page; errors: string[] }> {
  const { page, errors } = await openDashboardPage(browser);
  await signIn(page, f.stack.url, f.stack.adminKey!);
  await page.goto(`${f.stack.url}/dashboard/s/${siteId}/settings`);
  await page.getByRole("heading", { name: "Import history" }).waitFor();
  return { page, errors };
}

describe("Import history on the Settings screen", () => {
  it("uploads Plausible's export with progress, shows the summary's exact numbers, lists it and removes it", async () => {
    const { page, errors } = await settings();
    await page.getByText("Nothing imported yet.").waitFor();
    await page.getByLabel("From").selectOption("plausible");
    await page.getByLabel("Export file").setInputFiles(join(FIXTURES_DIR, PLAUSIBLE_ZIP));
    // Every state the upload shows, as the page draws it (the upload of 3 KB is over in an instant).
    await page.evaluate(() => {
      window.importStates = [];
      new MutationObserver(() => {
        const text = document.querySelector(".import-state")?.textContent ?? null;
        if (text !== null && window.importStates[window.importStates.length - 1] !== text) window.importStates.push(text);
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    await page.getByRole("button", { name: "Import", exact: true }).click();

    const summary = page.getByRole("status", { name: "Import summary" });
    await summary.waitFor();
    const states = await page.evaluate(() => window.importStates);
    expect(states[0]).toMatch(/^ ?Uploading… \d+%$/);
    expect(states[states.length - 1]).toBe(" Reading…");
    expect(await summary.locator("p").first().textContent()).toBe("Imported plausible-export.zip from Plausible.");
    const figures = await summary.locator("dl > *").allTextContents();
    expect(figures).toEqual([
      "Rows read",
      "71",
      "Days imported",
      "3",
      "Period",
      "Sat, 1 Mar 2025 – Mon, 3 Mar 2025",
      "Rows left out",
      "2",
    ]);
    expect(await tableRows(page, /Rows left out, by reason/)).toEqual([["custom events are not imported", "2"]]);
    expect(await page.getByRole("list", { name: "The first rows left out" }).getByRole("listitem").allTextContents()).toEqual([
      "imported_custom_events_20250301_20250303.csv, line 2: custom events are not imported",
      "imported_custom_events_20250301_20250303.csv, line 3: custom events are not imported",
    ]);
    const [row] = await tableRows(page, /Imports, newest first/);
    expect(row!.slice(0, 6)).toEqual(["plausible-export.zip", "Plausible", "Sat, 1 Mar 2025 – Mon, 3 Mar 2025", "3", "71", "2"]);
    expect(await countRows("imported_days")).toBe(3);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "Remove plausible-export.zip" }).click();
    await page.getByRole("button", { name: "Yes, remove" }).click();
    await page.getByText("Nothing imported yet.").waitFor();
    expect(await countRows("imports")).toBe(0);
    expect(await countRows("imported_days")).toBe(0);
    expect(await countRows("imported_cells")).toBe(0);
    expect(errors).toEqual([]);
  });

  it("shows a malformed file's line under the file control, and imports nothing", async () => {
    const { page } = await settings();
    await page.getByLabel("From").selectOption("goatcounter");
    await page.getByLabel("Export file").setInputFiles({
      name: "visits.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(readFileSync(join(FIXTURES_DIR, "goatcounter-export.csv"), "utf8").replace('"2,Path"', "Path")),
    });
    await page.getByRole("button", { name: "Import", exact: true }).click();
    await expect
      .poll(() => page.locator("#import-body-problem").textContent())
      .toBe('Line 1 of visits.csv: not a GoatCounter export (its header starts with "2,Path")');
    expect(await page.getByLabel("Export file").getAttribute("aria-invalid")).toBe("true");
    expect(await countRows("imports")).toBe(0);
  });

  it("a site admin signed in with a passkey uploads with the session cookie (CSRF header from the dashboard); a viewer sees no section", async () => {
    const person = async (role: string): Promise<Page> => {
      const invited = await f.admin("POST", "/api/v1/people", { site: siteId, role });
      expect(invited.status, invited.text).toBe(201);
      const { page, context } = await openDashboardPage(browser);
      const cdp = await context.newCDPSession(page);
      await cdp.send("WebAuthn.enable");
      await cdp.send("WebAuthn.addVirtualAuthenticator", {
        options: {
          protocol: "ctap2",
          transport: "internal",
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
        },
      });
      await page.goto(invited.body.link);
      await page.getByLabel("Your name").fill(`${role} of the shop`);
      await page.getByRole("button", { name: "Create a passkey and join" }).click();
      await page.getByRole("button", { name: "Sign out" }).waitFor();
      await page.goto(`${origin}/dashboard/s/${siteId}/settings`);
      await page
        .getByRole("heading", { name: "Share links" })
        .or(page.getByRole("heading", { name: "Custom properties" }))
        .first()
        .waitFor();
      return page;
    };
    const admin = await person("admin");
    await admin.getByRole("heading", { name: "Import history" }).waitFor();
    await admin.getByLabel("From").selectOption("goatcounter");
    await admin.getByLabel("Export file").setInputFiles(join(FIXTURES_DIR, "goatcounter-export.csv"));
    await admin.getByRole("button", { name: "Import", exact: true }).click();
    const summary = admin.getByRole("status", { name: "Import summary" });
    await summary.waitFor();
    expect(await summary.locator("p").first().textContent()).toBe("Imported goatcounter-export.csv from GoatCounter.");
    expect(await summary.locator("dl > *").allTextContents()).toEqual([
      "Rows read",
      "10",
      "Days imported",
      "2",
      "Period",
      "Sat, 1 Mar 2025 – Sun, 2 Mar 2025",
      "Rows left out",
      "2",
    ]);
    const [listed] = (await f.admin("GET", `/api/v1/sites/${siteId}/imports`)).body.imports;
    expect(listed).toMatchObject({ source: "goatcounter", file_name: "goatcounter-export.csv", rows_read: 10, days_imported: 2 });
    const audit = await f.database().execute({ sql: "SELECT actor_kind FROM audit_log WHERE target = ?", args: [listed.id] });
    expect(audit.rows.map((row) => row.actor_kind)).toEqual(["account"]);

    const viewer = await person("viewer");
    await viewer.getByRole("heading", { name: "Custom properties" }).waitFor();
    expect(await viewer.getByRole("heading", { name: "Import history" }).count()).toBe(0);
  }, 60_000);
});
