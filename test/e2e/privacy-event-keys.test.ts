/**
 * Attack 9 of the privacy issue, against the real stack (`wren start`: the collector, the api,
 * the publisher, the embedded libSQL server; loopback only): a backend posts its conversions
 * with ids that name its users (`user-42:order-9`). Stored as sent, the id would sit in
 * `conversions` next to the session hash that joins to the pages the visitor saw, linking a
 * backend user to their browsing. Wren stores a keyed hash of it instead, deduplicates replays
 * by that hash, and drops the hash when the 24-hour window closes (retention, with an injected
 * clock), after which nothing in the database — its tables or the bytes of its file — can be
 * matched against the id.
 */
import { createClient, type Client } from "@libsql/client";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventKeyOf } from "../../worker/collector/event-key";
import { applyRetention } from "../../worker/reports/retention";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { filesHolding } from "../helpers/files";
import { freePort } from "../helpers/ports";
import { BROWSER_UA } from "../collector/helpers";

const RAW_ID = "user-42:order-9";
const DOMAIN = "event-ids.example";
const TRACKER_ID = "tab-of-user-42-abcdefgh";
const OTHER_IDS = Array.from({ length: 20 }, (_, i) => `user-${100 + i}:order-${200 + i}`);

let f: ApiFixture;
let dbPort: number;
let site: { id: string; s2s_token: string };
let goal: string;
const clients: Client[] = [];

beforeAll(async () => {
  dbPort = await freePort();
  f = await apiFixture({ WREN_DB_PORT: String(dbPort), WREN_RATE_LIMIT: "100000/60" });
  site = await f.makeSite(DOMAIN);
  goal = (await f.makeGoal(site.id, { name: "Order", kind: "event", match: "order" })).id;
}, 120_000);
afterAll(async () => {
  for (const c of clients) c.close();
  await f?.stack.stop();
});

/** The stack's database file, read directly as an operator (or a thief of the disk) would. */
function fileDb(): Client {
  const db = createClient({ url: `file:${join(f.stack.dataDir, "wren.db")}` });
  clients.push(db);
  return db;
}

/** The stack's own libSQL server, with its token: statements run as the workers' do. */
function serverDb(): Client {
  const authToken = readFileSync(join(f.stack.dataDir, "libsql.token"), "utf8").trim();
  const db = createClient({ url: `http://127.0.0.1:${dbPort}`, authToken });
  clients.push(db);
  return db;
}

function secret(): string {
  return readFileSync(join(f.stack.dataDir, "secret.key"), "utf8").trim();
}

