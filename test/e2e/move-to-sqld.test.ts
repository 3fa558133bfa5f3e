/**
 * Moving a one-box Wren from its embedded database to sqld, step by step as docs/operations.md
 * ("Scale-out", "Moving the embedded database to sqld") says: stop Wren (which checkpoints
 * wren.db), copy the file to `<sqld data>/dbs/default/data`, start sqld with a JWT key, start
 * Wren on the same data folder with LIBSQL_URL and LIBSQL_AUTH_TOKEN. Everything is still there:
 * keys, sites, tokens, events — and the session salt, so a visitor of the morning is the same
 * session after the move and a conversion attaches to it.
 */
import { createClient } from "@libsql/client";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BROWSER_UA } from "../collector/helpers";
import { client } from "../helpers/http";
import { makeJwtAuth, startSqld, type Sqld } from "../helpers/sqld";
import { startStack, type Stack } from "../helpers/stack";

const DOMAIN = "moving.example";
const VISITOR = "moving-visitor-abcdefgh";
const temp = mkdtempSync(join(tmpdir(), "wren-move-"));
let stack: Stack | undefined;
let sqld: Sqld | undefined;

afterAll(async () => {
  await stack?.stop().catch(() => undefined);
  await sqld?.stop().catch(() => undefined);
  rmSync(temp, { recursive: true, force: true });
}, 30_000);

async function beacon(url: string, site: string): Promise<void> {
  const res = await fetch(`${url}/e`, {
    method: "POST",
    headers: { "content-type": "text/plain", origin: `https://${DOMAIN}`, "user-agent": BROWSER_UA },
    body: JSON.stringify({ site, session: VISITOR, events: [{ type: "pageview", path: "/" }] }),
  });
  expect(res.status).toBe(202);
}

describe("moving the embedded database to sqld", () => {
  it("keeps keys, sites, tokens, events and sessions", async () => {
    // One box on the embedded server.
    stack = await startStack();
    const adminKey = stack.adminKey!;
    const admin = client(stack.url, adminKey);
    const site = (await admin("POST", "/api/v1/sites", { name: "Moving", domain: DOMAIN })).body;
    const goal = (await admin("POST", `/api/v1/sites/${site.id}/goals`, { name: "Order", kind: "event", match: "order" })).body;
    await beacon(stack.url, site.id);
    const before = await admin("GET", "/api/v1/sites");

    // 1. Stop Wren: the embedded server checkpoints its WAL into wren.db.
    const { dataDir, env } = stack;
    await stack.stop();
    stack = undefined;
    // 2. The file becomes sqld's default database.
    const sqldDir = join(temp, "sqld");
    mkdirSync(join(sqldDir, "dbs", "default"), { recursive: true });
    copyFileSync(join(dataDir, "wren.db"), join(sqldDir, "dbs", "default", "data"));
    // 3. sqld with a JWT key (never without one: it runs readfile() for any client).
    const auth = makeJwtAuth(join(temp, "jwt"));
    sqld = await startSqld({ dir: sqldDir, auth });
    // 4. Wren on the same data folder (its secret and Durable Object storage), the database on sqld.
    stack = await startStack({ dataDir, env: { ...env, LIBSQL_URL: sqld.url, LIBSQL_AUTH_TOKEN: auth.token } });
    expect(stack.output()).toContain(`using the libSQL server at ${new URL(sqld.url).host}`);

    const moved = client(stack.url, adminKey);
    const after = await moved("GET", "/api/v1/sites");
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
    // The same token, and the same session for the same tab: the salt moved with the database.
    await beacon(stack.url, site.id);
    const conversion = await fetch(`${stack.url}/s2s`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-token": site.s2s_token },
      body: JSON.stringify({ goal_id: goal.id, session: VISITOR, id: "after-the-move" }),
    });
    expect(conversion.status).toBe(202);
    expect(await conversion.json()).toMatchObject({ accepted: 1, attached: 1 });

    const db = createClient({ url: sqld.url, authToken: auth.token });
    try {
      const counts = (
        await db.execute({
          sql: "SELECT (SELECT count(*) FROM sessions WHERE site_id = ?1), (SELECT count(*) FROM events WHERE site_id = ?1), (SELECT count(*) FROM conversions WHERE site_id = ?1)",
          args: [site.id],
        })
      ).rows[0]!;
      expect([0, 1, 2].map((i) => Number(counts[i]))).toEqual([1, 2, 1]);
    } finally {
      db.close();
    }
  }, 120_000);
});
