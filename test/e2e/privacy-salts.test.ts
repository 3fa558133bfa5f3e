/**
 * Session salts on disk, against the real stack (`wren start`, loopback only), as
 * docs/collector.md ("Where a salt exists, and for how long") says:
 *
 * - a salt is kept in the CollectorState Durable Object's SQLite file under
 *   `$WREN_DATA/do/wren-collector-state-v1/`, so a restart neither starts new sessions nor stops
 *   conversions from attaching to sessions seen before it;
 * - an expired salt leaves the disk: no byte of any file under `do/` holds it once it is
 *   deleted — an overwritten value would linger in the file and its WAL.
 *
 * The rotation is brought about without waiting two days: with the service stopped, the test
 * rewrites the stored salts as if they had been made 25 and 49 hours ago (values are V8
 * serialised, as Node's `v8.serialize` writes them), and starts it again.
 */
import { createClient, type Client } from "@libsql/client";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Salt } from "../../worker/collector/salts";
import { client, type Call } from "../helpers/http";
import { startStack, type Stack } from "../helpers/stack";
import { BROWSER_UA } from "../collector/helpers";

const DOMAIN = "salts.example";
const TRACKER_ID = "salted-visitor-abcdefgh";
const HOUR = 3_600_000;

let stack: Stack;
let adminKey: string;
let admin: Call;
let site: { id: string; s2s_token: string };
let goal: string;

beforeAll(async () => {
  stack = await startStack();
  adminKey = stack.adminKey!;
  admin = client(stack.url, adminKey);
  site = (await admin("POST", "/api/v1/sites", { name: "Salts", domain: DOMAIN })).body;
  goal = (await admin("POST", `/api/v1/sites/${site.id}/goals`, { name: "Order", kind: "event", match: "order" })).body.id;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

async function restart(change?: () => Promise<void>): Promise<void> {
  await stack.stop();
  await change?.();
  stack = await startStack({ dataDir: stack.dataDir, env: stack.env });
  admin = client(stack.url, adminKey);
}

async function beacon(): Promise<void> {
  const res = await fetch(`${stack.url}/e`, {
    method: "POST",
    headers: { "content-type": "text/plain", origin: `https://${DOMAIN}`, "user-agent": BROWSER_UA },
    body: JSON.stringify({ site: site.id, session: TRACKER_ID, events: [{ type: "pageview", path: "/" }] }),
  });
  expect(res.status).toBe(202);
}

async function sessionIds(): Promise<string[]> {
  const db = createClient({ url: `file:${join(stack.dataDir, "wren.db")}` });
  try {
    return (await db.execute({ sql: "SELECT id FROM sessions WHERE site_id = ? ORDER BY first_seen", args: [site.id] })).rows.map(
      (r) => String(r.id),
    );
  } finally {
    db.close();
  }
}

const stateDir = () => join(stack.dataDir, "do", "wren-collector-state-v1");

/** The CollectorState object's database: the one `<64 hex>.sqlite` file of its namespace. */
function stateFile(): string {
  const files = readdirSync(stateDir()).filter((name) => /^[0-9a-f]{64}\.sqlite$/.test(name));
  expect(files).toHaveLength(1);
  return join(stateDir(), files[0]!);
}

/** Files under the Durable Object folder whose bytes hold `text`. */
function filesHolding(text: string): string[] {
  const root = join(stack.dataDir, "do");
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (readFileSync(path).includes(Buffer.from(text))) found.push(path.slice(root.length + 1));
    }
  };
  walk(root);
  return found;
}

async function withState<T>(use: (db: Client) => Promise<T>): Promise<T> {
  const db = createClient({ url: `file:${stateFile()}` });
  try {
    return await use(db);
  } finally {
    db.close();
  }
}

async function storedValue(db: Client, key: string): Promise<unknown> {
  const rs = await db.execute({ sql: "SELECT value FROM _cf_KV WHERE key = ?", args: [key] });
  return rs.rows[0] ? deserialize(Buffer.from(rs.rows[0].value as ArrayBuffer)) : undefined;
}

async function storedSalts(db: Client): Promise<Salt[]> {
  return (await storedValue(db, "salts")) as Salt[];
}

describe("session salts", () => {
  it("survive a restart: the same tab is the same session afterwards", async () => {
    await beacon();
    const before = await sessionIds();
    expect(before).toHaveLength(1);
    await restart();
    await beacon();
    expect(await sessionIds()).toEqual(before);
    // A conversion through the token: the collector notes the token's version in the same storage.
    const res = await fetch(`${stack.url}/s2s`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-token": site.s2s_token },
      body: JSON.stringify({ goal_id: goal, id: "order-0" }),
    });
    expect(res.status).toBe(202);
  }, 120_000);

  it("leave every file once deleted; the one still in its lookup day stays, and conversions attach through it after a restart", async () => {
    const expired = randomBytes(32).toString("hex");
    let inUse = "";
    let tokenVersions: unknown;
    await restart(async () => {
      // As if the salt in use had been made 25 hours ago (due for rotation, kept for lookups)
      // and an older one 49 hours ago (past its 48 hours: to be deleted).
      await withState(async (db) => {
        const [current] = await storedSalts(db);
        inUse = current!.secret;
        const now = Date.now();
        const salts: Salt[] = [
          { ...current!, createdAt: now - 25 * HOUR },
          { id: "expired", secret: expired, createdAt: now - 49 * HOUR },
        ];
        await db.execute({ sql: "UPDATE _cf_KV SET value = ? WHERE key = 'salts'", args: [serialize(salts)] });
        tokenVersions = await storedValue(db, "token-versions");
        expect(tokenVersions).toEqual({ [site.id]: 1 });
        await db.execute("PRAGMA wal_checkpoint(TRUNCATE)");
      });
      // Closed: the expired salt is in the object's file, as any salt of the last two days is.
      expect(filesHolding(expired)).toEqual([`wren-collector-state-v1/${stateFile().split("/").pop()}`]);
    });

    // The first use rotates: a new salt, the old current one kept for lookups, the expired one deleted.
    const attached = await fetch(`${stack.url}/s2s`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-token": site.s2s_token },
      body: JSON.stringify({ goal_id: goal, session: TRACKER_ID, id: "order-1" }),
    });
    expect(attached.status).toBe(202);
    // The session was seen before the restart, hashed with the salt now kept for lookups.
    expect(await attached.json()).toMatchObject({ accepted: 1, attached: 1 });

    // At once, and in every file: the object's database, its WAL, the alarm store.
    expect(filesHolding(expired)).toEqual([]);
    expect(filesHolding(inUse).length).toBeGreaterThan(0);
    // The new salt starts a new session for the same tab (sessions do not cross a rotation).
    await beacon();
    expect(await sessionIds()).toHaveLength(2);

    // What is stored now (read with the service stopped): the new salt and the one kept for
    // lookups, nothing else; the token versions came through the rewrite.
    await restart(async () => {
      await withState(async (db) => {
        const [current, previous, ...rest] = await storedSalts(db);
        expect(rest).toEqual([]);
        expect(previous!.secret).toBe(inUse);
        expect(current!.secret).not.toBe(inUse);
        expect(await storedValue(db, "token-versions")).toEqual(tokenVersions);
      });
      expect(filesHolding(expired)).toEqual([]);
    });
  }, 120_000);
});
