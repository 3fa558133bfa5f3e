/**
 * Session salts, against the real stack (`wren start`, loopback only), as docs/collector.md
 * ("Where a salt exists, and for how long") says:
 *
 * - a salt is kept in the database (`session_salts`), so a restart neither starts new sessions
 *   nor stops conversions from attaching to sessions seen before it, and every instance of a
 *   scale-out hashes with the same one;
 * - an expired salt leaves the disk: no byte of any file of the data folder holds it once it is
 *   deleted — the embedded server zeroes deleted rows and checkpoints its WAL when idle;
 * - retention deletes an expired salt even when no beacon comes to rotate it;
 * - a salt an older version kept in the CollectorState Durable Object leaves that file too.
 *
 * The rotation is brought about without waiting two days: with the service stopped, the test
 * dates the stored salts back 25 and 49 hours and starts it again.
 */
import { createClient, type Client } from "@libsql/client";
import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Salt } from "../../worker/collector/salts";
import { client, type Call } from "../helpers/http";
import { filesHolding } from "../helpers/files";
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
  // Publisher runs every 2 s: retention deletes a lapsed salt within one.
  stack = await startStack({ env: { WREN_PUBLISH_INTERVAL: "2" } });
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

/** A connection to the service's database file (only while it is stopped, or for reads). */
async function withDatabase<T>(use: (db: Client) => Promise<T>): Promise<T> {
  const db = createClient({ url: `file:${join(stack.dataDir, "wren.db")}` });
  try {
    return await use(db);
  } finally {
    db.close();
  }
}

async function sessionIds(): Promise<string[]> {
  return withDatabase(async (db) =>
    (await db.execute({ sql: "SELECT id FROM sessions WHERE site_id = ? ORDER BY first_seen", args: [site.id] })).rows.map((r) => String(r.id)),
  );
}

async function storedSalts(db: Client): Promise<Salt[]> {
  const rs = await db.execute("SELECT id, secret, created_at FROM session_salts ORDER BY created_at DESC");
  return rs.rows.map((r) => ({ id: String(r.id), secret: String(r.secret), createdAt: Number(r.created_at) }));
}

/** Files of the data folder whose bytes hold `text`, as paths inside it. */
function dataFilesHolding(text: string): string[] {
  return filesHolding(stack.dataDir, [Buffer.from(text)]);
}

/** Polls `check` until it passes (the idle checkpoint comes a second or two after the last write). */
async function eventually(check: () => void, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

const conversion = (id: string, session?: string) =>
  fetch(`${stack.url}/s2s`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-token": site.s2s_token },
    body: JSON.stringify({ goal_id: goal, id, ...(session ? { session } : {}) }),
  });

const stateDir = () => join(stack.dataDir, "do", "wren-collector-state-v1");

/** The CollectorState object's database: the one `<64 hex>.sqlite` file of its namespace. */
function stateFile(): string {
  const files = readdirSync(stateDir()).filter((name) => /^[0-9a-f]{64}\.sqlite$/.test(name));
  expect(files).toHaveLength(1);
  return join(stateDir(), files[0]!);
}

