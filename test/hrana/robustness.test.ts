// Inputs that would crash or confuse the engine binding (booleans, objects, huge integers,
// bad base64, oversized bodies, wrong shapes) must come back as clean 4xx JSON errors, and the
// server must keep answering afterwards.

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LIMITS } from "../../server/hrana/index.js";
import { int, pipeline, postPipeline, rowsOf, sql, startTestServer, type TestServer } from "./helpers.js";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server.dispose();
});

async function stillServing(): Promise<void> {
  const body = await pipeline(server.url, [sql("SELECT 40 + 2")]);
  expect(rowsOf(body.results[0])).toEqual([[42n]]);
}

const execute = (args: unknown) => ({ baton: null, requests: [{ type: "execute", stmt: { sql: "SELECT ?", args } }] });

describe("malformed requests get a 4xx JSON error", () => {
  const cases: Array<[string, unknown, string]> = [
    ["non-JSON", "this is not json", "Cannot deserialize client message from JSON: Unexpected token"],
    ["a JSON array body", [], "Cannot deserialize client message from JSON: body: expected an object"],
    ["requests missing", { baton: null }, "Cannot deserialize client message from JSON: body.requests: expected an array"],
    ["requests not an array", { requests: 5 }, "Cannot deserialize client message from JSON: body.requests: expected an array"],
    [
      "baton of the wrong type",
      { baton: 7, requests: [] },
      "Cannot deserialize client message from JSON: body.baton: expected a string or null",
    ],
    [
      "unknown request type",
      { requests: [{ type: "explode" }] },
      'Cannot deserialize client message from JSON: body.requests[0].type: unknown request type "explode"',
    ],
    [
      "stmt missing",
      { requests: [{ type: "execute" }] },
      "Cannot deserialize client message from JSON: body.requests[0].stmt: expected an object",
    ],
    [
      "sql of the wrong type",
      { requests: [{ type: "execute", stmt: { sql: 1 } }] },
      "Cannot deserialize client message from JSON: body.requests[0].stmt.sql: expected a string or null",
    ],
    ["neither sql nor sql_id", { requests: [{ type: "execute", stmt: {} }] }, "Either `sql` or `sql_id` are required"],
    [
      "both sql and sql_id",
      { requests: [{ type: "execute", stmt: { sql: "SELECT 1", sql_id: 1 } }] },
      "Either `sql` or `sql_id` are required, but not both",
    ],
    [
      "a boolean argument",
      execute([true]),
      "Cannot deserialize client message from JSON: body.requests[0].stmt.args[0]: expected a value object",
    ],
    [
      "a boolean inside a value",
      execute([{ type: "integer", value: true }]),
      "Cannot deserialize client message from JSON: body.requests[0].stmt.args[0].value: expected a decimal integer as a string",
    ],
    [
      "an integer as a JSON number",
      execute([{ type: "integer", value: 5 }]),
      "Cannot deserialize client message from JSON: body.requests[0].stmt.args[0].value: expected a decimal integer as a string",
    ],
    [
      "an integer beyond 64 bits",
      execute([int("9223372036854775808")]),
      "Cannot deserialize client message from JSON: body.requests[0].stmt.args[0].value: integer 9223372036854775808 does not fit in 64 bits",
    ],
    ["a huge integer", execute([int("9".repeat(5000))]), "does not fit in 64 bits"],
    [
      "a float given as a string",
      execute([{ type: "float", value: "1.5" }]),
      "Cannot deserialize client message from JSON: body.requests[0].stmt.args[0].value: expected a finite number",
    ],
    [
      "a float overflowing to Infinity",
      `{"requests":[{"type":"execute","stmt":{"sql":"SELECT ?","args":[{"type":"float","value":1e400}]}}]}`,
      "expected a finite number",
    ],
    [
      "invalid base64",
      execute([{ type: "blob", base64: "!!!!" }]),
      "Cannot deserialize client message from JSON: body.requests[0].stmt.args[0].base64: invalid value, expected binary data encoded as base64",
    ],
    ["truncated base64", execute([{ type: "blob", base64: "AAECA" }]), "expected binary data encoded as base64"],
    [
      "an unknown value type",
      execute([{ type: "date", value: "2024-01-01" }]),
      'body.requests[0].stmt.args[0].type: unknown value type "date"',
    ],
    [
      "an object as argument list",
      { requests: [{ type: "execute", stmt: { sql: "SELECT ?", args: { a: 1 } } }] },
      "body.requests[0].stmt.args: expected an array",
    ],
    [
      "a lone surrogate in SQL",
      `{"requests":[{"type":"execute","stmt":{"sql":"SELECT '\\ud800'"}}]}`,
      "body.requests[0].stmt.sql: string contains a lone UTF-16 surrogate",
    ],
    [
      "want_rows not a boolean",
      { requests: [{ type: "execute", stmt: { sql: "SELECT 1", want_rows: "yes" } }] },
      "want_rows: expected a boolean or null",
    ],
    [
      "sql_id out of int32 range",
      { requests: [{ type: "close_sql", sql_id: 2 ** 40 }] },
      "body.requests[0].sql_id: expected a 32-bit integer",
    ],
    [
      "an unknown condition",
      {
        requests: [
          {
            type: "batch",
            batch: { steps: [{ stmt: { sql: "SELECT 1" } }, { stmt: { sql: "SELECT 1" }, condition: { type: "maybe" } }] },
          },
        ],
      },
      'unknown condition type "maybe"',
    ],
  ];

  for (const [name, body, message] of cases) {
    test(name, async () => {
      const res = await postPipeline(server.url, body);
      expect(res.status).toBe(400);
      expect(res.contentType).toBe("application/json");
      expect(res.json.code).toBe("PROTOCOL_ERROR");
      expect(res.json.message).toContain(message);
      await stillServing();
    });
  }

  test("invalid UTF-8 in the body", async () => {
    const res = await postPipeline(server.url, new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("PROTOCOL_ERROR");
    await stillServing();
  });

  test("conditions nested too deep", async () => {
    let condition: unknown = { type: "ok", step: 0 };
    for (let i = 0; i < 200; i++) condition = { type: "not", cond: condition };
    const res = await postPipeline(server.url, {
      requests: [{ type: "batch", batch: { steps: [{ stmt: { sql: "SELECT 1" } }, { stmt: { sql: "SELECT 1" }, condition }] } }],
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain("condition nested deeper than 100");
    await stillServing();
  });
});

describe("limits", () => {
  test("a body over the size limit is 413, and the server keeps serving", async () => {
    const res = await postPipeline(server.url, { requests: [sql(`SELECT '${"x".repeat(LIMITS.maxRequestBytes)}'`)] });
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ message: `Request body exceeds ${LIMITS.maxRequestBytes} bytes`, code: "REQUEST_TOO_LARGE" });
    await stillServing();
  });

  test("too many requests in one pipeline", async () => {
    const requests = Array.from({ length: LIMITS.maxRequestsPerPipeline + 1 }, () => ({ type: "get_autocommit" }));
    const res = await postPipeline(server.url, { requests });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(
      `Cannot deserialize client message from JSON: body.requests: too many elements (${LIMITS.maxRequestsPerPipeline + 1} > ${LIMITS.maxRequestsPerPipeline})`,
    );
    await stillServing();
  });

  test("too many steps in one batch", async () => {
    const steps = Array.from({ length: LIMITS.maxStepsPerBatch + 1 }, () => ({ stmt: { sql: "SELECT 1" } }));
    const res = await postPipeline(server.url, { requests: [{ type: "batch", batch: { steps } }] });
    expect(res.status).toBe(400);
    expect(res.json.message).toContain("body.requests[0].batch.steps: too many elements");
    await stillServing();
  });

  test("too many statements in one sequence", async () => {
    const body = await pipeline(server.url, [{ type: "sequence", sql: "SELECT 1;".repeat(LIMITS.maxSequenceStatements + 1) }]);
    expect(body.results[0].error).toEqual({
      message: `SQL string contains more than ${LIMITS.maxSequenceStatements} statements`,
      code: "SQL_MANY_STATEMENTS",
    });
    await stillServing();
  });

  test("statements that would open other files are refused", async () => {
    const body = await pipeline(server.url, [
      sql("ATTACH DATABASE '/tmp/other.db' AS other"),
      sql("PRAGMA journal_mode = DELETE"),
    ]);
    expect(body.results.map((r: any) => r.error.code)).toEqual(["SQL_PARSE_ERROR", "SQL_PARSE_ERROR"]);
    await stillServing();
  });
});
