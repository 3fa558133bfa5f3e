// Raw Hrana-over-HTTP v2 traffic against the server: response shapes, every request kind,
// batch conditions, batons and their errors, routing, values and sqld's error codes.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { float, int, pipeline, postPipeline, rowsOf, sql, startTestServer, text, type TestServer } from "./helpers.js";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server.dispose();
});

describe("routing", () => {
  test("GET /v2 answers 200 like sqld", async () => {
    const res = await fetch(`${server.url}/v2`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("Hello, this is HTTP API v2 (Hrana over HTTP)");
  });

  test("v3 endpoints answer 404 so clients stay on JSON v2", async () => {
    for (const path of ["/v3", "/v3-protobuf"]) {
      expect((await fetch(`${server.url}${path}`)).status).toBe(404);
    }
    for (const path of ["/v3/pipeline", "/v3-protobuf/pipeline", "/v3/cursor"]) {
      expect((await fetch(`${server.url}${path}`, { method: "POST", body: "{}" })).status).toBe(404);
    }
  });

  test("GET /health answers 200", async () => {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });

  test("GET /v2/pipeline is 405 and unknown paths are 404, both with JSON bodies", async () => {
    const wrongMethod = await fetch(`${server.url}/v2/pipeline`);
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toEqual({ error: "Method not allowed" });
    const unknown = await fetch(`${server.url}/nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toBe("application/json");
  });
});

describe("response shapes", () => {
  test("execute returns sqld's StmtResult shape with typed values", async () => {
    const body = await pipeline(server.url, [sql("SELECT 1 AS one, 'two' AS two, 0.5 AS three, NULL AS four, x'00ff' AS five")]);
    expect(Object.keys(body)).toEqual(["baton", "base_url", "results"]);
    expect(typeof body.baton).toBe("string");
    expect(body.base_url).toBeNull();
    expect(body.results).toHaveLength(1);
    const { result } = body.results[0].response;
    expect(body.results[0].type).toBe("ok");
    expect(body.results[0].response.type).toBe("execute");
    expect(result.cols).toEqual([
      { name: "one", decltype: null },
      { name: "two", decltype: null },
      { name: "three", decltype: null },
      { name: "four", decltype: null },
      { name: "five", decltype: null },
    ]);
    expect(result.rows).toEqual([
      [
        { type: "integer", value: "1" },
        { type: "text", value: "two" },
        { type: "float", value: 0.5 },
        { type: "null" },
        { type: "blob", base64: "AP8" }, // sqld writes base64 without padding
      ],
    ]);
    expect(result.affected_row_count).toBe(0);
    expect(result.last_insert_rowid).toBeNull();
  });

  test("every request kind answers with a response of the same type", async () => {
    await pipeline(server.url, [sql("CREATE TABLE kinds (id INTEGER PRIMARY KEY, v TEXT)")]);
    const body = await pipeline(server.url, [
      { type: "store_sql", sql_id: 1, sql: "INSERT INTO kinds (v) VALUES (?)" },
      { type: "execute", stmt: { sql_id: 1, args: [text("a")] } },
      {
        type: "batch",
        batch: { steps: [{ stmt: { sql_id: 1, args: [text("b")] } }, { stmt: { sql: "SELECT count(*) FROM kinds" } }] },
      },
      { type: "sequence", sql: "INSERT INTO kinds (v) VALUES ('c'); INSERT INTO kinds (v) VALUES ('d');" },
      { type: "describe", sql_id: 1 },
      { type: "get_autocommit" },
      { type: "close_sql", sql_id: 1 },
      { type: "close" },
    ]);
    expect(body.results.map((r: any) => [r.type, r.response.type])).toEqual([
      ["ok", "store_sql"],
      ["ok", "execute"],
      ["ok", "batch"],
      ["ok", "sequence"],
      ["ok", "describe"],
      ["ok", "get_autocommit"],
      ["ok", "close_sql"],
      ["ok", "close"],
    ]);
    expect(body.baton).toBeNull(); // the stream was closed
    expect(body.results[1].response.result.affected_row_count).toBe(1);
    expect(body.results[1].response.result.last_insert_rowid).toBe("1");
    expect(body.results[2].response.result.step_results[1].rows).toEqual([[{ type: "integer", value: "2" }]]);
    expect(body.results[2].response.result.step_errors).toEqual([null, null]);
    expect(body.results[4].response.result).toEqual({
      params: [{ name: null }],
      cols: [],
      is_explain: false,
      is_readonly: false,
    });
    expect(body.results[5].response.is_autocommit).toBe(true);
    expect(rowsOf((await pipeline(server.url, [sql("SELECT group_concat(v, '') FROM kinds")])).results[0])).toEqual([["abcd"]]);
  });

  test("describe reports parameters, columns and explain/readonly flags", async () => {
    const body = await pipeline(server.url, [
      { type: "describe", sql: "SELECT id AS i, v, :name, ?3 FROM kinds" },
      { type: "describe", sql: "EXPLAIN SELECT 1" },
    ]);
    expect(body.results[0].response.result).toEqual({
      params: [{ name: ":name" }, { name: null }, { name: "?3" }],
      cols: [
        { name: "i", decltype: "INTEGER" },
        { name: "v", decltype: "TEXT" },
        { name: ":name", decltype: null },
        { name: "?3", decltype: null },
      ],
      is_explain: false,
      is_readonly: true,
    });
    expect(body.results[1].response.result.is_explain).toBe(true);
  });

  test("want_rows false omits rows but still runs the statement", async () => {
    await pipeline(server.url, [sql("CREATE TABLE wr (a)")]);
    const body = await pipeline(server.url, [
      { type: "execute", stmt: { sql: "INSERT INTO wr VALUES (1), (2) RETURNING a", want_rows: false } },
    ]);
    expect(body.results[0].response.result.rows).toEqual([]);
    expect(body.results[0].response.result.cols).toEqual([{ name: "a", decltype: null }]);
    expect(body.results[0].response.result.affected_row_count).toBe(2);
    expect(rowsOf((await pipeline(server.url, [sql("SELECT count(*) FROM wr")])).results[0])).toEqual([[2n]]);
  });

  test("affected_row_count and last_insert_rowid only for INSERT/UPDATE/DELETE, as in sqld", async () => {
    await pipeline(server.url, [sql("CREATE TABLE counts (id INTEGER PRIMARY KEY, v)")]);
    const body = await pipeline(server.url, [
      sql("INSERT INTO counts (v) VALUES (1), (2), (3)"),
      sql("SELECT * FROM counts"),
      sql("UPDATE counts SET v = v + 1 WHERE id > 1"),
      sql("INSERT INTO counts (id, v) VALUES (9223372036854775807, 0) RETURNING id"),
      sql("WITH x(a) AS (SELECT 1) DELETE FROM counts WHERE id IN (SELECT a FROM x)"),
    ]);
    const results = body.results.map((r: any) => r.response.result);
    expect(results.map((r: any) => r.affected_row_count)).toEqual([3, 0, 2, 1, 1]);
    expect(results.map((r: any) => r.last_insert_rowid)).toEqual(["3", null, null, "9223372036854775807", null]);
  });
});

describe("values", () => {
  test("a float with an integral value stays REAL", async () => {
    await pipeline(server.url, [sql("CREATE TABLE reals (x)")]);
    const body = await pipeline(server.url, [
      sql("INSERT INTO reals VALUES (?), (?)", [float(1), int(1)]),
      sql("SELECT typeof(x), x FROM reals ORDER BY rowid"),
    ]);
    expect(body.results[1].response.result.rows).toEqual([
      [text("real"), { type: "float", value: 1 }],
      [text("integer"), { type: "integer", value: "1" }],
    ]);
  });

  test("64-bit integers, negative zero and infinities survive the trip", async () => {
    const body = await pipeline(server.url, [
      sql("SELECT ?, ?, ? + 0", [int("9223372036854775807"), int("-9223372036854775808"), int("+42")]),
      sql("SELECT -0.0, 1e308 * 10, -1e308 * 10"),
    ]);
    expect(body.results[0].response.result.rows[0]).toEqual([int("9223372036854775807"), int("-9223372036854775808"), int("42")]);
    expect(Object.is(body.results[1].response.result.rows[0][0].value, -0)).toBe(true);
    expect(body.results[1].response.result.rows[0].slice(1)).toEqual([
      { type: "float", value: Infinity },
      { type: "float", value: -Infinity },
    ]);
  });

  test("blobs round-trip as base64, padded or not", async () => {
    const body = await pipeline(server.url, [
      sql("SELECT ?, ?, length(?)", [
        { type: "blob", base64: "AAECAw==" },
        { type: "blob", base64: "AAECAw" },
        { type: "blob", base64: "" },
      ]),
    ]);
    expect(body.results[0].response.result.rows[0]).toEqual([
      { type: "blob", base64: "AAECAw" },
      { type: "blob", base64: "AAECAw" },
      int(0),
    ]);
  });

  test("named arguments bind with or without their prefix, as in sqld", async () => {
    const body = await pipeline(server.url, [
      {
        type: "execute",
        stmt: {
          sql: "SELECT :a, @b, $c, :a || @b, ?1",
          named_args: [
            { name: "a", value: text("A") },
            { name: "@b", value: text("B") },
            { name: "$c", value: text("C") },
          ],
        },
      },
    ]);
    expect(body.results[0].response.result.rows[0]).toEqual([text("A"), text("B"), text("C"), text("AB"), text("A")]);
  });
});

describe("batch conditions", () => {
  test("ok, error, not, and, or decide which steps run", async () => {
    const step = (sqlText: string, condition?: unknown) => ({ stmt: { sql: sqlText }, ...(condition ? { condition } : {}) });
    const ok = (s: number) => ({ type: "ok", step: s });
    const error = (s: number) => ({ type: "error", step: s });
    const body = await pipeline(server.url, [
      {
        type: "batch",
        batch: {
          steps: [
            step("SELECT 0"), // 0 runs, ok
            step("SELECT no_such_column"), // 1 runs, fails
            step("SELECT 2", ok(0)), // 2 runs
            step("SELECT 3", ok(1)), // 3 skipped
            step("SELECT 4", error(1)), // 4 runs
            step("SELECT 5", { type: "not", cond: ok(0) }), // 5 skipped
            step("SELECT 6", { type: "and", conds: [ok(0), error(1), ok(4)] }), // 6 runs
            step("SELECT 7", { type: "or", conds: [ok(1), ok(3)] }), // 7 skipped
            step("SELECT 8", { type: "or", conds: [ok(3), { type: "not", cond: error(0) }] }), // 8 runs
            step("SELECT 9", error(3)), // 9 runs: sqld treats a skipped step as not ok
            step("SELECT 10", { type: "and", conds: [] }), // 10 runs (empty and is true)
            step("SELECT 11", { type: "or", conds: [] }), // 11 skipped (empty or is false)
          ],
        },
      },
    ]);
    const result = body.results[0].response.result;
    const ran = result.step_results.map((r: any) => (r === null ? null : r.rows[0][0].value));
    expect(ran).toEqual(["0", null, "2", null, "4", null, "6", null, "8", "9", "10", null]);
    expect(result.step_errors.map((e: any) => e?.code ?? null)).toEqual([
      null,
      "SQL_INPUT_ERROR",
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(result.step_errors[1].message).toBe("SQL input error: no such column: no_such_column (at offset 7)");
  });

  test("a transactional batch rolls back when a step fails", async () => {
    await pipeline(server.url, [sql("CREATE TABLE tx_batch (a UNIQUE)")]);
    const body = await pipeline(server.url, [
      {
        type: "batch",
        batch: {
          steps: [
            { stmt: { sql: "BEGIN IMMEDIATE" } },
            { stmt: { sql: "INSERT INTO tx_batch VALUES (1)" }, condition: { type: "ok", step: 0 } },
            { stmt: { sql: "INSERT INTO tx_batch VALUES (1)" }, condition: { type: "ok", step: 1 } },
            { stmt: { sql: "COMMIT" }, condition: { type: "ok", step: 2 } },
            { stmt: { sql: "ROLLBACK" }, condition: { type: "not", cond: { type: "ok", step: 3 } } },
          ],
        },
      },
      sql("SELECT count(*) FROM tx_batch"),
    ]);
    const batch = body.results[0].response.result;
    expect(batch.step_errors[2]).toEqual({
      message: "SQLite error: UNIQUE constraint failed: tx_batch.a",
      code: "SQLITE_CONSTRAINT",
    });
    expect(batch.step_results[3]).toBeNull();
    expect(batch.step_results[4]).not.toBeNull();
    expect(rowsOf(body.results[1])).toEqual([[0n]]);
  });

  test("a condition on the same or a later step is a protocol error (HTTP 400)", async () => {
    const res = await postPipeline(server.url, {
      baton: null,
      requests: [{ type: "batch", batch: { steps: [{ stmt: { sql: "SELECT 1" }, condition: { type: "ok", step: 0 } }] } }],
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ message: "Invalid reference to step in a batch condition", code: "PROTOCOL_ERROR" });
  });
});

describe("streams and batons", () => {
  test("a baton carries the stream (and its transaction) to the next request", async () => {
    await pipeline(server.url, [sql("CREATE TABLE carried (a)")]);
    const first = await pipeline(server.url, [sql("BEGIN"), sql("INSERT INTO carried VALUES (1)")]);
    const second = await pipeline(server.url, [{ type: "get_autocommit" }, sql("SELECT count(*) FROM carried")], first.baton);
    expect(second.results[0].response.is_autocommit).toBe(false);
    expect(rowsOf(second.results[1])).toEqual([[1n]]);
    // Another stream does not see the uncommitted row.
    expect(rowsOf((await pipeline(server.url, [sql("SELECT count(*) FROM carried")])).results[0])).toEqual([[0n]]);
    const third = await pipeline(server.url, [sql("COMMIT"), { type: "close" }], second.baton);
    expect(third.baton).toBeNull();
    expect(rowsOf((await pipeline(server.url, [sql("SELECT count(*) FROM carried")])).results[0])).toEqual([[1n]]);
  });

  test("a baton used twice is refused like sqld (400, text/plain)", async () => {
    const first = await pipeline(server.url, [sql("SELECT 1")]);
    await pipeline(server.url, [sql("SELECT 2")], first.baton);
    const reused = await postPipeline(server.url, { baton: first.baton, requests: [sql("SELECT 3")] });
    expect(reused.status).toBe(400);
    expect(reused.contentType).toBe("text/plain");
    expect(reused.text).toBe("Received a baton that has already been used");
  });

  test("an unknown or forged baton is invalid (400, text/plain)", async () => {
    const real = (await pipeline(server.url, [sql("SELECT 1")])).baton as string;
    const forged = (real[0] === "A" ? "B" : "A") + real.slice(1);
    for (const baton of [forged, "not-a-baton", ""]) {
      const res = await postPipeline(server.url, { baton, requests: [] });
      expect(res.status).toBe(400);
      expect(res.contentType).toBe("text/plain");
      expect(res.text).toBe("Received an invalid baton");
    }
  });

  test("requests after close in the same pipeline fail like sqld", async () => {
    const res = await postPipeline(server.url, { baton: null, requests: [{ type: "close" }, sql("SELECT 1")] });
    expect(res.status).toBe(400);
    expect(res.text).toBe("Stream for this baton was closed");
  });

  test("connection settings changed by PRAGMA do not leak into later streams", async () => {
    // libsql (like sqld) enforces foreign keys by default.
    const first = await pipeline(server.url, [sql("PRAGMA foreign_keys = OFF"), sql("PRAGMA foreign_keys"), { type: "close" }]);
    expect(rowsOf(first.results[1])).toEqual([[0n]]);
    for (let i = 0; i < 3; i++) {
      const later = await pipeline(server.url, [sql("PRAGMA foreign_keys"), { type: "close" }]);
      expect(rowsOf(later.results[0])).toEqual([[1n]]);
    }
  });

  test("a protocol error drops the stream: its baton becomes invalid", async () => {
    const first = await pipeline(server.url, [sql("SELECT 1")]);
    const bad = await postPipeline(server.url, { baton: first.baton, requests: [{ type: "execute", stmt: { sql_id: 77 } }] });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ message: "SQL text 77 not found", code: "PROTOCOL_ERROR" });
  });
});

describe("stream expiry", () => {
  let shortLived: TestServer;
  beforeAll(async () => {
    shortLived = await startTestServer({ streamIdleMs: 300 });
    await pipeline(shortLived.url, [sql("CREATE TABLE expiring (a)")]);
  });
  afterAll(async () => {
    await shortLived.dispose();
  });

  test("an idle stream expires, rolls back, frees the writer and answers STREAM_EXPIRED", async () => {
    const open = await pipeline(shortLived.url, [sql("BEGIN IMMEDIATE"), sql("INSERT INTO expiring VALUES (1)")]);
    await new Promise((r) => setTimeout(r, 900));
    const res = await postPipeline(shortLived.url, { baton: open.baton, requests: [sql("COMMIT")] });
    expect(res.status).toBe(400);
    expect(res.contentType).toBe("application/json");
    expect(res.json).toEqual({ message: "The stream has expired due to inactivity", code: "STREAM_EXPIRED" });
    // The abandoned transaction rolled back and released the write lock.
    const after = await pipeline(shortLived.url, [sql("INSERT INTO expiring VALUES (2)"), sql("SELECT a FROM expiring")]);
    expect(rowsOf(after.results[1])).toEqual([[2n]]);
  });

  test("activity keeps a stream alive", async () => {
    let baton = (await pipeline(shortLived.url, [sql("SELECT 1")])).baton;
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 150));
      baton = (await pipeline(shortLived.url, [sql("SELECT 1")], baton)).baton;
    }
    expect(typeof baton).toBe("string");
  });
});

describe("write lock", () => {
  let impatient: TestServer;
  beforeAll(async () => {
    impatient = await startTestServer({ lockTimeoutMs: 200, streamIdleMs: 5_000 });
    await pipeline(impatient.url, [sql("CREATE TABLE contended (a)")]);
  });
  afterAll(async () => {
    await impatient.dispose();
  });

  test("a writer queues behind the holder, reads do not, and the wait is bounded", async () => {
    const holder = await pipeline(impatient.url, [sql("BEGIN IMMEDIATE"), sql("INSERT INTO contended VALUES (1)")]);
    // Readers go straight through (WAL snapshot without the uncommitted row).
    const read = await pipeline(impatient.url, [sql("SELECT count(*) FROM contended")]);
    expect(rowsOf(read.results[0])).toEqual([[0n]]);
    // A writer waits for the lock, then gives up with a clear error (not SQLITE_BUSY).
    const started = Date.now();
    const blocked = await pipeline(impatient.url, [sql("INSERT INTO contended VALUES (2)")]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(blocked.results[0].error).toEqual({
      message: "Timed out after 200 ms waiting for the database write lock",
      code: "TRANSACTION_BUSY",
    });
    // Once the holder commits, the next writer goes through at once.
    await pipeline(impatient.url, [sql("COMMIT")], holder.baton);
    const after = await pipeline(impatient.url, [
      sql("INSERT INTO contended VALUES (3)"),
      sql("SELECT a FROM contended ORDER BY a"),
    ]);
    expect(rowsOf(after.results[1])).toEqual([[1n], [3n]]);
  });

  test("a queued writer gets the lock when the holder commits", async () => {
    const holder = await pipeline(impatient.url, [sql("BEGIN IMMEDIATE"), sql("DELETE FROM contended")]);
    const queued = pipeline(impatient.url, [sql("INSERT INTO contended VALUES (4)"), sql("SELECT a FROM contended")]);
    await new Promise((r) => setTimeout(r, 50));
    await pipeline(impatient.url, [sql("COMMIT")], holder.baton);
    expect(rowsOf((await queued).results[1])).toEqual([[4n]]);
  });
});

describe("sqld error codes", () => {
  const errorOf = async (request: unknown) => {
    const body = await pipeline(server.url, [request]);
    expect(body.results[0].type).toBe("error");
    return body.results[0].error;
  };

  test("statement-shape errors", async () => {
    expect(await errorOf(sql(""))).toEqual({ message: "SQL string does not contain any statement", code: "SQL_NO_STATEMENT" });
    expect(await errorOf(sql(" -- only a comment\n;"))).toMatchObject({ code: "SQL_NO_STATEMENT" });
    expect(await errorOf(sql("SELECT 1; SELECT 2"))).toEqual({
      message: "SQL string contains more than one statement",
      code: "SQL_MANY_STATEMENTS",
    });
    expect(await errorOf(sql("SELECT 'unterminated"))).toEqual({
      message: `SQL string could not be parsed: unrecognized token: "'unterminated"`,
      code: "SQL_PARSE_ERROR",
    });
    expect(await errorOf(sql("SELECT * FROM (SELECT 1"))).toEqual({
      message: "SQL string could not be parsed: incomplete input",
      code: "SQL_PARSE_ERROR",
    });
    expect(await errorOf(sql("VACUUM"))).toEqual({
      message: "SQL string could not be parsed: unsupported statement: VACUUM",
      code: "SQL_PARSE_ERROR",
    });
  });

  test("engine errors", async () => {
    expect(await errorOf(sql("SELECT * FROM no_such_table"))).toEqual({
      message: "SQL input error: no such table: no_such_table (at offset 14)",
      code: "SQL_INPUT_ERROR",
    });
    expect(await errorOf(sql("COMMIT"))).toEqual({
      message: "SQLite error: cannot commit - no transaction is active",
      code: "SQLITE_UNKNOWN",
    });
    await pipeline(server.url, [sql("CREATE TABLE uniq (a PRIMARY KEY, b UNIQUE, c NOT NULL)")]);
    await pipeline(server.url, [sql("INSERT INTO uniq VALUES (1, 1, 1)")]);
    expect(await errorOf(sql("INSERT INTO uniq VALUES (1, 2, 1)"))).toEqual({
      message: "SQLite error: UNIQUE constraint failed: uniq.a",
      code: "SQLITE_CONSTRAINT",
    });
    expect(await errorOf(sql("INSERT INTO uniq VALUES (2, 2, NULL)"))).toEqual({
      message: "SQLite error: NOT NULL constraint failed: uniq.c",
      code: "SQLITE_CONSTRAINT",
    });
  });

  test("argument errors", async () => {
    expect(await errorOf(sql("SELECT ?", [int(1), int(2)]))).toEqual({
      message: "Arguments do not match SQL parameters: too many parameters, expected 1 found 2",
      code: "ARGS_INVALID",
    });
    expect(await errorOf(sql("SELECT ?, ?", [int(1)]))).toEqual({
      message: "Arguments do not match SQL parameters: value for parameter 2 not found",
      code: "ARGS_INVALID",
    });
    expect(await errorOf({ type: "execute", stmt: { sql: "SELECT :a", named_args: [{ name: "b", value: int(1) }] } })).toEqual({
      message: "Arguments do not match SQL parameters: value for parameter :a not found",
      code: "ARGS_INVALID",
    });
    expect(
      await errorOf({
        type: "execute",
        stmt: { sql: "SELECT ?, :a", args: [int(1)], named_args: [{ name: "a", value: int(1) }] },
      }),
    ).toEqual({
      message: "Specifying both positional and named arguments is not supported",
      code: "ARGS_BOTH_POSITIONAL_AND_NAMED",
    });
  });

  test("stored SQL limits", async () => {
    const body = await pipeline(server.url, [{ type: "store_sql", sql_id: 1, sql: `SELECT '${"x".repeat(5000)}'` }]);
    expect(body.results[0].error.code).toBe("SQL_STORE_TOO_LARGE");
    const duplicate = await postPipeline(server.url, {
      baton: null,
      requests: [
        { type: "store_sql", sql_id: 1, sql: "SELECT 1" },
        { type: "store_sql", sql_id: 1, sql: "SELECT 2" },
      ],
    });
    expect(duplicate.status).toBe(400);
    expect(duplicate.json.message).toBe("SQL text 1 already exists");
  });

  test("a result over the size limit is RESPONSE_TOO_LARGE and the stream goes on", async () => {
    const body = await pipeline(server.url, [sql("SELECT zeroblob(9 * 1024 * 1024)"), sql("SELECT 1")]);
    expect(body.results[0].error).toEqual({ message: "Response is too large", code: "RESPONSE_TOO_LARGE" });
    expect(rowsOf(body.results[1])).toEqual([[1n]]);
  });
});