describe("session salts", () => {
  it("survive a restart: the same tab is the same session afterwards", async () => {
    await beacon();
    const before = await sessionIds();
    expect(before).toHaveLength(1);
    await restart();
    await beacon();
    expect(await sessionIds()).toEqual(before);
    // A conversion through the token: the collector notes the token's version in its Durable Object.
    expect((await conversion("order-0")).status).toBe(202);
  }, 120_000);

  it("leave every file once deleted; the one still in its lookup day stays, and conversions attach through it after a restart", async () => {
    const expired = randomBytes(32).toString("hex");
    let inUse = "";
    await restart(() =>
      // As if the salt in use had been made 25 hours ago (due for rotation, kept for lookups)
      // and an older one 49 hours ago (past its 48 hours: to be deleted).
      withDatabase(async (db) => {
        const [current, ...others] = await storedSalts(db);
        expect(others).toEqual([]);
        inUse = current!.secret;
        const now = Date.now();
        await db.batch(
          [
            { sql: "UPDATE session_salts SET created_at = ? WHERE id = ?", args: [now - 25 * HOUR, current!.id] },
            { sql: "INSERT INTO session_salts (id, secret, created_at) VALUES ('expired', ?, ?)", args: [expired, now - 49 * HOUR] },
          ],
          "write",
        );
        await db.execute("PRAGMA wal_checkpoint(TRUNCATE)");
        // Closed: the expired salt is in the database file, as any salt of the last two days is.
        expect(dataFilesHolding(expired)).toEqual(["wren.db"]);
      }),
    );

    // The first use rotates: a new salt, the old current one kept for lookups, the expired one deleted.
    const attached = await conversion("order-1", TRACKER_ID);
    expect(attached.status).toBe(202);
    // The session was seen before the restart, hashed with the salt now kept for lookups.
    expect(await attached.json()).toMatchObject({ accepted: 1, attached: 1 });

    // In every file of the data folder: the database, its WAL, the Durable Objects' storage.
    await eventually(() => expect(dataFilesHolding(expired)).toEqual([]));
    expect(dataFilesHolding(inUse).length).toBeGreaterThan(0);
    // The new salt starts a new session for the same tab (sessions do not cross a rotation).
    await beacon();
    expect(await sessionIds()).toHaveLength(2);

    // What is stored now: the new salt and the one kept for lookups, nothing else.
    await restart(() =>
      withDatabase(async (db) => {
        const [current, previous, ...rest] = await storedSalts(db);
        expect(rest).toEqual([]);
        expect(previous!.secret).toBe(inUse);
        expect(current!.secret).not.toBe(inUse);
        expect(dataFilesHolding(expired)).toEqual([]);
      }),
    );
  }, 120_000);

  it("are deleted by retention when no beacon comes, within a publisher run of their 48 hours", async () => {
    const lapsed = randomBytes(32).toString("hex");
    // Written beside the running service (WAL lets another process write the file), as if it
    // had been made 49 hours ago.
    await withDatabase(async (db) => {
      await db.execute({ sql: "INSERT INTO session_salts (id, secret, created_at) VALUES ('lapsed', ?, ?)", args: [lapsed, Date.now() - 49 * HOUR] });
    });
    // No beacon, no conversion: only the publisher (every 2 s here) runs.
    await eventually(() => expect(dataFilesHolding(lapsed)).toEqual([]), 30_000);
    expect(await withDatabase((db) => storedSalts(db))).toHaveLength(2);
  }, 120_000);

  it("that an older Wren kept in the CollectorState object leave its file at the first use, the token versions kept", async () => {
    const legacy = randomBytes(32).toString("hex");
    let tokenVersions: unknown;
    await restart(async () => {
      const db = createClient({ url: `file:${stateFile()}` });
      try {
        const rs = await db.execute("SELECT value FROM _cf_KV WHERE key = 'token-versions'");
        tokenVersions = deserialize(Buffer.from(rs.rows[0]!.value as ArrayBuffer));
        expect(tokenVersions).toEqual({ [site.id]: 1 });
        const salts: Salt[] = [{ id: "legacy", secret: legacy, createdAt: Date.now() - HOUR }];
        await db.execute({ sql: "INSERT INTO _cf_KV (key, value) VALUES ('salts', ?)", args: [serialize(salts)] });
        await db.execute("PRAGMA wal_checkpoint(TRUNCATE)");
      } finally {
        db.close();
      }
      expect(dataFilesHolding(legacy)).toEqual([`do/wren-collector-state-v1/${stateFile().split("/").pop()}`]);
    });
    expect((await conversion("order-2")).status).toBe(202);
    await eventually(() => expect(dataFilesHolding(legacy)).toEqual([]));
    await restart(async () => {
      const db = createClient({ url: `file:${stateFile()}` });
      try {
        const rs = await db.execute("SELECT key, value FROM _cf_KV ORDER BY key");
        expect(rs.rows.map((r) => String(r.key))).toEqual(["token-versions"]);
        expect(deserialize(Buffer.from(rs.rows[0]!.value as ArrayBuffer))).toEqual(tokenVersions);
      } finally {
        db.close();
      }
    });
  }, 120_000);
});
