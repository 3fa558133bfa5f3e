// The official @libsql/client (node and web builds) against the server: what the workers and
// the CLI actually do.

import { type Client, LibsqlError, createClient } from "@libsql/client";
import { createClient as createWebClient } from "@libsql/client/web";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { startTestServer, type TestServer } from "./helpers.js";

let server: TestServer;
const clients: Client[] = [];

function client(options: { intMode?: "number" | "bigint" | "string" } = {}): Client {
  const c = createClient({ url: server.url, ...options });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  server = await startTestServer({ streamIdleMs: 500 });
});

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

afterAll(async () => {
  await server.dispose();
});

async function countRows(c: Client, table: string): Promise<number> {
  const rs = await c.execute(`SELECT count(*) AS n FROM ${table}`);
  return Number(rs.rows[0]!["n"]);
}

describe("execute and batch", () => {
  test("execute returns columns, typed rows, rowsAffected and lastInsertRowid", async () => {
    const c = client();
    await c.execute("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL)");
    const insert = await c.execute({ sql: "INSERT INTO people (name, score) VALUES (?, ?)", args: ["ada", 1.5] });
    expect(insert.rowsAffected).toBe(1);
    expect(insert.lastInsertRowid).toBe(1n);
    const rs = await c.execute({ sql: "SELECT id, name, score FROM people WHERE name = :name", args: { name: "ada" } });
    expect(rs.columns).toEqual(["id", "name", "score"]);
    expect(rs.columnTypes).toEqual(["INTEGER", "TEXT", "REAL"]);
    expect(rs.rows.map((r) => ({ ...r }))).toEqual([{ id: 1, name: "ada", score: 1.5 }]);
  });

  test("batch in write mode is one transaction and rolls back on error", async () => {
    const c = client();
    await c.execute("CREATE TABLE ledger (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL)");
    const results = await c.batch(
      [
        { sql: "INSERT INTO ledger (amount) VALUES (?)", args: [10] },
        { sql: "INSERT INTO ledger (amount) VALUES (?)", args: [20] },
        "SELECT sum(amount) AS total FROM ledger",
      ],
      "write",
    );
    expect(results.map((r) => r.rowsAffected)).toEqual([1, 1, 0]);
    expect(results[2]!.rows[0]!["total"]).toBe(30);

    const failure = await c
      .batch([{ sql: "INSERT INTO ledger (amount) VALUES (?)", args: [5] }, "INSERT INTO ledger (amount) VALUES (NULL)"], "write")
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(LibsqlError);
    expect((failure as LibsqlError).code).toBe("SQLITE_CONSTRAINT");
    expect((failure as LibsqlError).message).toContain("SQLite error: NOT NULL constraint failed: ledger.amount");
    expect(await countRows(c, "ledger")).toBe(2);
  });

  test("batch in read mode reads, and deferred mode can write", async () => {
    const c = client();
    await c.execute("CREATE TABLE modes (a)");
    const read = await c.batch(["SELECT 1 AS one", { sql: "SELECT ? AS echo", args: ["x"] }], "read");
    expect(read.map((r) => r.rows[0]![0])).toEqual([1, "x"]);
    const deferred = await c.batch(
      ["SELECT count(*) FROM modes", "INSERT INTO modes VALUES (1)", "SELECT count(*) FROM modes"],
      "deferred",
    );
    expect(deferred.map((r) => r.rows[0]?.[0] ?? null)).toEqual([0, null, 1]);
  });

  test("executeMultiple runs a script and stops at the first error", async () => {
    const c = client();
    await c.executeMultiple(`
      CREATE TABLE script (a);
      INSERT INTO script VALUES (1);
      INSERT INTO script VALUES (2);
    `);
    expect(await countRows(c, "script")).toBe(2);
    await expect(
      c.executeMultiple("INSERT INTO script VALUES (3); INSERT INTO nope VALUES (4); INSERT INTO script VALUES (5);"),
    ).rejects.toMatchObject({
      code: "SQL_INPUT_ERROR",
    });
    expect(await countRows(c, "script")).toBe(3);
  });

  test("migrate applies statements with foreign keys off, atomically", async () => {
    const c = client();
    await c.migrate([
      "CREATE TABLE parents (id INTEGER PRIMARY KEY)",
      "CREATE TABLE children (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parents(id))",
      "INSERT INTO children VALUES (1, 99)",
    ]);
    expect(await countRows(c, "children")).toBe(1);
    await expect(c.migrate(["CREATE TABLE half_done (a)", "CREATE TABLE parents (id)"])).rejects.toMatchObject({
      code: "SQL_INPUT_ERROR",
    });
    const tables = await c.execute("SELECT name FROM sqlite_schema WHERE name = 'half_done'");
    expect(tables.rows).toEqual([]);
  });
});

