/** One stack per test file, with an admin client and helpers to make keys, sites and goals. */
import type { Client } from "@libsql/client";
import { ROLLUP_TABLES } from "../../worker/reports/rollup";
import { client, type Call } from "../helpers/http";
import { startStack, type Stack } from "../helpers/stack";

export interface ApiFixture {
  stack: Stack;
  admin: Call;
  makeKey(scopes: string[], sites?: string[] | null, extra?: Record<string, unknown>): Promise<{ id: string; key: string; call: Call }>;
  makeSite(domain: string, name?: string): Promise<{ id: string; s2s_token: string; domain: string }>;
  makeGoal(siteId: string, body?: Record<string, unknown>): Promise<{ id: string }>;
  /**
   * Writes past days' raw rows as if they had arrived in time: stops the service, writes them
   * into its database, forgets the publication (so they fold on their own days, not as late
   * rows into today: a published day is final) and starts it again on the same port and data.
   */
  seedHistory(write: (db: Client) => Promise<void>): Promise<void>;
  /**
   * Moves everything stored so far `days` days back, as if it had arrived then: stops the
   * service, shifts the raw rows' and sessions' times, drops the rollups and the publication,
   * and starts it again, so the publisher folds it all anew. For attacks that must read what came in through
   * the real collector today on a published (past) day.
   */
  rewindDays(days: number): Promise<void>;
  /** A fresh connection to the service's database (closing the previous one: the service may have restarted since). */
  database(): Client;
  /** Closes that connection and stops the service. */
  close(): Promise<void>;
}

let counter = 0;

export async function apiFixture(env: NodeJS.ProcessEnv = {}): Promise<ApiFixture> {
  const stack = await startStack({ env });
  const admin = client(stack.url, stack.adminKey);
  let connection: Client | undefined;
  /** Stops the service, lets `change` write to its database, and starts it again on the same port. */
  async function whileStopped(change: (db: Client) => Promise<void>): Promise<void> {
    const before = fixture.stack;
    await before.stop(undefined, { keepDatabase: true });
    const db = before.openDatabase();
    try {
      await change(db);
    } finally {
      db.close();
    }
    const again = await startStack({ dataDir: before.dataDir, env: before.env });
    fixture.stack = { ...again, adminKey: before.adminKey };
  }
  const fixture: ApiFixture = {
    stack,
    admin,
    database() {
      connection?.close();
      connection = fixture.stack.openDatabase();
      return connection;
    },
    async close() {
      connection?.close();
      await fixture.stack.stop();
    },
    async makeKey(scopes, sites = null, extra = {}) {
      const res = await admin("POST", "/api/v1/keys", { name: `test ${++counter}`, scopes, sites, ...extra });
      if (res.status !== 201) throw new Error(`key create: ${res.status} ${res.text}`);
      return { id: res.body.id, key: res.body.key, call: client(stack.url, res.body.key) };
    },
    async makeSite(domain, name = domain) {
      const res = await admin("POST", "/api/v1/sites", { name, domain });
      if (res.status !== 201 && res.status !== 200) throw new Error(`site create: ${res.status} ${res.text}`);
      return res.body;
    },
    async makeGoal(siteId, body = { kind: "event", match: `signup-${++counter}` }) {
      const res = await admin("POST", `/api/v1/sites/${siteId}/goals`, body);
      if (res.status !== 201) throw new Error(`goal create: ${res.status} ${res.text}`);
      return res.body;
    },
    async seedHistory(write) {
      await whileStopped(async (db) => {
        await write(db);
        await db.execute("DELETE FROM rollup_publication");
      });
    },
    async rewindDays(days) {
      const shift = days * 86_400_000;
      await whileStopped(async (db) => {
        await db.batch(
          [
            ...["events", "conversions", "vitals"].map((table) => ({ sql: `UPDATE ${table} SET ts = ts - ?`, args: [shift] })),
            { sql: "UPDATE sessions SET first_seen = first_seen - ?, last_seen = last_seen - ?", args: [shift, shift] },
            { sql: "UPDATE site_beacons SET first_seen = first_seen - ?", args: [shift] },
            ...ROLLUP_TABLES.map((table) => `DELETE FROM ${table}`),
            "DELETE FROM rollup_watermarks",
            "DELETE FROM rollup_publication",
          ],
          "write",
        );
      });
    },
  };
  return fixture;
}