async function s2s(body: unknown) {
  const res = await fetch(`${f.stack.url}/s2s`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-token": site.s2s_token },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Every column of every table where `needle` occurs as a substring (as text). */
async function occurrences(db: Client, needle: string): Promise<string[]> {
  const found: string[] = [];
  const tables = await db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  for (const { name } of tables.rows) {
    const columns = await db.execute(`SELECT name FROM pragma_table_info('${String(name)}')`);
    for (const { name: column } of columns.rows) {
      const hits = await db.execute({
        sql: `SELECT count(*) AS n FROM "${String(name)}" WHERE instr(CAST("${String(column)}" AS TEXT), ?) > 0`,
        args: [needle],
      });
      if (Number(hits.rows[0]!.n) > 0) found.push(`${String(name)}.${String(column)}`);
    }
  }
  return found;
}

/** Every file under `dir` whose bytes contain `needle` (as UTF-8 or UTF-16LE). */
function filesContaining(dir: string, needle: string): string[] {
  return filesHolding(dir, [Buffer.from(needle, "utf8"), Buffer.from(needle, "utf16le")]);
}

describe("attack 9: raw event ids linking a backend user to browsing", () => {
  it("stores a keyed hash of the id, never the id, next to the session; replays are duplicates, both ways in", async () => {
    // The visitor browses (the collector stores a session hash and the paths)...
    const beacon = await fetch(`${f.stack.url}/e`, {
      method: "POST",
      headers: { "content-type": "text/plain", origin: `https://${DOMAIN}`, "user-agent": BROWSER_UA },
      body: JSON.stringify({ site: site.id, session: TRACKER_ID, events: [{ type: "pageview", path: "/account" }] }),
    });
    expect(beacon.status).toBe(202);
    // ...and the backend posts the order on that session, with its own id for it.
    const first = await s2s({ goal_id: goal, id: RAW_ID, session: TRACKER_ID, value: 9 });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({
      accepted: 1,
      duplicates: 0,
      attached: 1,
      events: [{ id: RAW_ID, status: "stored", session: "attached" }],
    });

    // Retries and a replay through the events API count nothing new.
    const retry = await s2s({ goal_id: goal, id: RAW_ID, session: TRACKER_ID, value: 9 });
    expect(retry.body).toMatchObject({ accepted: 0, duplicates: 1, events: [{ id: RAW_ID, status: "duplicate" }] });
    const viaApi = await f.admin("POST", "/api/v1/events", { site: site.id, goal_id: goal, id: RAW_ID, value: 9 });
    expect(viaApi.status, viaApi.text).toBe(202);
    expect(viaApi.body).toMatchObject({ accepted: 0, duplicates: 1 });
    // The same id on another site is another event (keys are per site).
    const other = await f.makeSite("event-ids-other.example");
    const otherGoal = (await f.makeGoal(other.id, { name: "Order", kind: "event", match: "order" })).id;
    expect((await f.admin("POST", "/api/v1/events", { site: other.id, goal_id: otherGoal, id: RAW_ID })).body).toMatchObject({
      accepted: 1,
    });

    // The rest of the backend's day: more orders of more users, in one batch.
    const batch = await s2s({ events: OTHER_IDS.map((id) => ({ goal_id: goal, id, value: 1 })) });
    expect(batch.body).toMatchObject({ accepted: OTHER_IDS.length, duplicates: 0 });

    const db = fileDb();
    const stored = await db.execute({
      sql: "SELECT event_key, session_id FROM conversions WHERE site_id = ? ORDER BY id LIMIT 1",
      args: [site.id],
    });
    expect(stored.rows).toHaveLength(1);
    const key = String(stored.rows[0]!.event_key);
    expect(key).toMatch(/^id:[A-Za-z0-9_-]{22}$/);
    expect(key).toBe(await eventKeyOf(secret(), site.id, RAW_ID));
    expect(stored.rows[0]!.session_id).not.toBeNull();
    // The id is nowhere: no column of any table, no byte of any file in the data folder
    // (the database, its WAL, the Durable Objects' storage).
    for (const part of [RAW_ID, "user-42", "order-9", OTHER_IDS[7]!]) {
      expect(await occurrences(db, part), part).toEqual([]);
      expect(filesContaining(f.stack.dataDir, part), part).toEqual([]);
    }
  }, 120_000);

  it("drops the key once the 24-hour window has closed: afterwards nothing in the database matches the id", async () => {
    const key = await eventKeyOf(secret(), site.id, RAW_ID);
    const keys = [key, ...(await Promise.all(OTHER_IDS.map((id) => eventKeyOf(secret(), site.id, id))))];
    // Retention as the publisher runs it, through the stack's own libSQL server, a day and a
    // minute from now (the real publisher, on the real clock, keeps the key for now).
    const server = serverDb();
    expect(await occurrences(server, key)).toEqual(["conversions.event_key"]);
    const run = await applyRetention(server as never, { now: Date.now() + 24 * 3_600_000 + 60_000, days: 30 });
    expect(run.keysDropped).toBeGreaterThanOrEqual(keys.length + 1);
    expect(run.deleted).toEqual({});
    // The conversion still counts; its key is gone from every table.
    const rows = await server.execute({
      sql: "SELECT event_key, session_id FROM conversions WHERE site_id = ?",
      args: [site.id],
    });
    expect(rows.rows.map((r) => r.event_key)).toEqual(keys.map(() => null));
    expect(rows.rows[0]!.session_id).not.toBeNull();
    for (const k of keys) expect(await occurrences(server, k.slice(3))).toEqual([]);

    // And from the file: the server zeroes what is deleted (secure_delete), and moves its WAL
    // into the file when it stops. Nothing is left to match against a known id.
    await f.stack.stop();
    const dir = f.stack.dataDir;
    expect(existsSync(join(dir, "wren.db-wal")) ? statSync(join(dir, "wren.db-wal")).size : 0).toBe(0);
    expect(keys.flatMap((k) => filesContaining(dir, k.slice(3)))).toEqual([]);
    expect(filesContaining(dir, "user-42")).toEqual([]);
  }, 120_000);
});
