/**
 * Real sqld, through test/helpers/sqld.ts: that the helper starts, stops and restarts it as
 * promised, and the facts about sqld that Wren and its tests rely on — JWT auth refuses
 * everyone else, a replica serves the primary's writes and forwards its own, read batches run
 * there, and a stopped server fails a client at once rather than after a timeout.
 */
import { createClient, type Client } from "@libsql/client";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SQLD_PLATFORMS } from "../../scripts/sqld-lib";
import { makeJwtAuth, startCluster, type SqldCluster } from "../helpers/sqld";

const pipeline = (url: string, headers: Record<string, string>) =>
  fetch(`${url}/v2/pipeline`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ baton: null, requests: [{ type: "execute", stmt: { sql: "SELECT 1" } }, { type: "close" }] }),
  });

/** Polls `read` until it returns `expected` (a replica trails its primary), for at most 10 s. */
async function eventually<T>(read: () => Promise<T>, expected: T): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value === expected) return;
    if (Date.now() > deadline) throw new Error(`still ${String(value)}, not ${String(expected)}, after 10 s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.skipIf(!SQLD_PLATFORMS.has(`${process.platform}-${process.arch}`))("sqld, a primary and a replica", () => {
  let cluster: SqldCluster;
  let primary: Client;
  let replica: Client;
  const count = async (client: Client) => Number((await client.execute("SELECT count(*) AS n FROM notes")).rows[0]!.n);

  beforeAll(async () => {
    cluster = await startCluster();
    primary = createClient({ url: cluster.primary.url, authToken: cluster.auth.token });
    replica = createClient({ url: cluster.replica.url, authToken: cluster.auth.token });
    await primary.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  });

  afterAll(async () => {
    primary?.close();
    replica?.close();
    await cluster?.stop();
  });

  it("answers only a token signed with its key: 401 without one and with another key's", async () => {
    const other = makeJwtAuth(join(cluster.dir, "other"));
    for (const sqld of [cluster.primary, cluster.replica]) {
      expect((await pipeline(sqld.url, {})).status).toBe(401);
      expect((await pipeline(sqld.url, { authorization: `Bearer ${other.token}` })).status).toBe(401);
      expect((await pipeline(sqld.url, { authorization: `Bearer ${cluster.auth.token}` })).status).toBe(200);
    }
    expect(cluster.primary.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(cluster.primary.grpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(cluster.replica.grpcUrl).toBeUndefined();
  });

  it("a write to the primary is read back on the replica", async () => {
    await primary.execute({ sql: "INSERT INTO notes (body) VALUES (?)", args: ["from the primary"] });
    await eventually(
      async () => (await replica.execute("SELECT body FROM notes WHERE id = 1")).rows[0]?.body,
      "from the primary",
    );
  });

  it("a write to the replica is forwarded and stored on the primary", async () => {
    const before = await count(primary);
    await replica.execute({ sql: "INSERT INTO notes (body) VALUES (?)", args: ["through the replica"] });
    expect(await count(primary)).toBe(before + 1);
    expect((await primary.execute("SELECT body FROM notes ORDER BY id DESC LIMIT 1")).rows[0]!.body).toBe("through the replica");
  });

  it("runs read batches (BEGIN TRANSACTION READONLY) on the replica, but does not enforce them", async () => {
    await eventually(() => count(replica), 2);
    const [rows, one] = await replica.batch(["SELECT count(*) AS n FROM notes", "SELECT 1 AS one"], "read");
    expect(Number(rows!.rows[0]!.n)).toBe(2);
    expect(one!.rows[0]!.one).toBe(1);
    // Unlike the embedded server (SQLITE_READONLY), sqld commits a write inside a read batch,
    // on the primary and, forwarded, on a replica: read-only is the caller's promise there.
    for (const client of [primary, replica]) {
      const before = await count(primary);
      await client.batch(["INSERT INTO notes (body) VALUES ('in a read batch')"], "read");
      expect(await count(primary)).toBe(before + 1);
    }
  });

  it("a stopped replica refuses connections at once, and answers again after start()", async () => {
    await cluster.replica.stop();
    const started = Date.now();
    const error = await replica.execute("SELECT 1").then(
      () => undefined,
      (e: unknown) => e as Error & { cause?: { code?: string } },
    );
    expect(error?.cause?.code).toBe("ECONNREFUSED");
    expect(Date.now() - started).toBeLessThan(1_000);
    await cluster.replica.start();
    expect((await replica.execute("SELECT 1 AS one")).rows[0]!.one).toBe(1);
    await eventually(() => count(replica), 4);
    expect(cluster.replica.output()).toMatch(/SIGTERM/);
  });
});
