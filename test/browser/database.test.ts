/**
 * The attack on the embedded database from a web page, in real Chromium: a page the operator
 * visits posts SQL to the database's loopback port. The server here runs without a token, so
 * that only its browser guard (Origin, Sec-Fetch-Site, Host, JSON bodies) stands in the way —
 * with `wren start` the token would stop it too.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launchChromium } from "../helpers/browser";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startHranaServer, type HranaServer } from "../../server/hrana/index";
import { serveOnLoopback, type LoopbackServer } from "../helpers/http";

let database: HranaServer;
let browser: Browser;
let evil: LoopbackServer;

const insert = (value: number) => JSON.stringify({ requests: [{ type: "execute", stmt: { sql: `INSERT INTO t VALUES (${value})` } }] });

async function rows(): Promise<unknown[]> {
  const res = await fetch(`${database.url}/v2/pipeline`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ requests: [{ type: "execute", stmt: { sql: "SELECT a FROM t ORDER BY a" } }] }),
  });
  const body = (await res.json()) as { results: { response: { result: { rows: { value: string }[][] } } }[] };
  return body.results[0]!.response.result.rows.map((row) => Number(row[0]!.value));
}

beforeAll(async () => {
  database = await startHranaServer({ file: join(mkdtempSync(join(tmpdir(), "wren-browser-db-")), "wren.db"), authToken: "" });
  await fetch(`${database.url}/v2/pipeline`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ requests: [{ type: "execute", stmt: { sql: "CREATE TABLE t (a)" } }] }) });
  evil = await serveOnLoopback((_req, res) => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>a page</title>"));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await evil?.close();
  await database?.close();
});

it("a page cannot write to the database: not blind (no-cors text/plain), not by form, not with CORS", async () => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${evil.url}/`);
  const pipeline = `${database.url}/v2/pipeline`;
  // What a page can do without any permission: a "simple" request that needs no preflight.
  const blind = await page.evaluate(
    ([url, body]) => fetch(url!, { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body }).then(() => "sent", () => "failed"),
    [pipeline, insert(1)],
  );
  expect(blind).toBe("sent"); // the browser sent it; the server must be the one that says no
  // The same with a declared JSON body, which needs a preflight.
  const cors = await page.evaluate(
    ([url, body]) => fetch(url!, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => `answered ${r.status}`, () => "refused"),
    [pipeline, insert(2)],
  );
  expect(cors).toBe("refused");
  // A plain HTML form, the oldest way.
  await page.setContent(
    `<form method="POST" action="${pipeline}" enctype="text/plain"><input name='{"requests":[{"type":"execute","stmt":{"sql":"INSERT INTO t VALUES (3)"}}],"x":"' value='"}'></form>`,
  );
  await Promise.all([page.waitForEvent("load"), page.evaluate(() => (globalThis as unknown as { document: { forms: { submit(): void }[] } }).document.forms[0]!.submit())]);
  expect(await page.content()).toContain("Forbidden");
  await page.context().close();

  expect(await rows()).toEqual([]);
});