describe("interactive transactions", () => {
  test("commit makes writes visible to other streams", async () => {
    const c = client();
    await c.execute("CREATE TABLE tx_commit (a)");
    const tx = await c.transaction("write");
    await tx.execute("INSERT INTO tx_commit VALUES (1)");
    await tx.execute("INSERT INTO tx_commit VALUES (2)");
    expect(await countRows(client(), "tx_commit")).toBe(0);
    await tx.commit();
    expect(await countRows(c, "tx_commit")).toBe(2);
  });

  test("rollback discards writes", async () => {
    const c = client();
    await c.execute("CREATE TABLE tx_rollback (a)");
    const tx = await c.transaction("write");
    await tx.execute("INSERT INTO tx_rollback VALUES (1)");
    await tx.rollback();
    expect(await countRows(c, "tx_rollback")).toBe(0);
  });

  test("an abandoned transaction rolls back when its stream expires, and frees the writer", async () => {
    const c = client();
    await c.execute("CREATE TABLE tx_abandoned (a)");
    const tx = await c.transaction("write");
    await tx.execute("INSERT INTO tx_abandoned VALUES (1)");
    // Nobody commits: the stream expires after 500 ms of silence.
    const started = Date.now();
    await client().execute("INSERT INTO tx_abandoned VALUES (2)"); // waits for the writer, no SQLITE_BUSY
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    const rows = await c.execute("SELECT a FROM tx_abandoned");
    expect(rows.rows.map((r) => r[0])).toEqual([2]);
    await expect(tx.commit()).rejects.toBeInstanceOf(LibsqlError);
  });

  test("read transactions are not blocked by a writer (WAL)", async () => {
    const c = client();
    await c.execute("CREATE TABLE wal_read (a)");
    await c.execute("INSERT INTO wal_read VALUES (1)");
    const writer = await c.transaction("write");
    await writer.execute("INSERT INTO wal_read VALUES (2)");
    const reader = await client().transaction("read");
    expect((await reader.execute("SELECT count(*) FROM wal_read")).rows[0]![0]).toBe(1);
    reader.close();
    await writer.commit();
  });

  test("a read transaction (BEGIN TRANSACTION READONLY) refuses writes (the engine alone would not); the stream writes again after it", async () => {
    const c = client();
    await c.execute("CREATE TABLE ro (a)");
    const reader = await c.transaction("read");
    await expect(reader.execute("INSERT INTO ro VALUES (1)")).rejects.toMatchObject({ code: "SQLITE_READONLY" });
    await expect(reader.execute("CREATE TABLE ro2 (a)")).rejects.toMatchObject({ code: "SQLITE_READONLY" });
    expect((await reader.execute("SELECT count(*) FROM ro")).rows[0]![0]).toBe(0);
    await reader.commit();
    await expect(c.batch(["SELECT 1", "INSERT INTO ro VALUES (2)"], "read")).rejects.toMatchObject({ code: "SQLITE_READONLY" });
    expect((await c.execute("SELECT count(*) FROM ro")).rows[0]![0]).toBe(0);
    // Outside the read transaction, the same connection writes as usual.
    await c.execute("INSERT INTO ro VALUES (3)");
    expect((await c.execute("SELECT count(*) FROM ro")).rows[0]![0]).toBe(1);
  });
});

describe("values", () => {
  test("64-bit integers round-trip with intMode bigint", async () => {
    const c = client({ intMode: "bigint" });
    await c.execute("CREATE TABLE big (v INTEGER)");
    await c.execute({ sql: "INSERT INTO big VALUES (?), (?), (?)", args: [9223372036854775807n, -9223372036854775808n, 0n] });
    const rs = await c.execute("SELECT v, typeof(v) FROM big ORDER BY rowid");
    expect(rs.rows.map((r) => [r[0], r[1]])).toEqual([
      [9223372036854775807n, "integer"],
      [-9223372036854775808n, "integer"],
      [0n, "integer"],
    ]);
    const rowid = await c.execute({ sql: "INSERT INTO big (rowid, v) VALUES (?, 1)", args: [9223372036854775806n] });
    expect(rowid.lastInsertRowid).toBe(9223372036854775806n);
  });

  test("blobs round-trip byte for byte", async () => {
    const c = client();
    const bytes = new Uint8Array(256).map((_, i) => i);
    await c.execute("CREATE TABLE blobs (b BLOB)");
    await c.execute({ sql: "INSERT INTO blobs VALUES (?)", args: [bytes] });
    const rs = await c.execute("SELECT b, length(b) FROM blobs");
    expect(new Uint8Array(rs.rows[0]![0] as ArrayBuffer)).toEqual(bytes);
    expect(rs.rows[0]![1]).toBe(256);
  });

  test("JS numbers are stored as REAL, bigints and booleans as INTEGER", async () => {
    const c = client();
    const rs = await c.execute({ sql: "SELECT typeof(?), typeof(?), typeof(?), typeof(?)", args: [1, 1.5, 1n, true] });
    expect(Array.from(rs.rows[0]!)).toEqual(["real", "real", "integer", "integer"]);
  });
});

describe("errors", () => {
  test("constraint violations carry SQLITE_CONSTRAINT", async () => {
    const c = client();
    await c.execute("CREATE TABLE constrained (id INTEGER PRIMARY KEY, email TEXT UNIQUE, n INTEGER CHECK (n > 0))");
    await c.execute("INSERT INTO constrained VALUES (1, 'a@example.com', 1)");
    const cases: Array<[string, string]> = [
      ["INSERT INTO constrained VALUES (1, 'b@example.com', 1)", "UNIQUE constraint failed: constrained.id"],
      ["INSERT INTO constrained VALUES (2, 'a@example.com', 1)", "UNIQUE constraint failed: constrained.email"],
      ["INSERT INTO constrained VALUES (3, 'c@example.com', 0)", "CHECK constraint failed: n > 0"],
    ];
    for (const [statement, detail] of cases) {
      const err = (await c.execute(statement).catch((e: unknown) => e)) as LibsqlError;
      expect(err).toBeInstanceOf(LibsqlError);
      expect(err.code).toBe("SQLITE_CONSTRAINT");
      expect(err.message).toBe(`SQLITE_CONSTRAINT: SQLite error: ${detail}`);
    }
  });

  test("a batch error names the failing statement", async () => {
    const c = client();
    const err = await c.batch(["SELECT 1", "SELECT nope", "SELECT 2"], "read").catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "LibsqlBatchError", statementIndex: 1, code: "SQL_INPUT_ERROR" });
  });
});

describe("concurrency", () => {
  test("20 concurrent streams with interleaved writers all commit, with no SQLITE_BUSY", async () => {
    const setup = client();
    await setup.execute("CREATE TABLE concurrent (stream INTEGER, seq INTEGER, PRIMARY KEY (stream, seq))");
    const streams = 20;
    const rowsPerStream = 10;
    await Promise.all(
      Array.from({ length: streams }, async (_, s) => {
        const c = client();
        if (s % 2 === 0) {
          // Interactive transactions: hold the writer across several round trips.
          const tx = await c.transaction("write");
          for (let i = 0; i < rowsPerStream; i++) {
            await tx.execute({ sql: "INSERT INTO concurrent VALUES (?, ?)", args: [s, i] });
          }
          await tx.commit();
        } else {
          // Autocommit writes interleaved with reads.
          for (let i = 0; i < rowsPerStream; i++) {
            await c.execute({ sql: "INSERT INTO concurrent VALUES (?, ?)", args: [s, i] });
            await c.execute("SELECT count(*) FROM concurrent");
          }
        }
      }),
    );
    expect(await countRows(setup, "concurrent")).toBe(streams * rowsPerStream);
    const perStream = await setup.execute("SELECT stream, count(*) FROM concurrent GROUP BY stream ORDER BY stream");
    expect(perStream.rows.map((r) => [r[0], r[1]])).toEqual(Array.from({ length: streams }, (_, s) => [s, rowsPerStream]));
  });
});

describe("@libsql/client/web", () => {
  test("the fetch-only build (what workerd loads) works unchanged", async () => {
    const web = createWebClient({ url: server.url, intMode: "bigint" });
    try {
      await web.execute("CREATE TABLE web (a INTEGER)");
      await web.batch([{ sql: "INSERT INTO web VALUES (?)", args: [123456789012345678n] }], "write");
      const rs = await web.execute("SELECT a FROM web");
      expect(rs.rows[0]![0]).toBe(123456789012345678n);
      const tx = await web.transaction("write");
      await tx.execute("DELETE FROM web");
      await tx.commit();
      expect((await web.execute("SELECT count(*) FROM web")).rows[0]![0]).toBe(0n);
    } finally {
      web.close();
    }
  });
});
